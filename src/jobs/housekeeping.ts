import type { JobContext, JobDefinition, JobResult } from './job-definition.js';
import { pruneFinishedRuns } from './jobs.repository.js';

/**
 * One module's share of the `housekeeping` job: drops what has expired (rows past their retention,
 * files a crash left behind). Modules hand theirs to `JobRunner.addHousekeeping`, so the runner never
 * imports a module. Tasks must be safe to repeat: a failed run is retried from the first task.
 */
export interface HousekeepingTask {
  /** Unique, e.g. `documents.stale-uploads`; names the task in logs. */
  readonly name: string;
  /** One clause for the job's description in GET /v1/jobs, e.g. "document uploads a crash left unfinished". */
  readonly drops: string;
  /** Returns counts for the run's result; keys must not collide with other tasks' keys. */
  run(ctx: JobContext): Promise<JobResult>;
}

/** Finished job runs are kept this long for GET /v1/jobs/:name, then dropped. */
const jobHistoryMs = 7 * 86_400_000;

/** The runner's own share: its run history. */
export const jobHistoryHousekeeping: HousekeepingTask = {
  name: 'jobs.history',
  drops: 'job runs older than 7 days',
  run: async ({ store, clock }) => ({ prunedRuns: await pruneFinishedRuns(store.db, clock.now() - jobHistoryMs) }),
};

/** `housekeeping`: every 10 minutes per environment, runs the registered tasks in order and merges their counts. */
export function housekeepingJob(tasks: readonly HousekeepingTask[]): JobDefinition {
  return {
    name: 'housekeeping',
    // A getter: modules add tasks after the job is registered.
    get description() {
      const clauses = tasks.map((task) => task.drops);
      return `Drops ${clauses.length > 1 ? `${clauses.slice(0, -1).join(', ')} and ${clauses.at(-1)}` : clauses.join('')}.`;
    },
    schedule: { cron: '*/10 * * * *' },
    async run(ctx) {
      const result: JobResult = {};
      for (const task of tasks) Object.assign(result, await task.run(ctx));
      return result;
    },
  };
}
