import type { Executor } from '../../db/database.js';
import { emit } from '../events/index.js';
import type { BookingsTable } from './bookings.table.js';

/**
 * The one emitter of `booking.created` for every kind (DESIGN §7): the seed's
 * {bookingId, petId, service, amount, currency} plus kind, locationId and startsAt.
 * `service` names what was booked: `boarding`, `grooming`, or a marketplace service.
 */
export async function emitBookingCreated(db: Executor, booking: BookingsTable, service: string, now: number): Promise<void> {
  await emit(
    db,
    'booking.created',
    {
      bookingId: booking.id,
      petId: booking.pet_id,
      service,
      amount: booking.amount,
      currency: booking.currency,
      kind: booking.kind,
      locationId: booking.location_id,
      startsAt: booking.starts_at,
    },
    booking.tenant_id,
    now,
  );
}

/** The one emitter of `booking.cancelled`: a cancellation or a no-show (`status` says which). */
export async function emitBookingCancelled(
  db: Executor,
  booking: BookingsTable,
  service: string,
  status: 'cancelled' | 'no_show',
  reason: string | null,
  now: number,
): Promise<void> {
  await emit(
    db,
    'booking.cancelled',
    {
      bookingId: booking.id,
      petId: booking.pet_id,
      service,
      reason,
      kind: booking.kind,
      status,
      amount: booking.amount,
      currency: booking.currency,
      locationId: booking.location_id,
    },
    booking.tenant_id,
    now,
  );
}
