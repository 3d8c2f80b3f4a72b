import { localDate } from '../../calendar-dates.js';
import { isoAt } from '../../clock.js';
import type { Executor, LocationsTable, PetsTable } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import { type AccessFilter, type Actor, wholeTenant } from '../../http/actor.js';
import { AppError, foundOr404, missingReference, validationFailed, type FieldError } from '../../http/errors.js';
import {
  assertTransition,
  emitBookingCancelled,
  emitBookingCreated,
  insertBooking,
  updateBooking,
  type BookingsTable,
  type StateMachine,
} from '../bookings/index.js';
import { emit } from '../events/index.js';
import { findLocation, requiredVaccinesOf } from '../locations/index.js';
import { createInvoice } from '../payments/index.js';
import { findPet, latestDueDates } from '../pets/index.js';
import { vaccineKey } from '../vaccinations/index.js';
import type { BoardingRoomsTable, BoardingStaysTable } from './boarding.table.js';
import { careItemLines } from './care-plans.service.js';
import { roomSpecies } from './rooms.presenter.js';
import { activeRooms, findRoom } from './rooms.repository.js';
import { daysBetween, nightsOf, startOfLocalDay } from './stay-dates.js';
import { maxNights } from './boarding-fields.js';
import { adjustNights, findStay, insertStay, overlappingStayOfPet, staysInRoom, takenByNight, updateStay, type StayRecord } from './stays.repository.js';
import type { CheckInInput, CreateStayInput, StayStatus } from './stays.schema.js';
import { checkVacancy } from './vacancy.js';

/** The boarding state machine (DESIGN §10), checked through the one booking transition check. */
export const stayMachine: StateMachine<StayStatus> = {
  reserved: ['checked_in', 'cancelled', 'no_show'],
  checked_in: ['checked_out'],
  checked_out: [],
  cancelled: [],
  no_show: [],
};

const what = 'Boarding booking';

export async function getStay(db: Executor, actor: AccessFilter, id: string): Promise<StayRecord> {
  return foundOr404(await findStay(db, actor, id), 'boarding booking', id);
}

async function requireLocation(db: Executor, actor: AccessFilter, id: string): Promise<LocationsTable> {
  const location = await findLocation(db, actor, id);
  if (!location) throw missingReference('locationId', 'location', id);
  return location;
}

async function requirePet(db: Executor, actor: AccessFilter, id: string): Promise<PetsTable> {
  const pet = await findPet(db, actor, id);
  if (!pet) throw missingReference('petId', 'pet', id);
  return pet;
}

function checkDates(checkInOn: string, checkOutOn: string, today: string, checkInField: string | null): void {
  const errors: FieldError[] = [];
  if (checkInField !== null && checkInOn < today) errors.push({ field: checkInField, message: `cannot be before today (${today} at the location)` });
  if (checkOutOn <= checkInOn) errors.push({ field: 'checkOutOn', message: `must be after the check-in day (${checkInOn})` });
  else if (daysBetween(checkInOn, checkOutOn) > maxNights) errors.push({ field: 'checkOutOn', message: `a stay is at most ${maxNights} nights` });
  if (errors.length > 0) throw validationFailed(errors);
}

/**
 * Books a stay inside the route's write transaction: the capacity check and the insert of the
 * booking and its night counters run under the same lock, so parallel bookings never oversell.
 */
async function book(
  db: Executor,
  actor: Actor,
  input: { petId: string; locationId: string; roomType: string; checkInOn: string; checkOutOn: string; notes?: string | null | undefined },
  now: number,
  checkInField: string | null,
): Promise<StayRecord> {
  const location = await requireLocation(db, actor, input.locationId);
  const pet = await requirePet(db, actor, input.petId);
  checkDates(input.checkInOn, input.checkOutOn, localDate(now, location.timezone), checkInField);
  const typeRooms = await activeRooms(db, actor, location.id, input.roomType);
  const nights = nightsOf(input.checkInOn, input.checkOutOn);
  const taken = await takenByNight(db, actor, location.id, input.roomType, input.checkInOn, input.checkOutOn);
  const vacancy = checkVacancy(typeRooms, typeRooms.length, pet.species, taken, nights);
  // What the location offers first, then the pet's own stays, then the places left.
  if (vacancy.ok || vacancy.reason === 'full') {
    // A pet sleeps in one place a night: a second stay over the same nights is a mistake, not a second booking.
    const overlapping = await overlappingStayOfPet(db, wholeTenant(actor), pet.id, input.checkInOn, input.checkOutOn);
    if (overlapping !== null) {
      throw new AppError('conflict', `Pet ${pet.id} already has boarding booking ${overlapping} on some of these nights; cancel or check it out first.`, {
        extensions: { bookingId: overlapping },
      });
    }
  }
  if (!vacancy.ok) {
    const detail =
      vacancy.reason === 'room_type_not_offered'
        ? `Location ${location.id} has no active room of type '${input.roomType}'.`
        : vacancy.reason === 'species_not_accepted'
          ? `No active '${input.roomType}' room at location ${location.id} takes a ${pet.species}.`
          : `Every '${input.roomType}' place for a ${pet.species} is taken on ${vacancy.fullNights.join(', ')}.`;
    throw new AppError('no_vacancy', detail, { extensions: { reason: vacancy.reason, nights: vacancy.fullNights } });
  }
  // The room type's rate for this pet: the lowest nightlyRate of its active rooms that take the species.
  const rooms = typeRooms.filter((r) => roomSpecies(r).includes(pet.species));
  const cheapest = rooms.reduce((low, r) => (r.nightly_rate < low.nightly_rate ? r : low));

  const at = isoAt(now);
  const booking: BookingsTable = {
    id: newId('bkg'),
    tenant_id: actor.tenantId,
    kind: 'boarding',
    status: 'reserved',
    pet_id: pet.id,
    parent_id: pet.owner_id,
    location_id: location.id,
    provider_id: null,
    starts_at: startOfLocalDay(input.checkInOn, location.timezone),
    ends_at: startOfLocalDay(input.checkOutOn, location.timezone),
    amount: nights.length * cheapest.nightly_rate,
    currency: cheapest.currency,
    invoice_id: null,
    created_at: at,
    updated_at: at,
  };
  const stay: BoardingStaysTable = {
    booking_id: booking.id,
    tenant_id: actor.tenantId,
    location_id: location.id,
    room_type: input.roomType,
    species: pet.species,
    room_id: null,
    check_in_on: input.checkInOn,
    check_out_on: input.checkOutOn,
    nights: nights.length,
    notes: input.notes?.trim() ?? null,
    checked_in_at: null,
    checked_out_at: null,
    billed_nights: null,
    vaccination_override_reason: null,
    vaccination_override_by: null,
    vaccination_override_role: null,
    vaccination_override_missing: null,
    vaccination_override_at: null,
  };
  await insertBooking(db, actor, booking);
  await insertStay(db, actor, stay);
  const record = { ...booking, ...stay };
  await adjustNights(db, actor, record, stay.check_in_on, stay.check_out_on, { reserved: 1, checkedIn: 0 });
  await emitBookingCreated(db, booking, 'boarding', now);
  return record;
}

export async function createStay(db: Executor, actor: Actor, input: CreateStayInput, now: number): Promise<StayRecord> {
  return book(db, actor, input, now, 'checkInOn');
}

/** reserved → cancelled | no_show: the nights are freed and booking.cancelled is emitted (its status says which). */
export async function endReservation(
  db: Executor,
  actor: Actor,
  id: string,
  to: 'cancelled' | 'no_show',
  reason: string | null,
  now: number,
): Promise<StayRecord> {
  const stay = await getStay(db, actor, id);
  assertTransition(stayMachine, what, id, stay.status as StayStatus, to, to === 'no_show' ? 'be marked no_show' : 'be cancelled');
  if (to === 'no_show') {
    const location = await requireLocation(db, wholeTenant(actor), stay.location_id);
    const today = localDate(now, location.timezone);
    if (today < stay.check_in_on)
      throw new AppError(
        'conflict',
        `Booking ${id} starts on ${stay.check_in_on}; it can be marked no_show from that day on (today is ${today}). Cancel it instead.`,
      );
  }
  const at = isoAt(now);
  await updateBooking(db, actor, id, { status: to }, at);
  await adjustNights(db, wholeTenant(actor), stay, stay.check_in_on, stay.check_out_on, { reserved: -1, checkedIn: 0 });
  const updated = { ...stay, status: to, updated_at: at };
  await emitBookingCancelled(db, updated, 'boarding', to, reason, now);
  return updated;
}

/** Required vaccines (as the location names them) the pet has no record of valid through `through`. */
export async function missingVaccines(db: Executor, location: LocationsTable, pet: PetsTable, through: string): Promise<string[]> {
  const required = requiredVaccinesOf(location)[pet.species as keyof ReturnType<typeof requiredVaccinesOf>] ?? [];
  if (required.length === 0) return [];
  // Per vaccine the latest dose counts, as for the pet's vaccinationStatus.
  const due = await latestDueDates(db, { tenantId: location.tenant_id, locationIds: null }, pet.id);
  return required.filter((name) => {
    const dueOn = due.get(vaccineKey(name));
    return dueOn === undefined || dueOn < through;
  });
}

/** A room of the stay's type, location and species with a free place on every night of the stay (`access`: the stay's whole tenant). */
async function roomFits(db: Executor, access: AccessFilter, room: BoardingRoomsTable, stay: StayRecord): Promise<string | null> {
  if (room.location_id !== stay.location_id) return `room ${room.id} is at another location`;
  if (room.active !== 1) return `room ${room.id} is inactive`;
  if (room.room_type !== stay.room_type) return `room ${room.id} is of type '${room.room_type}', the stay is booked as '${stay.room_type}'`;
  if (!roomSpecies(room).includes(stay.species)) return `room ${room.id} does not take a ${stay.species}`;
  const inRoom = await staysInRoom(db, access, room.id, stay.check_in_on, stay.check_out_on, stay.id);
  for (const night of nightsOf(stay.check_in_on, stay.check_out_on)) {
    const count = inRoom.filter((s) => s.check_in_on <= night && night < s.check_out_on).length;
    if (count >= room.capacity) return `room ${room.id} is full on ${night}`;
  }
  return null;
}

/**
 * reserved → checked_in (a walk-in books first, from today). Checks the day, the location's
 * required vaccines (an override needs role doctor or admin and is kept on the stay), then picks
 * or validates a room with a free place on every night of the stay.
 */
export async function checkIn(db: Executor, actor: Actor, input: CheckInInput, now: number): Promise<StayRecord> {
  if (input.vaccinationOverride !== undefined && actor.role !== 'doctor' && actor.role !== 'admin') {
    throw new AppError('forbidden_role', `A vaccination override needs role doctor or admin; this client is ${actor.role}.`);
  }
  let stay: StayRecord;
  const walkInFields = (['petId', 'locationId', 'roomType', 'checkOutOn', 'notes'] as const).filter((f) => input[f] !== undefined);
  if (input.bookingId !== undefined) {
    if (walkInFields.length > 0) throw validationFailed(walkInFields.map((field) => ({ field, message: 'is only for a walk-in (without bookingId)' })));
    stay = await getStay(db, actor, input.bookingId);
  } else {
    const missing = (['petId', 'locationId', 'roomType', 'checkOutOn'] as const).filter((f) => input[f] === undefined);
    if (missing.length > 0) throw validationFailed(missing.map((field) => ({ field, message: 'is required for a walk-in (or give bookingId)' })));
    const location = await requireLocation(db, actor, input.locationId!);
    const today = localDate(now, location.timezone);
    stay = await book(
      db,
      actor,
      { petId: input.petId!, locationId: location.id, roomType: input.roomType!, checkInOn: today, checkOutOn: input.checkOutOn!, notes: input.notes },
      now,
      null,
    );
  }
  assertTransition(stayMachine, what, stay.id, stay.status as StayStatus, 'checked_in', 'be checked in');
  const location = await requireLocation(db, wholeTenant(actor), stay.location_id);
  const today = localDate(now, location.timezone);
  if (today < stay.check_in_on)
    throw new AppError('conflict', `Booking ${stay.id} starts on ${stay.check_in_on}; check-in opens that day (today is ${today} at the location).`);
  if (today >= stay.check_out_on) throw new AppError('conflict', `Booking ${stay.id} ended on ${stay.check_out_on}; mark it no_show and book again.`);

  const pet = foundOr404(await findPet(db, wholeTenant(actor), stay.pet_id), 'pet', stay.pet_id);
  const missing = await missingVaccines(db, location, pet, stay.check_out_on);
  if (missing.length > 0 && input.vaccinationOverride === undefined) {
    throw new AppError('vaccinations_required', `Pet ${pet.id} lacks vaccinations valid through ${stay.check_out_on}: ${missing.join(', ')}.`, {
      extensions: { missing },
    });
  }

  let room: BoardingRoomsTable | null = null;
  if (input.roomId !== undefined) {
    room = await findRoom(db, actor, input.roomId);
    if (!room) throw missingReference('roomId', 'room', input.roomId);
    const refusal = await roomFits(db, wholeTenant(actor), room, stay);
    if (refusal) throw new AppError('room_unavailable', `Cannot put booking ${stay.id} in it: ${refusal}.`);
  } else {
    for (const candidate of await activeRooms(db, wholeTenant(actor), stay.location_id, stay.room_type)) {
      if ((await roomFits(db, wholeTenant(actor), candidate, stay)) === null) {
        room = candidate;
        break;
      }
    }
    if (!room)
      throw new AppError(
        'room_unavailable',
        `No active '${stay.room_type}' room has a free place for a ${stay.species} on every night from ${stay.check_in_on} to ${stay.check_out_on}.`,
      );
  }

  const at = isoAt(now);
  const patch: Partial<BoardingStaysTable> = { room_id: room.id, checked_in_at: at };
  if (input.vaccinationOverride !== undefined) {
    patch.vaccination_override_reason = input.vaccinationOverride.reason.trim();
    patch.vaccination_override_by = actor.clientId;
    patch.vaccination_override_role = actor.role;
    patch.vaccination_override_missing = JSON.stringify(missing);
    patch.vaccination_override_at = at;
  }
  await updateBooking(db, actor, stay.id, { status: 'checked_in' }, at);
  await updateStay(db, wholeTenant(actor), stay.id, patch);
  await adjustNights(db, wholeTenant(actor), stay, stay.check_in_on, stay.check_out_on, { reserved: -1, checkedIn: 1 });
  await emit(
    db,
    'boarding.checked_in',
    { bookingId: stay.id, petId: stay.pet_id, roomId: room.id, locationId: stay.location_id, checkedInAt: at },
    actor.tenantId,
    now,
  );
  return { ...stay, ...patch, status: 'checked_in', updated_at: at };
}

/**
 * checked_in → checked_out: bills the nights actually stayed (from the local check-in date to
 * the local check-out date, at least one) at the assigned room's rate, plus the care items, as
 * one finalized invoice; frees the nights the pet no longer uses.
 */
export async function checkOut(db: Executor, actor: Actor, bookingId: string, now: number): Promise<StayRecord> {
  const stay = await getStay(db, actor, bookingId);
  assertTransition(stayMachine, what, stay.id, stay.status as StayStatus, 'checked_out', 'be checked out');
  const all = wholeTenant(actor);
  const location = await requireLocation(db, all, stay.location_id);
  const room = foundOr404(await findRoom(db, all, stay.room_id ?? ''), 'room', stay.room_id ?? '');
  const today = localDate(now, location.timezone);
  const arrived = localDate(Date.parse(stay.checked_in_at ?? isoAt(now)), location.timezone);
  const nights = Math.max(1, daysBetween(arrived, today));

  // The stay was booked by this client: bill it tenant-wide (the parent may be kept at another location).
  const pet = await findPet(db, all, stay.pet_id);
  const invoice = await createInvoice(
    db,
    all,
    {
      parentId: stay.parent_id,
      locationId: stay.location_id,
      petId: pet && pet.owner_id === stay.parent_id ? pet.id : null,
      currency: room.currency,
      lines: [
        {
          description: `Boarding: ${nights} night${nights === 1 ? '' : 's'} in ${room.name} (${room.room_type})`,
          quantity: nights,
          unitAmount: room.nightly_rate,
          sourceId: stay.id,
        },
        ...(await careItemLines(db, all, stay.id)),
      ],
      finalize: true,
    },
    now,
  );

  const at = isoAt(now);
  await updateBooking(db, actor, stay.id, { status: 'checked_out', invoice_id: invoice.id }, at);
  const patch: Partial<BoardingStaysTable> = { checked_out_at: at, billed_nights: nights };
  await updateStay(db, all, stay.id, patch);
  // Nights already passed stay counted as in house (history); the ones left are free again.
  const freeFrom = today > stay.check_in_on ? today : stay.check_in_on;
  await adjustNights(db, all, stay, freeFrom, stay.check_out_on, { reserved: 0, checkedIn: -1 });
  await emit(
    db,
    'boarding.checked_out',
    {
      bookingId: stay.id,
      petId: stay.pet_id,
      roomId: room.id,
      locationId: stay.location_id,
      checkedOutAt: at,
      invoiceId: invoice.id,
      nights,
      amount: invoice.total,
      currency: invoice.currency,
    },
    actor.tenantId,
    now,
  );
  return { ...stay, ...patch, status: 'checked_out', invoice_id: invoice.id, updated_at: at };
}
