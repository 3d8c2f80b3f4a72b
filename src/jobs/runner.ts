import { createTask, type ScheduledTask } from 'node-cron';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Config, Environment } from '../config.js';
import type { EnvironmentStore, Stores } from '../db/stores.js';
import { housekeepingJob, jobHistoryHousekeeping, type HousekeepingTask } from './housekeeping.js';
import { slicedStore } from './job-slices.js';
import type { JobContext, JobDefinition, JobResult } from './job-definition.js';
import {
  claimDueJob,
  enqueueJob,
  extendLease,
  findJobRun,
  findSchedules,
  finishJob,
  recordLastRun,
  recordNextRun,
  requeueInterrupted,
  retryJob,
} from './jobs.repository.js';
import type { JobsTable } from './jobs.table.js';
import { WorkerPool } from './worker-pool.js';

export interface JobRunnerDeps {
  stores: Stores;
  config: Config;
  clock: Clock;
  logger: Logger;
}

/** Runs of different jobs overlap up to this many per environment; runs of one job never overlap. */
const maxConcurrentRuns = 4;
const leaseMs = 5 * 60_000;
const retryBaseMs = 30_000;

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err)).slice(0, 2000);

/** A poller's run is worth recording only when it did something (it runs every few hundred ms). */
const didWork = (result: JobResult): boolean => Object.values(result).some((v) => typeof v === 'number' && v > 0);

/**
 * The in-process job runner. Durable state lives in each environment's `jobs` table: a run is
 * claimed with a lease, retried with exponential backoff and jitter, and a run the process was in
 * the middle of when it died is queued again at the next start (a single process serves the
 * appliance; the lease also covers a run whose process vanished without a restart).
 * Cron schedules queue one run per fire time; pollers are called in-process at their interval.
 */
export class JobRunner {
  private readonly byName = new Map<string, JobDefinition>();
  private readonly busy = new Set<string>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly waiters = new Map<string, Array<() => void>>();
  private readonly cronTasks = new Map<string, ScheduledTask>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly abort = new AbortController();
  private tickTimer: NodeJS.Timeout | undefined;
  private ticking = false;
  private tickAgain = false;
  private started = false;
  private readonly housekeeping: HousekeepingTask[] = [jobHistoryHousekeeping];
  /** Worker threads for the jobs' CPU-heavy work (ctx.workers); closed when the runner stops. */
  readonly workers = new WorkerPool(2);

  constructor(private readonly deps: JobRunnerDeps) {
    this.register([housekeepingJob(this.housekeeping)]);
  }

  /** Registers definitions; names are unique. */
  register(definitions: readonly JobDefinition[]): void {
    for (const definition of definitions) {
      if (this.byName.has(definition.name)) throw new Error(`job ${definition.name} is registered twice`);
      this.byName.set(definition.name, definition);
    }
  }

  /** Adds a module's clean-up to the `housekeeping` job (every 10 minutes per environment); names are unique. */
  addHousekeeping(tasks: readonly HousekeepingTask[]): void {
    for (const task of tasks) {
      if (this.housekeeping.some((known) => known.name === task.name)) throw new Error(`housekeeping task ${task.name} is registered twice`);
      this.housekeeping.push(task);
    }
  }

  definitions(): JobDefinition[] {
    return [...this.byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  find(name: string): JobDefinition | undefined {
    return this.byName.get(name);
  }

  nextRunAt(name: string): string | null {
    const next = this.cronTasks.get(name)?.getNextRun();
    return next ? next.toISOString() : null;
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const now = this.deps.clock.now();
    for (const store of this.deps.stores.all()) {
      const requeued = await requeueInterrupted(store.db, now);
      if (requeued) this.deps.logger.warn({ env: store.env, requeued }, 'job runs interrupted by the last stop were queued again');
    }
    for (const definition of this.byName.values()) {
      const schedule = definition.schedule;
      if (!schedule) continue;
      if ('cron' in schedule) await this.startCron(definition, schedule.cron);
      else this.startPoller(definition, schedule.everyMs);
    }
    this.tickTimer = setInterval(() => this.kick(), this.deps.config.jobPollMs);
    this.tickTimer.unref();
    this.kick();
  }

  /** Looks for due runs now instead of at the next poll (call after committing an enqueue). */
  kick(): void {
    if (!this.started || this.abort.signal.aborted) return;
    if (this.ticking) {
      this.tickAgain = true;
      return;
    }
    this.ticking = true;
    setImmediate(() => {
      void this.tick()
        .catch((err: unknown) => this.deps.logger.error({ err }, 'job runner tick failed'))
        .finally(() => {
          this.ticking = false;
          if (this.tickAgain) {
            this.tickAgain = false;
            this.kick();
          }
        });
    });
  }

  /** Queues a run of `name` now (POST /v1/jobs/:name/run). */
  async enqueueNow(env: Environment, name: string, trigger: 'manual' | 'code' = 'manual'): Promise<string> {
    const definition = this.byName.get(name);
    if (!definition) throw new Error(`unknown job ${name}`);
    const store = this.deps.stores.get(env);
    const id = await enqueueJob(store.db, name, { trigger, defaultMaxAttempts: definition.maxAttempts ?? 1 }, this.deps.clock.now());
    this.kick();
    return id;
  }

  /** Resolves when the run has finished (succeeded or finally failed) or the timeout passes. */
  async waitFor(env: Environment, runId: string, timeoutMs: number): Promise<JobsTable | null> {
    const db = this.deps.stores.get(env).db;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const row = await findJobRun(db, runId);
      if (!row || row.status === 'succeeded' || row.status === 'failed') return row;
      const remaining = deadline - Date.now();
      if (remaining <= 0) return row;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(remaining, 1000));
        const list = this.waiters.get(runId) ?? [];
        list.push(() => {
          clearTimeout(timer);
          resolve();
        });
        this.waiters.set(runId, list);
      });
    }
  }

  async stop(timeoutMs = 10_000): Promise<void> {
    this.abort.abort();
    if (this.tickTimer) clearInterval(this.tickTimer);
    for (const timer of this.timers) clearTimeout(timer);
    for (const task of this.cronTasks.values()) await task.destroy();
    const pending = Promise.allSettled([...this.inFlight]);
    await Promise.race([pending, new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
    // A run still going after the timeout loses its worker threads (it fails with WorkerPoolClosed).
    await this.workers.close();
  }

  private context(definition: JobDefinition, store: EnvironmentStore, payload: Record<string, unknown>, attempt: number): JobContext {
    const { config, clock, logger } = this.deps;
    return {
      name: definition.name,
      env: store.env,
      // Its queries give the event loop a turn every few ms: a catch-up of thousands of rows never stalls the API.
      store: slicedStore(store),
      config,
      clock,
      logger: logger.child({ job: definition.name, env: store.env }),
      payload,
      attempt,
      signal: this.abort.signal,
      workers: this.workers,
      enqueue: (db, name, options = {}) => {
        const target = this.byName.get(name);
        return enqueueJob(db, name, { ...options, defaultMaxAttempts: target?.maxAttempts ?? 3 }, clock.now());
      },
    };
  }

  private async startCron(definition: JobDefinition, expression: string): Promise<void> {
    const task = createTask(expression, () => this.fire(definition), { timezone: 'UTC', name: definition.name, noOverlap: true });
    this.cronTasks.set(definition.name, task);
    // node-cron answers getNextRun() only for a started task (null before).
    await task.start();
    const now = this.deps.clock.now();
    const next = task.getNextRun()?.toISOString() ?? null;
    for (const store of this.deps.stores.all()) {
      // A fire missed while the service was down runs once now, not once per missed fire.
      const known = (await findSchedules(store.db)).get(definition.name);
      if (known?.next_run_at && Date.parse(known.next_run_at) <= now) {
        await enqueueJob(
          store.db,
          definition.name,
          { trigger: 'schedule', dedupeKey: `${definition.name}@${known.next_run_at}`, defaultMaxAttempts: definition.maxAttempts ?? 3 },
          now,
        );
      }
      await recordNextRun(store.db, definition.name, next, now);
    }
  }

  private async fire(definition: JobDefinition): Promise<void> {
    const now = this.deps.clock.now();
    const slot = new Date(Math.floor(now / 60_000) * 60_000).toISOString();
    const next = this.cronTasks.get(definition.name)?.getNextRun()?.toISOString() ?? null;
    try {
      for (const store of this.deps.stores.all()) {
        await store.db.transaction().execute(async (trx) => {
          await enqueueJob(
            trx,
            definition.name,
            { trigger: 'schedule', dedupeKey: `${definition.name}@${slot}`, defaultMaxAttempts: definition.maxAttempts ?? 3 },
            now,
          );
          await recordNextRun(trx, definition.name, next, now);
        });
      }
    } catch (err) {
      this.deps.logger.error({ err, job: definition.name }, 'could not queue a scheduled run');
    }
    this.kick();
  }

  private startPoller(definition: JobDefinition, everyMs: number): void {
    const loop = () => {
      if (this.abort.signal.aborted) return;
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        void this.poll(definition).finally(loop);
      }, everyMs);
      this.timers.add(timer);
    };
    loop();
  }

  private async poll(definition: JobDefinition): Promise<void> {
    for (const store of this.deps.stores.all()) {
      const key = `${store.env}:${definition.name}`;
      if (this.busy.has(key) || this.abort.signal.aborted) continue;
      this.busy.add(key);
      const work = (async () => {
        try {
          const result = await definition.run(this.context(definition, store, {}, 1));
          if (didWork(result)) await recordLastRun(store.db, definition.name, { id: null, status: 'succeeded', result, error: null }, this.deps.clock.now());
        } catch (err) {
          this.deps.logger.error({ err, job: definition.name, env: store.env }, 'job failed');
          await recordLastRun(store.db, definition.name, { id: null, status: 'failed', result: null, error: errorText(err) }, this.deps.clock.now()).catch(
            () => undefined,
          );
        } finally {
          this.busy.delete(key);
        }
      })();
      this.track(work);
      await work;
    }
  }

  private track(work: Promise<void>): void {
    this.inFlight.add(work);
    work.catch((err: unknown) => this.deps.logger.error({ err }, 'job bookkeeping failed')).finally(() => this.inFlight.delete(work));
  }

  private async tick(): Promise<void> {
    for (const store of this.deps.stores.all()) {
      for (;;) {
        if (this.abort.signal.aborted) return;
        const running = [...this.busy].filter((key) => key.startsWith(`${store.env}:`));
        if (running.length >= maxConcurrentRuns) break;
        const row = await claimDueJob(
          store.db,
          running.map((key) => key.slice(store.env.length + 1)),
          this.deps.clock.now(),
          leaseMs,
        );
        if (!row) break;
        const key = `${store.env}:${row.name}`;
        this.busy.add(key);
        const work = this.execute(store, row)
          .catch((err: unknown) => this.deps.logger.error({ err, job: row.name, run: row.id }, 'could not record the outcome of a job run'))
          .finally(() => {
            this.busy.delete(key);
            this.kick();
          });
        this.track(work);
      }
    }
  }

  private async execute(store: EnvironmentStore, row: JobsTable): Promise<void> {
    const { clock, logger } = this.deps;
    const definition = this.byName.get(row.name);
    const heartbeat = setInterval(() => void extendLease(store.db, row.id, clock.now(), leaseMs).catch(() => undefined), leaseMs / 3);
    heartbeat.unref();
    let final = true;
    let result: JobResult | undefined;
    try {
      if (!definition) throw new Error(`no job named ${row.name} is registered`);
      const payload = JSON.parse(row.payload) as Record<string, unknown>;
      result = await definition.run(this.context(definition, store, payload, row.attempts));
    } catch (err) {
      const error = errorText(err);
      logger.error({ err, job: row.name, env: store.env, run: row.id, attempt: row.attempts }, 'job failed');
      if (definition && row.attempts < row.max_attempts) {
        final = false;
        // Exponential backoff with jitter (half to all of the delay) keeps retries of many runs apart.
        const delay = retryBaseMs * 2 ** (row.attempts - 1);
        await retryJob(store.db, row, error, clock.now() + delay / 2 + Math.random() * (delay / 2), clock.now());
      } else {
        await finishJob(store.db, row, { status: 'failed', error }, clock.now());
      }
    } finally {
      clearInterval(heartbeat);
      // Recorded outside the try: a run that succeeded is never retried because its bookkeeping failed
      // (if this write fails, the lease lapses and the run is taken again, as after a crash).
      try {
        if (result !== undefined) await finishJob(store.db, row, { status: 'succeeded', result }, clock.now());
      } finally {
        if (final) {
          for (const wake of this.waiters.get(row.id) ?? []) wake();
          this.waiters.delete(row.id);
        }
      }
    }
  }
}
