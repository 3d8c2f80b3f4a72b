import { isoAt } from '../../clock.js';
import type { Executor } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import { type AccessFilter, type Actor, wholeTenant } from '../../http/actor.js';
import { AppError, foundOr404, missingReference, validationFailed, type FieldError } from '../../http/errors.js';
import type { BoardingCarePlansTable, BoardingDosesTable } from './boarding.table.js';
import { medicationsOf } from './care-plans.presenter.js';
import { carePlansOfBooking, findCarePlan, givenDoseCounts, insertCarePlan, insertDose, updateCarePlan } from './care-plans.repository.js';
import type { CarePlan, CreateCarePlanInput, CreateDoseInput, UpdateCarePlanInput } from './care-plans.schema.js';
import { findStay, type StayRecord } from './stays.repository.js';

export const medicationKey = (name: string): string => name.trim().toLowerCase();

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
  await insertCarePlan(db, row);
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
  await updateCarePlan(db, id, patch);
  return { ...plan, ...patch };
}

/** Appends to the dose log of a checked-in stay; the medication must be one of the plan's. */
export async function logDose(db: Executor, actor: Actor, carePlanId: string, input: CreateDoseInput, now: number): Promise<BoardingDosesTable> {
  const plan = await getCarePlan(db, actor, carePlanId);
  const key = medicationKey(input.medication);
  const medication = medicationsOf(plan).find((m) => medicationKey(m.name) === key);
  if (!medication) throw validationFailed([{ field: 'medication', message: `'${input.medication}' is not a medication of care plan ${plan.id}` }]);
  assertOpenStay(await stayOf(db, actor, plan), 'doses are logged only while the pet is checked in', ['checked_in']);
  const row: BoardingDosesTable = {
    id: newId('dos'),
    tenant_id: actor.tenantId,
    care_plan_id: plan.id,
    booking_id: plan.booking_id,
    medication: medication.name,
    medication_key: key,
    scheduled_for: isoAt(Date.parse(input.scheduledFor)),
    outcome: input.outcome,
    given_by: input.givenBy.trim(),
    notes: input.notes?.trim() ?? null,
    recorded_by_client_id: actor.clientId,
    created_at: isoAt(now),
  };
  await insertDose(db, row);
  return row;
}

/**
 * The care items check-out bills (our rule): each medication with an administrationAmount, once
 * per dose logged as given, on a line whose sourceId is the booking.
 */
export async function careItemLines(db: Executor, bookingId: string): Promise<Array<{ description: string; quantity: number; unitAmount: number; sourceId: string }>> {
  const counts = await givenDoseCounts(db, bookingId);
  if (counts.length === 0) return [];
  const lines: Array<{ description: string; quantity: number; unitAmount: number; sourceId: string }> = [];
  for (const plan of await carePlansOfBooking(db, bookingId)) {
    for (const m of medicationsOf(plan)) {
      const given = Number(counts.find((c) => c.care_plan_id === plan.id && c.medication_key === medicationKey(m.name))?.given ?? 0);
      if (given > 0 && m.administrationAmount > 0) {
        lines.push({ description: `Medication: ${m.name} ${m.dose} (${given} dose${given === 1 ? '' : 's'} given)`, quantity: given, unitAmount: m.administrationAmount, sourceId: bookingId });
      }
    }
  }
  return lines;
}
