import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { SecretBox } from '../../db/secret-box.js';
import type { JobRunner } from '../../jobs/runner.js';
import type { ModuleManifest } from '../../module-manifest.js';
import { ImportFiles } from './import-files.js';
import { importsErrorCodes } from './imports.errors.js';
import { importHousekeeping, importJob } from './imports.jobs.js';
import { importRoutes } from './imports.routes.js';
import type { ImportsTables } from './imports.table.js';

declare module '../../db/database.js' {
  interface Database extends ImportsTables {}
}

export const importsModule: ModuleManifest<{ config: Config; clock: Clock; runner: JobRunner; secretBox: SecretBox }> = {
  name: 'imports',
  errors: importsErrorCodes,
  sdk: { imports: { create: 'createImport', list: 'listImports', get: 'getImport', cancel: 'cancelImport', template: 'getImportTemplate' } },
  routes: (deps) => importRoutes(deps),
  jobs: (deps) => [importJob(deps)],
  housekeeping: (deps) => importHousekeeping(deps),
  tags: {
    Imports:
      'Bulk imports (imp_ ids) of a practice moving in: pet parents, pets, vaccinations, medical-record notes, appointments and providers, from CSV or NDJSON.',
  },
  tables: ['imports', 'compliance_deferral'],
  access: {
    // An import's report (its row errors) speaks of the rows of its location: a client confined to
    // locations sees and cancels the imports into one of them; a tenant-wide import (no location,
    // each row naming its own) only a tenant-wide client.
    imports: { location: 'location_id' },
    compliance_deferral: { system: 'a flag and the pets of an import batch, inside its transaction only' },
  },
  reset: { rows: ['imports'], files: (dataDir, env) => new ImportFiles(dataDir).removeAll(env) },
};
