import type { ModuleManifest } from '../../module-manifest.js';
import type { SandboxClockTables } from './business-clock.table.js';

// The module's tables join the `Database` type here, so src/db imports no module.
declare module '../../db/database.js' {
  interface Database extends SandboxClockTables {}
}

/** The sandbox test clock's offset; not a tenant's row: the sandbox reset returns it to zero itself. */
export const businessClockModule: ModuleManifest<unknown> = {
  name: 'business-clock',
  tables: ['sandbox_clock'],
  access: {
    sandbox_clock: { system: "one row per environment: the sandbox's business clock" },
  },
};
