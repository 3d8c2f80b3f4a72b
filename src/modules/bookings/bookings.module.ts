import type { ModuleManifest } from '../../module-manifest.js';

/** The facts every kind of booking shares; each kind's module erases its own rows first, these go after them. */
export const bookingsModule: ModuleManifest<unknown> = {
  name: 'bookings',
  tables: ['bookings'],
  reset: { rows: ['bookings'] },
};
