import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Config, Environment } from '../config.js';
import type { Executor } from '../db/database.js';
import type { EnvironmentStore } from '../db/stores.js';
import type { WorkerPool } from './worker-pool.js';

/** What a job's handler gets: one environment's store per run (live and sandbox run separately). */
export interface JobContext {
  readonly name: string;
  readonly env: Environment;
  readonly store: EnvironmentStore;
  readonly config: Config;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The queued run's payload (`{}` for scheduled and on-demand runs). */
  readonly payload: Record<string, unknown>;
  /** 1 on the first attempt of this run. */
  readonly attempt: number;
  /** Aborted when the process is stopping: finish the current item and return. */
  readonly signal: AbortSignal;
  /** Worker threads for CPU-heavy work, closed when the runner stops (given by the runner; a hand-made context may leave it out). */
  readonly workers?: WorkerPool;
  /** Queue a run of another (or the same) job, e.g. from inside a handler. */
  enqueue(db: Executor, name: string, options?: EnqueueOptions): Promise<string>;
}

/** A summary stored as the run's result and shown by GET /v1/jobs (counts, not rows). */
export type JobResult = Record<string, number | string | boolean | null>;

export interface EnqueueOptions {
  payload?: Record<string, unknown>;
  /** ISO time or epoch ms; default now. */
  runAt?: number;
  /** A second enqueue with the same key is ignored while the first exists (durable dedupe). */
  dedupeKey?: string;
  /** Attempts before the run is marked failed (default: the definition's maxAttempts). */
  maxAttempts?: number;
}

export interface JobDefinition {
  /** kebab-case, e.g. `vaccination-reminders`; the name in POST /v1/jobs/:name/run. */
  readonly name: string;
  readonly description: string;
  /**
   * When the runner starts it by itself:
   * - `{ cron: '0 6 * * *' }` node-cron expression (UTC): one queued run per fire time, caught up once after downtime;
   * - `{ everyMs: 1000 }` a poller called in-process at that interval (no queue row; its last run with work is recorded);
   * - `null`: only when enqueued (by code or POST /v1/jobs/:name/run).
   */
  readonly schedule: { cron: string } | { everyMs: number } | null;
  /** Attempts of a queued run before it is marked failed (retries back off exponentially with jitter). */
  readonly maxAttempts?: number;
  run(ctx: JobContext): Promise<JobResult>;
}
