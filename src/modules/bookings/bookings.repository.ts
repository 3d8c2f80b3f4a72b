import { scoped } from '../../db/access-policy.js';
import type { Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import type { BookingKind, BookingsTable } from './bookings.table.js';

/** A new booking, of the caller's tenant and (for a location-scoped caller) at one of its locations. */
export async function insertBooking(db: Executor, actor: AccessFilter, row: BookingsTable): Promise<void> {
  await scoped(db, actor).insert('bookings', row);
}

/** One booking of a kind, through the caller's tenant and locations (null when out of sight). */
export async function findBooking(db: Executor, actor: AccessFilter, kind: BookingKind, id: string): Promise<BookingsTable | null> {
  return (await scoped(db, actor).selectFrom('bookings').selectAll().where('id', '=', id).where('kind', '=', kind).executeTakeFirst()) ?? null;
}

/** Changes the facts of one booking the caller may see (status, times, amount, invoice, provider); updated_at moves with them. */
export async function updateBooking(
  db: Executor,
  actor: AccessFilter,
  id: string,
  patch: Partial<Pick<BookingsTable, 'status' | 'starts_at' | 'ends_at' | 'amount' | 'provider_id' | 'invoice_id' | 'location_id'>>,
  now: string,
): Promise<void> {
  await scoped(db, actor)
    .updateTable('bookings')
    .set({ ...patch, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/** Every booking of a tenant goes (sandbox reset only). Kinds' own tables must be emptied first. */
export async function deleteTenantBookings(db: Executor, tenantId: string): Promise<void> {
  await scoped(db, { tenantId, locationIds: null }).deleteFrom('bookings').execute();
}
