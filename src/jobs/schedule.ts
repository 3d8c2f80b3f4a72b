import cron from 'node-cron';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Stores } from '../db/stores.js';
import type { AuditLog } from '../http/audit.js';
import type { IdempotencyStore } from '../http/idempotency.js';
import { sweepExpiredTokens } from '../modules/oauth/refresh-tokens.repository.js';

export interface JobDeps {
  stores: Stores;
  idempotency: IdempotencyStore;
  audit: AuditLog;
  logger: Logger;
  clock: Clock;
}

export interface ScheduledJob {
  name: string;
  schedule: string;
  run(deps: JobDeps): Promise<void>;
}

/** Housekeeping: idempotency records past their 24 h, spent or expired tokens. */
export const housekeeping: ScheduledJob = {
  name: 'housekeeping',
  schedule: '*/10 * * * *',
  async run({ stores, idempotency, clock }) {
    for (const store of stores.all()) {
      await idempotency.sweep(store.db, clock.now());
      await sweepExpiredTokens(store.db, new Date(clock.now()).toISOString());
    }
  },
};

export const scheduledJobs: readonly ScheduledJob[] = [housekeeping];

/** Starts the cron schedules; the durable job runner with a jobs table arrives with the webhooks work. */
export function startJobs(deps: JobDeps): { stop(): void } {
  const tasks = scheduledJobs.map((job) =>
    cron.schedule(job.schedule, async () => {
      try {
        await job.run(deps);
      } catch (err) {
        deps.logger.error({ err, job: job.name }, 'job failed');
      }
    }),
  );
  return {
    stop() {
      for (const task of tasks) void task.stop();
    },
  };
}
