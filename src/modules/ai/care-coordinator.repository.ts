import { scoped } from '../../db/access-policy.js';
import type { Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import { recentDoseLimit, sectionLimit } from './care-coordinator.schema.js';

/** Appointment states still ahead of the visit or in it. */
const liveAppointmentStates = ['confirmed', 'checked_in', 'in_progress'];
/**
 * Booking states after which nothing more happens, across kinds (boarding: checked_out, cancelled,
 * no_show; grooming: completed, cancelled, no_show; marketplace: completed, cancelled).
 */
const finalBookingStates = ['cancelled', 'no_show', 'checked_out', 'completed'];

/** Confirmed, checked-in or in-progress appointments of a pet not ended at `nowIso`, at the caller's locations. */
export async function upcomingAppointments(db: Executor, actor: AccessFilter, petId: string, nowIso: string) {
  return scoped(db, actor)
    .selectFrom('appointments')
    .select(['id', 'type', 'status', 'starts_at', 'ends_at', 'location_id', 'provider_id'])
    .where('pet_id', '=', petId)
    .where('status', 'in', liveAppointmentStates)
    .where('ends_at', '>', nowIso)
    .orderBy('starts_at')
    .orderBy('id')
    .limit(sectionLimit)
    .execute();
}

/**
 * Bookings of every kind (the shared table of facts) of a pet not ended (or still checked in / in
 * progress) and not final, with a boarding stay's dates and room (the stay of the booking, so at its location).
 */
export async function upcomingBookings(db: Executor, actor: AccessFilter, petId: string, nowIso: string) {
  return (
    scoped(db, actor)
      .selectFrom('bookings')
      .leftJoin('boarding_stays', 'boarding_stays.booking_id', 'bookings.id')
      .select([
        'bookings.id',
        'bookings.kind',
        'bookings.status',
        'bookings.starts_at',
        'bookings.ends_at',
        'bookings.location_id',
        'bookings.provider_id',
        'bookings.amount',
        'bookings.currency',
        'boarding_stays.check_in_on',
        'boarding_stays.check_out_on',
        'boarding_stays.room_id',
        'boarding_stays.checked_in_at',
      ])
      .where('bookings.pet_id', '=', petId)
      .where('bookings.status', 'not in', finalBookingStates)
      // a pet still checked in (or a groom still in progress) past its booked end is still current
      .where((eb) => eb.or([eb('bookings.ends_at', '>', nowIso), eb('bookings.status', 'in', ['checked_in', 'in_progress'])]))
      .orderBy('bookings.starts_at')
      .orderBy('bookings.id')
      .limit(sectionLimit)
      .execute()
  );
}

export type BookingFact = Awaited<ReturnType<typeof upcomingBookings>>[number];

/** The care plans of a stay (the caller already sees the stay) with the location's time zone the schedule needs (the plan's own location). */
export async function carePlansOfStay(db: Executor, actor: AccessFilter, bookingId: string) {
  return scoped(db, actor)
    .selectFrom('boarding_care_plans')
    .innerJoin('locations', 'locations.id', 'boarding_care_plans.location_id')
    .selectAll('boarding_care_plans')
    .select('locations.timezone')
    .where('boarding_care_plans.booking_id', '=', bookingId)
    .orderBy('boarding_care_plans.id')
    .execute();
}

/** The latest doses of a care plan the caller has already been shown to see. */
export async function recentDoses(db: Executor, access: AccessFilter, carePlanId: string) {
  return scoped(db, access)
    .selectFrom('boarding_doses')
    .selectAll()
    .where('care_plan_id', '=', carePlanId)
    .orderBy('id', 'desc')
    .limit(recentDoseLimit)
    .execute();
}

/** Open invoices of a parent at the caller's locations, oldest first. */
export async function openInvoicesOfParent(db: Executor, actor: AccessFilter, parentId: string) {
  return scoped(db, actor)
    .selectFrom('invoices')
    .selectAll()
    .where('parent_id', '=', parentId)
    .where('status', '=', 'open')
    .orderBy('id')
    .limit(sectionLimit)
    .execute();
}
