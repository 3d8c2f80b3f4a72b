import { isoAt } from '../../clock.js';
import type { Executor } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import { wholeTenant, type Actor } from '../../http/actor.js';
import { AppError, foundOr404, missingReference, notFound } from '../../http/errors.js';
import { findBooking } from '../bookings/index.js';
import { findPetParent } from '../pet-parents/index.js';
import { findReview, insertReview, reviewOfBooking, setReply } from './reviews.repository.js';
import type { CreateRatingInput } from './reviews.schema.js';
import type { ProviderReviewsTable } from './providers.table.js';

/**
 * One verified review per completed marketplace booking, given by the booking's pet parent. The
 * booking must be one the caller sees (tenant, locations), else 404. `parentId` is optional
 * (DESIGN §12's body is `{bookingId, stars, comment?}`): when sent, it must be a parent the caller
 * sees (400 resource_missing) and the booking must be theirs — a booking of another parent answers
 * 404 like an unknown one, so a parent learns nothing about other parents' bookings. The
 * provider's rating moves by trigger in the same transaction; UNIQUE(booking_id) makes a second
 * rating impossible even under races.
 */
export async function rateBooking(db: Executor, actor: Actor, input: CreateRatingInput, now: number): Promise<ProviderReviewsTable> {
  if (input.parentId !== undefined && !(await findPetParent(db, actor, input.parentId))) throw missingReference('parentId', 'pet parent', input.parentId);
  const booking = await findBooking(db, actor, 'marketplace', input.bookingId);
  if (!booking || booking.provider_id === null || (input.parentId !== undefined && booking.parent_id !== input.parentId))
    throw notFound('booking', input.bookingId);
  if (await reviewOfBooking(db, wholeTenant(actor), booking.id)) throw alreadyRated(booking.id);
  if (booking.status !== 'completed') {
    throw new AppError('booking_not_completed', `Booking ${booking.id} is ${booking.status}; only a completed booking can be rated.`, {
      extensions: { currentStatus: booking.status },
    });
  }
  const row: ProviderReviewsTable = {
    id: newId('rev'),
    tenant_id: actor.tenantId,
    provider_id: booking.provider_id,
    booking_id: booking.id,
    parent_id: booking.parent_id,
    pet_id: booking.pet_id,
    location_id: booking.location_id,
    stars: input.stars,
    comment: input.comment ?? null,
    reply: null,
    replied_at: null,
    created_at: isoAt(now),
  };
  try {
    await insertReview(db, actor, row);
  } catch (err) {
    // The write transaction already serialises raters; the UNIQUE index is the last word all the same.
    if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw alreadyRated(booking.id);
    throw err;
  }
  return row;
}

const alreadyRated = (bookingId: string) => new AppError('already_rated', `Booking ${bookingId} has already been rated; a booking takes one rating.`);

/** The provider's one answer to a review (admin with the marketplace scope). */
export async function replyToReview(db: Executor, actor: Actor, id: string, reply: string, now: number): Promise<ProviderReviewsTable> {
  const review = foundOr404(await findReview(db, actor, id), 'review', id);
  const at = isoAt(now);
  if (review.reply !== null || !(await setReply(db, wholeTenant(actor), id, reply, at))) {
    throw new AppError('already_replied', `Review ${id} already has a reply; a review takes one.`);
  }
  return { ...review, reply, replied_at: at };
}
