import { scoped } from '../../db/access-policy.js';
import type { Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { ProviderReviewsTable } from './providers.table.js';

/** Tenant always; a location-scoped caller sees the reviews of bookings at its locations (the policy). */
function visible(db: Executor, actor: AccessFilter) {
  return scoped(db, actor).selectFrom('provider_reviews').selectAll();
}

export async function insertReview(db: Executor, access: AccessFilter, row: ProviderReviewsTable): Promise<void> {
  await scoped(db, access).insert('provider_reviews', row);
}

export async function findReview(db: Executor, actor: AccessFilter, id: string): Promise<ProviderReviewsTable | null> {
  return (await visible(db, actor).where('id', '=', id).executeTakeFirst()) ?? null;
}

/** The review of a booking, whoever may see it (`wholeTenant`; one per booking, enforced by UNIQUE). */
export async function reviewOfBooking(db: Executor, access: AccessFilter, bookingId: string): Promise<Pick<ProviderReviewsTable, 'id'> | null> {
  return (await scoped(db, access).selectFrom('provider_reviews').select('id').where('booking_id', '=', bookingId).executeTakeFirst()) ?? null;
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
export async function setReply(db: Executor, access: AccessFilter, id: string, reply: string, at: string): Promise<boolean> {
  const result = await scoped(db, access)
    .updateTable('provider_reviews')
    .set({ reply, replied_at: at })
    .where('id', '=', id)
    .where('reply', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
