import { localDate } from '../../calendar-dates.js';
import { isoAt } from '../../clock.js';
import type { Executor } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import { type AccessFilter, type Actor, wholeTenant } from '../../http/actor.js';
import { AppError, foundOr404, missingReference, validationFailed, type FieldError } from '../../http/errors.js';
import type { BoardingCarePlansTable, BoardingDosesTable } from './boarding.table.js';
import { medicationsOf } from './care-plans.presenter.js';
import {
  carePlansOfBooking,
  findCarePlan,
  findDose,
  givenDoseCounts,
  insertCarePlan,
  insertDose,
  latestDoseEntry,
  updateCarePlan,
} from './care-plans.repository.js';
import type { CarePlan, CreateCarePlanInput, CreateDoseInput, UpdateCarePlanInput } from './care-plans.schema.js';
import { findLocation } from '../locations/index.js';
import { isScheduledDose, medicationKey } from './dose-schedule.js';
import { findStay, type StayRecord } from './stays.repository.js';

type MedicationInput = NonNullable<UpdateCarePlanInput['medications']>[number];
type FeedingInput = NonNullable<UpdateCarePlanInput['feeding']>[number];

function storedMedications(medications: readonly MedicationInput[]): string {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  const out: CarePlan['medications'] = medications.map((m, i) => {
    const key = medicationKey(m.name);
    if (seen.has(key)) errors.push({ field: `medications[${i}].name`, message: `'${m.name}' is already in the plan` });
    seen.add(key);
    return {
      name: m.name.trim(),
      dose: m.dose.trim(),
      times: [...m.times].sort(),
      withFood: m.withFood ?? false,
      notes: m.notes?.trim() ?? null,
      administrationAmount: m.administrationAmount ?? 0,
    };
  });
  if (errors.length > 0) throw validationFailed(errors);
  return JSON.stringify(out);
}

const storedFeeding = (feeding: readonly FeedingInput[]): string =>
  JSON.stringify(feeding.map((f) => ({ time: f.time, food: f.food.trim(), portion: f.portion.trim(), notes: f.notes?.trim() ?? null })));

/** Plans and doses belong to stays that are booked or in house; a closed stay's plan is history. */
function assertOpenStay(stay: StayRecord, action: string, allowed: readonly string[]): void {
  if (allowed.includes(stay.status)) return;
  throw new AppError('invalid_state_transition', `Boarding booking ${stay.id} is ${stay.status}: ${action}.`, { extensions: { currentStatus: stay.status } });
}

export async function createCarePlan(db: Executor, actor: Actor, input: CreateCarePlanInput, now: number): Promise<BoardingCarePlansTable> {
  const stay = await findStay(db, actor, input.bookingId);
  if (!stay) throw missingReference('bookingId', 'boarding booking', input.bookingId);
  assertOpenStay(stay, 'care plans are made for reserved or checked-in stays', ['reserved', 'checked_in']);
  const at = isoAt(now);
  const row: BoardingCarePlansTable = {
    id: newId('cpl'),
    tenant_id: actor.tenantId,
    location_id: stay.location_id,
    booking_id: stay.id,
    pet_id: stay.pet_id,
    feeding: storedFeeding(input.feeding),
    medications: storedMedications(input.medications),
    notes: input.notes?.trim() ?? null,
    created_at: at,
    updated_at: at,
  };
  await insertCarePlan(db, actor, row);
  return row;
}

export async function getCarePlan(db: Executor, actor: AccessFilter, id: string): Promise<BoardingCarePlansTable> {
  return foundOr404(await findCarePlan(db, actor, id), 'care plan', id);
}

async function stayOf(db: Executor, actor: AccessFilter, plan: BoardingCarePlansTable): Promise<StayRecord> {
  return foundOr404(await findStay(db, wholeTenant(actor), plan.booking_id), 'boarding booking', plan.booking_id);
}

/** Replaces feeding and/or medications whole; doses already logged stay as they are. */
export async function patchCarePlan(db: Executor, actor: Actor, id: string, input: UpdateCarePlanInput, now: number): Promise<BoardingCarePlansTable> {
  const plan = await getCarePlan(db, actor, id);
  assertOpenStay(await stayOf(db, actor, plan), 'its care plan can no longer change', ['reserved', 'checked_in']);
  const patch: Partial<BoardingCarePlansTable> = { updated_at: isoAt(now) };
  if (input.feeding !== undefined) patch.feeding = storedFeeding(input.feeding);
  if (input.medications !== undefined) patch.medications = storedMedications(input.medications);
  if (input.notes !== undefined) patch.notes = input.notes?.trim() ?? null;
  await updateCarePlan(db, actor, id, patch);
  return { ...plan, ...patch };
}

/**
 * Appends to the dose log of a checked-in stay: one entry per medication and scheduled time. The
 * medication must be one of the plan's (400), `scheduledFor` one of its times on a day of the stay
 * (422 dose_not_scheduled); a second entry for a dose is 409 dose_already_logged unless it is a
 * correction (`supersedes` = the latest entry of that dose, same medication and scheduledFor). The
 * table's UNIQUE indexes hold the same rule, so parallel requests cannot log a dose twice.
 */
export async function logDose(db: Executor, actor: Actor, carePlanId: string, input: CreateDoseInput, now: number): Promise<BoardingDosesTable> {
  const plan = await getCarePlan(db, actor, carePlanId);
  const key = medicationKey(input.medication);
  const medication = medicationsOf(plan).find((m) => medicationKey(m.name) === key);
  if (!medication) throw validationFailed([{ field: 'medication', message: `'${input.medication}' is not a medication of care plan ${plan.id}` }]);
  const stay = await stayOf(db, actor, plan);
  assertOpenStay(stay, 'doses are logged only while the pet is checked in', ['checked_in']);
  const location = foundOr404(await findLocation(db, wholeTenant(actor), stay.location_id), 'location', stay.location_id);

  const at = Date.parse(input.scheduledFor);
  if (!Number.isFinite(at)) throw validationFailed([{ field: 'scheduledFor', message: 'is not a date-time' }]);
  const scheduledFor = isoAt(at);
  const supersedes = input.supersedes ?? null;
  if (supersedes !== null) {
    // A correction answers to the entry it corrects, which was a dose of the plan when logged (its times may have changed since).
    const corrected = await findDose(db, wholeTenant(actor), plan.id, supersedes);
    if (!corrected) throw missingReference('supersedes', 'dose log entry of this care plan', supersedes);
    if (corrected.medication_key !== key || corrected.scheduled_for !== scheduledFor) {
      throw validationFailed([
        {
          field: 'supersedes',
          message: `corrects the ${corrected.medication} dose of ${corrected.scheduled_for}: a correction names the same medication and scheduledFor`,
        },
      ]);
    }
  } else if (
    !isScheduledDose(medication, location.timezone, { checkInOn: stay.check_in_on, checkOutOn: stay.check_out_on }, localDate(now, location.timezone), at)
  ) {
    throw new AppError(
      'dose_not_scheduled',
      `${medication.name} is scheduled at ${medication.times.join(', ')} (local time at the location, ${location.timezone}) on the days of the stay from ${stay.check_in_on} to ${stay.check_out_on}; ${input.scheduledFor} is not one of those doses.`,
      { extensions: { times: medication.times, timezone: location.timezone, checkInOn: stay.check_in_on, checkOutOn: stay.check_out_on } },
    );
  }
  const latest = await latestDoseEntry(db, wholeTenant(actor), plan.id, key, scheduledFor);
  if (latest !== null && latest !== supersedes) {
    const detail =
      supersedes === null
        ? `The ${medication.name} dose of ${scheduledFor} is already logged (${latest}); to correct it, log a new entry with supersedes: '${latest}'.`
        : `Entry ${supersedes} has already been corrected; the latest entry of this dose is ${latest}: supersede that one.`;
    throw new AppError('dose_already_logged', detail, { extensions: { doseId: latest } });
  }
  const row: BoardingDosesTable = {
    id: newId('dos'),
    tenant_id: actor.tenantId,
    care_plan_id: plan.id,
    booking_id: plan.booking_id,
    medication: medication.name,
    medication_key: key,
    scheduled_for: scheduledFor,
    outcome: input.outcome,
    given_by: input.givenBy.trim(),
    notes: input.notes?.trim() ?? null,
    recorded_by_client_id: actor.clientId,
    created_at: isoAt(now),
    supersedes,
  };
  try {
    await insertDose(db, actor, row);
  } catch (err) {
    // The checks above run in the route's write transaction; the UNIQUE indexes are the last word.
    if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') {
      throw new AppError('dose_already_logged', `The ${medication.name} dose of ${scheduledFor} is already logged.`);
    }
    throw err;
  }
  return row;
}

/**
 * The care items check-out bills (our rule): each medication with an administrationAmount, once
 * per dose whose latest entry says given, on a line whose sourceId is the booking.
 */
export async function careItemLines(
  db: Executor,
  access: AccessFilter,
  bookingId: string,
): Promise<Array<{ description: string; quantity: number; unitAmount: number; sourceId: string }>> {
  const counts = await givenDoseCounts(db, access, bookingId);
  if (counts.length === 0) return [];
  const lines: Array<{ description: string; quantity: number; unitAmount: number; sourceId: string }> = [];
  for (const plan of await carePlansOfBooking(db, access, bookingId)) {
    for (const m of medicationsOf(plan)) {
      const given = Number(counts.find((c) => c.care_plan_id === plan.id && c.medication_key === medicationKey(m.name))?.given ?? 0);
      if (given > 0 && m.administrationAmount > 0) {
        lines.push({
          description: `Medication: ${m.name} ${m.dose} (${given} dose${given === 1 ? '' : 's'} given)`,
          quantity: given,
          unitAmount: m.administrationAmount,
          sourceId: bookingId,
        });
      }
    }
  }
  return lines;
}
