import type { Executor } from '../../db/database.js';
import { inList } from '../../db/in-list.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { ProviderReviewsTable } from './providers.table.js';

/** Tenant always; a location-scoped caller sees the reviews of bookings at its locations. */
function visible(db: Executor, actor: AccessFilter) {
  let query = db.selectFrom('provider_reviews').selectAll().where('tenant_id', '=', actor.tenantId);
  if (actor.locationIds !== null) query = query.where('location_id', 'in', inList(actor.locationIds));
  return query;
}

export async function insertReview(db: Executor, row: ProviderReviewsTable): Promise<void> {
  await db.insertInto('provider_reviews').values(row).execute();
}

export async function findReview(db: Executor, actor: AccessFilter, id: string): Promise<ProviderReviewsTable | null> {
  return (await visible(db, actor).where('id', '=', id).executeTakeFirst()) ?? null;
}

/** The review of a booking, whoever may see it (one per booking, enforced by UNIQUE). */
export async function reviewOfBooking(db: Executor, tenantId: string, bookingId: string): Promise<Pick<ProviderReviewsTable, 'id'> | null> {
  return (
    (await db.selectFrom('provider_reviews').select('id').where('tenant_id', '=', tenantId).where('booking_id', '=', bookingId).executeTakeFirst()) ?? null
  );
}

export async function listReviews(
  db: Executor,
  actor: AccessFilter,
  page: PageRequest,
  filters: { providerId?: string | undefined },
): Promise<ProviderReviewsTable[]> {
  let query = visible(db, actor);
  if (filters.providerId !== undefined) query = query.where('provider_id', '=', filters.providerId);
  return pageQuery(query, page).execute();
}

/** Sets the reply when there is none yet; false when another reply got there first. */
export async function setReply(db: Executor, tenantId: string, id: string, reply: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('provider_reviews')
    .set({ reply, replied_at: at })
    .where('id', '=', id)
    .where('tenant_id', '=', tenantId)
    .where('reply', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
