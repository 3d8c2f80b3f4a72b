import type { Config, Environment } from '../../config.js';
import type { SecretBox } from '../../db/secret-box.js';
import type { Executor, LocationsTable } from '../../db/database.js';
import { newId, randomSecret } from '../../db/ids.js';
import { wholeTenant, type Actor } from '../../http/actor.js';
import { AppError, foundOr404, missingReference, notFound, validationFailed } from '../../http/errors.js';
import { emit, type EventData } from '../events/index.js';
import { findLocation } from '../locations/index.js';
import { findPet, recordPetVisit } from '../pets/index.js';
import { findProvider, providerServices, type ProviderRecord } from '../providers/index.js';
import {
  busyIntervals,
  covers,
  dayMs,
  findSchedule,
  minuteMs,
  overlapsAny,
  parseInstant,
  schedulesOf,
  timeOffIntervals,
  toIso,
  weeklyOf,
  workingIntervals,
  zoneClock,
  type ScheduleRecord,
} from '../scheduling/index.js';
import { bookableType } from './appointment-types.service.js';
import { findAppointment, insertAppointment, updateAppointment, type AppointmentRecord } from './appointments.repository.js';
import { appointmentStatuses, type AppointmentStatus, type CreateAppointmentInput, type UpdateAppointmentInput } from './appointments.schema.js';
import type { AppointmentsTable } from './appointments.table.js';

/** DESIGN §5: the moves the front desk and the clinic make; anything else answers 409. */
const transitions: Record<AppointmentStatus, readonly AppointmentStatus[]> = {
  confirmed: ['checked_in', 'cancelled', 'no_show'],
  checked_in: ['in_progress', 'cancelled'],
  in_progress: ['completed'],
  completed: [],
  cancelled: [],
  no_show: [],
};

/** Bookings further ahead than this are refused (keeps windows and data bounded). */
const maxLeadDays = 730;

/** Booking rules from config, and the box calendar tokens are sealed in (a copied database cannot open calendar links). */
type Settings = Pick<Config, 'bookingMinNoticeMinutes'> & { secrets: Pick<SecretBox, 'seal'> };

/** A status in any letter case → the lower-case state, or 400 on `field`. */
export function parseStatus(value: string, field = 'status'): AppointmentStatus {
  const status = value.toLowerCase() as AppointmentStatus;
  if (!appointmentStatuses.includes(status)) throw validationFailed([{ field, message: `must be one of: ${appointmentStatuses.join(', ')}` }]);
  return status;
}

const slotUnavailable = (detail: string) => new AppError('slot_unavailable', detail);

/** The capability in the calendar link; its prefix names the environment so the public route knows which database to open. */
export const calendarTokenPrefix: Record<Environment, string> = { live: 'ct_live_', sandbox: 'ct_test_' };
const newCalendarToken = (env: Environment): string => calendarTokenPrefix[env] + randomSecret(24);

interface Booking {
  provider: ProviderRecord;
  location: LocationsTable;
  type: string;
  start: number;
  end: number;
  blockedFrom: number;
  blockedUntil: number;
}

/** Provider-side rules shared by booking and reassigning: active, works at the location, offers the type. */
function checkProvider(provider: ProviderRecord, locationId: string, type: string): void {
  if (provider.status !== 'active') throw slotUnavailable(`Provider ${provider.id} is ${provider.status} and takes no new bookings.`);
  if (!provider.locationIds.includes(locationId)) {
    throw validationFailed([{ field: 'providerId', message: `provider ${provider.id} does not work at location ${locationId}` }]);
  }
  const services = providerServices(provider);
  if (services.length > 0 && !services.includes(type)) {
    throw validationFailed([{ field: 'type', message: `provider ${provider.id} does not offer '${type}' (offers: ${services.join(', ')})` }]);
  }
}

/**
 * The slot rules (inside working hours when the provider has a schedule there, not in time off,
 * no overlap with the provider's other appointments and their buffers). Runs inside the write
 * transaction, which SQLite holds with BEGIN IMMEDIATE: two bookings of one slot serialise, and
 * the second sees the first.
 */
async function checkSlot(db: Executor, actor: Actor, booking: Booking, exceptId?: string): Promise<void> {
  const { provider, location, start, end } = booking;
  const schedule = await findSchedule(db, actor, provider.id, location.id);
  if (schedule) {
    const clock = zoneClock(location.timezone);
    if (!covers(workingIntervals(weeklyOf(schedule), clock, start - dayMs, end + dayMs), start, end)) {
      throw slotUnavailable(`${toIso(start)}–${toIso(end)} is outside ${provider.name}'s working hours at ${location.name} (${location.timezone}).`);
    }
    if (overlapsAny(timeOffIntervals(schedule, start, end), start, end)) {
      throw slotUnavailable(`${provider.name} is off at ${toIso(start)}–${toIso(end)}.`);
    }
  }
  const busy = (await busyIntervals(db, [provider.id], booking.blockedFrom, booking.blockedUntil, exceptId)).get(provider.id) ?? [];
  if (busy.length > 0)
    throw slotUnavailable(
      `${provider.name} already has an appointment at ${toIso(start)}–${toIso(end)} (buffers included); see GET /v1/appointments/availability.`,
    );
}

function checkStart(start: number, now: number, settings: Settings, field = 'startsAt'): void {
  if (start < now) throw validationFailed([{ field, message: 'is in the past' }]);
  if (start > now + maxLeadDays * dayMs) throw validationFailed([{ field, message: `is more than ${maxLeadDays} days ahead` }]);
  if (start < now + settings.bookingMinNoticeMinutes * minuteMs) {
    throw slotUnavailable(
      `Appointments need at least ${settings.bookingMinNoticeMinutes} minutes' notice; the first bookable start is ${toIso(now + settings.bookingMinNoticeMinutes * minuteMs)}.`,
    );
  }
}

/** Where a booking without locationId happens: the location whose schedule covers the time, else the pet's. */
async function defaultLocation(db: Executor, actor: Actor, provider: ProviderRecord, petLocationId: string, start: number, end: number): Promise<string> {
  const schedules: ScheduleRecord[] = await schedulesOf(db, actor, provider.id);
  for (const schedule of schedules) {
    const hours = workingIntervals(weeklyOf(schedule), zoneClock(schedule.timezone), start - dayMs, end + dayMs);
    if (covers(hours, start, end)) return schedule.location_id;
  }
  if (!provider.locationIds.includes(petLocationId)) {
    throw validationFailed([
      {
        field: 'locationId',
        message: `provider ${provider.id} has no working hours at that time and does not work at the pet's location; name the locationId`,
      },
    ]);
  }
  return petLocationId;
}

export async function createAppointment(
  db: Executor,
  actor: Actor,
  input: CreateAppointmentInput,
  now: number,
  settings: Settings,
): Promise<AppointmentRecord> {
  const type = await bookableType(db, actor, input.type);
  const start = parseInstant(input.startsAt);
  if (start === null) throw validationFailed([{ field: 'startsAt', message: 'is not a date-time' }]);
  const pet = await findPet(db, actor, input.petId);
  if (!pet) throw missingReference('petId', 'pet', input.petId);
  const provider = await findProvider(db, actor, input.providerId);
  if (!provider) throw missingReference('providerId', 'provider', input.providerId);
  let location: LocationsTable | null = null;
  if (input.locationId !== undefined) {
    location = await findLocation(db, actor, input.locationId);
    if (!location) throw missingReference('locationId', 'location', input.locationId);
  }
  const end = start + type.duration_minutes * minuteMs;
  location ??= await findLocation(db, actor, await defaultLocation(db, actor, provider, pet.location_id, start, end));
  if (!location) throw missingReference('locationId', 'location', pet.location_id);
  checkProvider(provider, location.id, type.code);
  checkStart(start, now, settings);
  const booking: Booking = {
    provider,
    location,
    type: type.code,
    start,
    end,
    blockedFrom: start - type.buffer_before_minutes * minuteMs,
    blockedUntil: end + type.buffer_after_minutes * minuteMs,
  };
  await checkSlot(db, actor, booking);

  const at = toIso(now);
  const row: AppointmentsTable = {
    id: newId('apt'),
    tenant_id: actor.tenantId,
    location_id: location.id,
    pet_id: pet.id,
    provider_id: provider.id,
    type: type.code,
    status: 'confirmed',
    starts_at: toIso(start),
    ends_at: toIso(end),
    notes: input.notes ?? null,
    created_at: at,
    updated_at: at,
    blocked_from: toIso(booking.blockedFrom),
    blocked_until: toIso(booking.blockedUntil),
    calendar_token: settings.secrets.seal(newCalendarToken(actor.env)),
    sequence: 0,
  };
  await insertAppointment(db, actor, row);
  await emit(db, 'appointment.created', eventData(row), actor.tenantId, now);
  return { ...row, provider_name: provider.name };
}

const eventData = (row: AppointmentsTable): EventData<'appointment.created'> => ({
  appointmentId: row.id,
  petId: row.pet_id,
  providerId: row.provider_id,
  locationId: row.location_id,
  type: row.type,
  status: row.status,
  startsAt: row.starts_at,
  endsAt: row.ends_at,
});

export async function getAppointment(db: Executor, actor: Actor, id: string): Promise<AppointmentRecord> {
  return foundOr404(await findAppointment(db, actor, id), 'appointment', id);
}

/**
 * Reschedule (startsAt), reassign (providerId), notes, or a state move. A reschedule or
 * reassignment runs every booking rule again against the other appointments; the visit keeps the
 * duration and buffers it was booked with. Completing records the pet's lastVisit.
 */
export async function patchAppointment(
  db: Executor,
  actor: Actor,
  id: string,
  input: UpdateAppointmentInput,
  now: number,
  settings: Settings,
): Promise<AppointmentRecord> {
  const existing = await getAppointment(db, actor, id);
  const moving = input.startsAt !== undefined || input.providerId !== undefined;
  if (input.status !== undefined && moving) {
    throw validationFailed([{ field: 'status', message: 'change the status in its own request, not together with startsAt or providerId' }]);
  }
  const patch: Partial<AppointmentsTable> = {};
  if (input.notes !== undefined && input.notes !== existing.notes) patch.notes = input.notes;
  let providerName = existing.provider_name;
  let completed = false;

  if (input.status !== undefined) {
    const next = parseStatus(input.status);
    const current = existing.status as AppointmentStatus;
    if (next !== current) {
      if (!transitions[current].includes(next)) {
        const allowed = transitions[current].length ? transitions[current].join(', ') : 'none (final state)';
        throw new AppError('invalid_state_transition', `An appointment that is ${current} cannot become ${next}; allowed: ${allowed}.`);
      }
      patch.status = next;
      completed = next === 'completed';
    }
  }

  if (moving) {
    const start = input.startsAt === undefined ? Date.parse(existing.starts_at) : parseInstant(input.startsAt);
    if (start === null) throw validationFailed([{ field: 'startsAt', message: 'is not a date-time' }]);
    const rescheduled = start !== Date.parse(existing.starts_at);
    const reassigned = input.providerId !== undefined && input.providerId !== existing.provider_id;
    const movable: readonly string[] = rescheduled ? ['confirmed'] : ['confirmed', 'checked_in'];
    if ((rescheduled || reassigned) && !movable.includes(existing.status)) {
      throw new AppError('invalid_state_transition', `An appointment that is ${existing.status} cannot be ${rescheduled ? 'rescheduled' : 'reassigned'}.`);
    }
    if (rescheduled || reassigned) {
      const provider = await findProvider(db, actor, input.providerId ?? existing.provider_id);
      if (!provider) throw missingReference('providerId', 'provider', input.providerId ?? existing.provider_id);
      const location = await findLocation(db, actor, existing.location_id);
      if (!location) throw notFound('appointment', id);
      checkProvider(provider, location.id, existing.type);
      // Notice applies to a new time; a same-day reassignment (a vet off sick) stays possible.
      if (rescheduled) checkStart(start, now, settings);
      const duration = Date.parse(existing.ends_at) - Date.parse(existing.starts_at);
      const before = Date.parse(existing.starts_at) - Date.parse(existing.blocked_from);
      const after = Date.parse(existing.blocked_until) - Date.parse(existing.ends_at);
      const end = start + duration;
      await checkSlot(db, actor, { provider, location, type: existing.type, start, end, blockedFrom: start - before, blockedUntil: end + after }, existing.id);
      Object.assign(patch, {
        provider_id: provider.id,
        starts_at: toIso(start),
        ends_at: toIso(end),
        blocked_from: toIso(start - before),
        blocked_until: toIso(end + after),
      });
      providerName = provider.name;
    }
  }

  if (Object.keys(patch).length === 0) return existing;
  patch.updated_at = toIso(now);
  patch.sequence = existing.sequence + 1;
  await updateAppointment(db, wholeTenant(actor), id, patch);
  const updated: AppointmentRecord = { ...existing, ...patch, provider_name: providerName };
  if (completed) {
    const location = await findLocation(db, actor, updated.location_id);
    const visitDate = zoneClock(location?.timezone ?? 'UTC').localDate(Date.parse(updated.starts_at));
    await recordPetVisit(db, { tenantId: actor.tenantId, locationIds: null }, updated.pet_id, visitDate, patch.updated_at);
    await emit(db, 'appointment.completed', { ...eventData(updated), completedAt: patch.updated_at, visitDate }, actor.tenantId, now);
  }
  return updated;
}
