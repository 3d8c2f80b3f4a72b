import type { ModuleManifest } from '../../module-manifest.js';
import type { BookingsTables } from './bookings.table.js';
import { bookingsEvents } from './bookings.events.js';

// The module's tables join the `Database` type here, so src/db imports no module.
declare module '../../db/database.js' {
  interface Database extends BookingsTables {}
}

/** The facts every kind of booking shares; each kind's module erases its own rows first, these go after them. */
export const bookingsModule: ModuleManifest<unknown> = {
  name: 'bookings',
  events: bookingsEvents,
  tables: ['bookings'],
  access: {
    bookings: { location: 'location_id' },
  },
  reset: { rows: ['bookings'] },
};
