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
  tables: ['imports', 'compliance_deferral', 'import_pets_daily'],
  access: {
    // A client confined to locations sees and cancels the imports into one of them; the repository
    // narrows it to those whose maker was confined within its locations (a report may name every
    // location its maker reaches). A tenant-wide import only a tenant-wide client.
    imports: { location: 'location_id' },
    compliance_deferral: { system: 'a flag and the pets of an import batch, inside its transaction only' },
    import_pets_daily: { system: 'the pets an import batch counts for analytics_daily, inside its transaction only' },
  },
  reset: { rows: ['imports'], files: (dataDir, env) => new ImportFiles(dataDir).removeAll(env) },
};
