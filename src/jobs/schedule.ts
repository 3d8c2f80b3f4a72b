import type { IdempotencyStore } from '../http/idempotency.js';
import { sweepExpiredTokens } from '../modules/oauth/refresh-tokens.repository.js';
import type { JobDefinition } from './job-definition.js';
import { pruneFinishedRuns } from './jobs.repository.js';

/** Finished job runs are kept this long for GET /v1/jobs/:name, then dropped. */
const jobHistoryMs = 7 * 86_400_000;

/** Housekeeping: idempotency records past their 24 h, spent or expired tokens, old job runs. */
export function housekeepingJob(deps: { idempotency: IdempotencyStore }): JobDefinition {
  return {
    name: 'housekeeping',
    description: 'Drops expired idempotency records, spent or expired tokens and job runs older than 7 days.',
    schedule: { cron: '*/10 * * * *' },
    async run({ store, clock }) {
      const now = clock.now();
      await deps.idempotency.sweep(store.db, now);
      await sweepExpiredTokens(store.db, new Date(now).toISOString());
      const prunedRuns = await pruneFinishedRuns(store.db, now - jobHistoryMs);
      return { prunedRuns };
    },
  };
}
