import type { Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import { inList } from '../../db/in-list.js';
import type { BookingKind, BookingsTable } from './bookings.table.js';

export async function insertBooking(db: Executor, row: BookingsTable): Promise<void> {
  await db.insertInto('bookings').values(row).execute();
}

/** One booking of a kind, through the caller's tenant and locations (null when out of sight). */
export async function findBooking(db: Executor, actor: AccessFilter, kind: BookingKind, id: string): Promise<BookingsTable | null> {
  let query = db.selectFrom('bookings').selectAll().where('id', '=', id).where('tenant_id', '=', actor.tenantId).where('kind', '=', kind);
  if (actor.locationIds !== null) query = query.where('location_id', 'in', inList(actor.locationIds));
  return (await query.executeTakeFirst()) ?? null;
}

/** Changes the facts of one booking (status, times, amount, invoice, provider); updated_at moves with them. */
export async function updateBooking(
  db: Executor,
  tenantId: string,
  id: string,
  patch: Partial<Pick<BookingsTable, 'status' | 'starts_at' | 'ends_at' | 'amount' | 'provider_id' | 'invoice_id' | 'location_id'>>,
  now: string,
): Promise<void> {
  await db
    .updateTable('bookings')
    .set({ ...patch, updated_at: now })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
}

/** Every booking of a tenant goes (sandbox reset only). Kinds' own tables must be emptied first. */
export async function deleteTenantBookings(db: Executor, tenantId: string): Promise<void> {
  await db.deleteFrom('bookings').where('tenant_id', '=', tenantId).execute();
}
