import type { SecretBox } from '../../db/secret-box.js';
import type { Config } from '../../config.js';
import type { HousekeepingTask } from '../../jobs/housekeeping.js';
import type { JobDefinition } from '../../jobs/job-definition.js';
import { ImportFiles } from './import-files.js';
import { importJobName, runImport } from './imports.service.js';

/**
 * Runs the queued imports (POST /v1/imports queues one run per import), one at a time per
 * environment. A run stopped by a restart is taken up where its last batch committed: the runner
 * queues an interrupted run again at start (kill -9 included), and a graceful stop queues the rest.
 */
export function importJob(deps: { secretBox: Pick<SecretBox, 'seal'> }): JobDefinition {
  return {
    name: importJobName,
    description:
      'Runs one bulk import (POST /v1/imports): validates the file, then writes its rows in batches of 100, each in one transaction with its progress. ' +
      'Queued by the upload; an interrupted run resumes from the last committed batch.',
    schedule: null,
    maxAttempts: 1,
    async run(ctx) {
      const importId = String(ctx.payload.importId ?? '');
      const tenantId = String(ctx.payload.tenantId ?? '');
      const outcome = await runImport(
        {
          env: ctx.env,
          db: ctx.store.db,
          files: new ImportFiles(ctx.config.dataDir),
          now: () => ctx.clock.now(),
          signal: ctx.signal,
          logger: ctx.logger,
          secrets: deps.secretBox,
        },
        importId,
        tenantId,
      );
      // Stopped between batches by a graceful stop: the rest runs at the next start.
      if (outcome.status === 'paused') await ctx.enqueue(ctx.store.db, importJobName, { payload: ctx.payload, maxAttempts: 1 });
      return { importId, status: outcome.status, processed: outcome.processed };
    },
  };
}

/** The module's housekeeping: upload temp files (`.part`) a crash left behind, once an hour old. */
export function importHousekeeping(deps: { config: Pick<Config, 'dataDir'> }): HousekeepingTask[] {
  const files = new ImportFiles(deps.config.dataDir);
  return [
    {
      name: 'imports.stale-uploads',
      drops: 'import uploads a crash left unfinished',
      run: async ({ env, clock }) => ({ staleImportUploads: await files.sweepStaleParts(env, clock.now()) }),
    },
  ];
}
