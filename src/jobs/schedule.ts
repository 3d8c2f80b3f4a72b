import type { IdempotencyStore } from '../http/idempotency.js';
import { DocumentFiles } from '../modules/documents/index.js';
import { sweepExpiredTokens } from '../modules/oauth/refresh-tokens.repository.js';
import type { JobDefinition } from './job-definition.js';
import { pruneFinishedRuns } from './jobs.repository.js';

/** Finished job runs are kept this long for GET /v1/jobs/:name, then dropped. */
const jobHistoryMs = 7 * 86_400_000;

/** Housekeeping: idempotency records past their 24 h, spent or expired tokens, old job runs, uploads a crash left half-written. */
export function housekeepingJob(deps: { idempotency: IdempotencyStore }): JobDefinition {
  return {
    name: 'housekeeping',
    description: 'Drops expired idempotency records, spent or expired tokens, job runs older than 7 days and document uploads a crash left unfinished.',
    schedule: { cron: '*/10 * * * *' },
    async run({ store, clock, config }) {
      const now = clock.now();
      await deps.idempotency.sweep(store.db, now);
      await sweepExpiredTokens(store.db, new Date(now).toISOString());
      const prunedRuns = await pruneFinishedRuns(store.db, now - jobHistoryMs);
      const staleUploads = await new DocumentFiles(config.dataDir).sweepStaleUploads(store.env, now);
      return { prunedRuns, staleUploads };
    },
  };
}
