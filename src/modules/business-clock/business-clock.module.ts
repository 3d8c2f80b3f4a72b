import type { ModuleManifest } from '../../module-manifest.js';

/** The sandbox test clock's offset; not a tenant's row: the sandbox reset returns it to zero itself. */
export const businessClockModule: ModuleManifest<unknown> = {
  name: 'business-clock',
  tables: ['sandbox_clock'],
};
