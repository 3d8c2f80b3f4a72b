import { dayMs, utcDate } from '../../calendar-dates.js';
import { isoAt } from '../../clock.js';
import type { Executor, PetsTable } from '../../db/database.js';
import { type AccessFilter, wholeTenant } from '../../http/actor.js';
import { foundOr404 } from '../../http/errors.js';
import { missedDoses, missingVaccines, presentCarePlan, presentDose } from '../boarding/index.js';
import { findLocation } from '../locations/index.js';
import { amountDueOf } from '../payments/index.js';
import { dueSoonDays, findPet, latestDosesOfPet, statusFrom, type LatestDose } from '../pets/index.js';
import { vaccineKey } from '../vaccinations/index.js';
import { carePlansOfStay, openInvoicesOfParent, recentDoses, upcomingAppointments, upcomingBookings, type BookingFact } from './care-coordinator.repository.js';
import { presentCareSummary } from './care-coordinator.presenter.js';
import { actionKinds, sectionLimit, type CareAction, type CareSummary } from './care-coordinator.schema.js';

const daysBetween = (from: string, to: string): number => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / dayMs);

/** Earliest due first; ties by the order kinds are listed in, then by the main source id: the same facts give the same list. */
function byDue(a: CareAction, b: CareAction): number {
  if (a.dueOn !== b.dueOn) return a.dueOn < b.dueOn ? -1 : 1;
  const kinds = actionKinds.indexOf(a.kind) - actionKinds.indexOf(b.kind);
  if (kinds !== 0) return kinds;
  const [x = '', y = ''] = [a.sourceIds[0], b.sourceIds[0]];
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * The action rules (DESIGN §13), each explicit and deterministic (no model):
 * - record_vaccinations: the pet has no vaccination record → due today; source the pet.
 * - vaccinate_overdue: a vaccine's latest dose was due before today → due on that date; source the dose.
 * - vaccination_due_soon: a vaccine's latest dose is due today or within the next 30 days → due on that date; source the dose.
 * - book_vaccination_before_boarding: a reserved boarding stay at a location whose required vaccines
 *   (for the pet's species) the pet lacks valid through check-out — the rule check-in enforces → due
 *   on the check-in day; sources the booking, then the latest doses of the missing vaccines.
 * - missed_dose_follow_up: a care plan of the stay in house has doses of a medication with nothing
 *   logged PETCARE_DOSE_OVERDUE_MINUTES after their time → due today; sources the plan and the booking.
 * - pay_open_invoice: an open invoice of the pet's parent with an amount due → due on its dueOn (or
 *   today without one); source the invoice.
 */
function vaccinationActions(pet: PetsTable, doses: readonly LatestDose[], today: string): CareAction[] {
  if (doses.length === 0) {
    return [{ kind: 'record_vaccinations', reason: `${pet.name} has no vaccination records.`, dueOn: today, sourceIds: [pet.id] }];
  }
  const actions: CareAction[] = [];
  for (const dose of doses) {
    const status = statusFrom(dose.due_on, today);
    if (status === 'Overdue') {
      const late = daysBetween(dose.due_on, today);
      actions.push({
        kind: 'vaccinate_overdue',
        reason: `${pet.name}'s ${dose.vaccine} was due on ${dose.due_on}, ${late} day${late === 1 ? '' : 's'} ago (latest dose ${dose.administered_on}).`,
        dueOn: dose.due_on,
        sourceIds: [dose.id],
      });
    } else if (status === 'Due soon') {
      const left = daysBetween(today, dose.due_on);
      actions.push({
        kind: 'vaccination_due_soon',
        reason: `${pet.name}'s ${dose.vaccine} is due on ${dose.due_on}, ${left === 0 ? 'today' : `in ${left} day${left === 1 ? '' : 's'}`} (within ${dueSoonDays} days).`,
        dueOn: dose.due_on,
        sourceIds: [dose.id],
      });
    }
  }
  return actions;
}

async function boardingVaccineActions(
  db: Executor,
  actor: AccessFilter,
  pet: PetsTable,
  bookings: readonly BookingFact[],
  doses: readonly LatestDose[],
): Promise<CareAction[]> {
  const actions: CareAction[] = [];
  const doseByKey = new Map(doses.map((d) => [d.vaccine_key, d]));
  for (const stay of bookings) {
    if (stay.kind !== 'boarding' || stay.status !== 'reserved' || stay.check_in_on === null || stay.check_out_on === null) continue;
    const location = await findLocation(db, actor, stay.location_id);
    if (!location) continue;
    const missing = await missingVaccines(db, location, pet, stay.check_out_on);
    if (missing.length === 0) continue;
    const facts = missing.map((name) => {
      const dose = doseByKey.get(vaccineKey(name));
      return dose ? `${name} (due ${dose.due_on})` : `${name} (no record)`;
    });
    actions.push({
      kind: 'book_vaccination_before_boarding',
      reason:
        `Boarding stay ${stay.id} at ${location.name} (${stay.check_in_on} to ${stay.check_out_on}) needs ${missing.join(', ')} valid through check-out; ` +
        `${pet.name} has ${facts.join(', ')}. Check-in is refused without them unless a doctor overrides.`,
      dueOn: stay.check_in_on,
      sourceIds: [stay.id, ...missing.flatMap((name) => doseByKey.get(vaccineKey(name))?.id ?? [])],
    });
  }
  return actions;
}

/**
 * A pet's care summary (GET /v1/agents/care-coordinator), read from the database as the caller may
 * see it: every section is filtered by the caller's tenant and locations (a booking or invoice at
 * another location is left out), and a pet the caller cannot see is 404.
 */
export async function careSummary(db: Executor, actor: AccessFilter, petId: string, businessNow: number, doseOverdueMinutes: number): Promise<CareSummary> {
  const pet = foundOr404(await findPet(db, actor, petId), 'pet', petId);
  const today = utcDate(businessNow);
  const nowIso = isoAt(businessNow);
  const doses = await latestDosesOfPet(db, wholeTenant(actor), pet.id);
  const appointments = await upcomingAppointments(db, actor, pet.id, nowIso);
  const bookings = await upcomingBookings(db, actor, pet.id, nowIso);
  const invoices = (await openInvoicesOfParent(db, actor, pet.owner_id)).filter((inv) => amountDueOf(inv) > 0);

  const actions: CareAction[] = [...vaccinationActions(pet, doses, today), ...(await boardingVaccineActions(db, actor, pet, bookings, doses))];

  let activeStay: CareSummary['activeStay'] = null;
  const inHouse = bookings.find((b) => b.kind === 'boarding' && b.status === 'checked_in');
  if (inHouse && inHouse.check_in_on !== null && inHouse.check_out_on !== null) {
    const carePlans: NonNullable<CareSummary['activeStay']>['carePlans'] = [];
    for (const plan of await carePlansOfStay(db, actor, inHouse.id)) {
      const missed = await missedDoses(db, { ...plan, checked_in_at: inHouse.checked_in_at }, businessNow - doseOverdueMinutes * 60_000);
      // A long stay with nothing logged could miss hundreds: the latest few are listed, the action counts them all.
      carePlans.push({
        carePlan: presentCarePlan(plan),
        recentDoses: (await recentDoses(db, wholeTenant(actor), plan.id)).map(presentDose),
        missedDoses: missed.slice(-sectionLimit),
      });
      const byMedication = new Map<string, string[]>();
      for (const dose of missed) byMedication.set(dose.medication, [...(byMedication.get(dose.medication) ?? []), dose.scheduledFor]);
      for (const [medication, times] of byMedication) {
        actions.push({
          kind: 'missed_dose_follow_up',
          reason: `${times.length} dose${times.length === 1 ? '' : 's'} of ${medication} for ${pet.name} not logged (latest due ${times.at(-1)}); check and log what was given.`,
          dueOn: today,
          sourceIds: [plan.id, inHouse.id],
        });
      }
    }
    activeStay = {
      bookingId: inHouse.id,
      locationId: inHouse.location_id,
      checkInOn: inHouse.check_in_on,
      checkOutOn: inHouse.check_out_on,
      roomId: inHouse.room_id,
      carePlans,
    };
  }

  for (const invoice of invoices) {
    const due = amountDueOf(invoice);
    const late = invoice.due_on !== null && invoice.due_on < today;
    actions.push({
      kind: 'pay_open_invoice',
      reason: `Invoice ${invoice.number ?? invoice.id} has ${due} ${invoice.currency} (minor units) due${late ? `, overdue since ${invoice.due_on}` : invoice.due_on ? ` by ${invoice.due_on}` : ''}.`,
      dueOn: invoice.due_on ?? today,
      sourceIds: [invoice.id],
    });
  }

  return presentCareSummary({ pet, businessNow, today, doses, appointments, bookings, activeStay, invoices, actions: actions.sort(byDue) });
}
