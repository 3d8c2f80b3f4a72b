import type { Config } from '../../config.js';
import type { HousekeepingTask } from '../../jobs/housekeeping.js';
import { DocumentFiles } from './document-files.js';

/** The module's housekeeping: temp files of uploads a stopped process never finished. */
export function documentHousekeeping(deps: { config: Pick<Config, 'dataDir'> }): HousekeepingTask[] {
  const files = new DocumentFiles(deps.config.dataDir);
  return [
    {
      name: 'documents.stale-uploads',
      drops: 'document uploads a crash left unfinished',
      run: async ({ store, clock }) => ({ staleUploads: await files.sweepStaleUploads(store.env, clock.now()) }),
    },
  ];
}
