import { isoAt } from '../../clock.js';
import type { PetsTable } from '../../db/database.js';
import { amountDueOf } from '../payments/index.js';
import { statusFrom, type LatestDose } from '../pets/index.js';
import type { BookingFact, upcomingAppointments, openInvoicesOfParent } from './care-coordinator.repository.js';
import type { CareAction, CareSummary } from './care-coordinator.schema.js';

// Per vaccine the pets module's status rule, in snake case. 'No records' needs a missing date, which a dose never has.
const vaccineStatus = { Overdue: 'overdue', 'Due soon': 'due_soon', 'Up to date': 'up_to_date', 'No records': 'up_to_date' } as const;

export interface CareFacts {
  pet: PetsTable;
  businessNow: number;
  today: string;
  /** Latest dose per vaccine, earliest due first. */
  doses: readonly LatestDose[];
  appointments: Awaited<ReturnType<typeof upcomingAppointments>>;
  bookings: readonly BookingFact[];
  activeStay: CareSummary['activeStay'];
  invoices: Awaited<ReturnType<typeof openInvoicesOfParent>>;
  actions: CareAction[];
}

export const presentCareSummary = (facts: CareFacts): CareSummary => ({
  pet: {
    id: facts.pet.id,
    name: facts.pet.name,
    species: facts.pet.species,
    ownerId: facts.pet.owner_id,
    locationId: facts.pet.location_id,
    vaccinationStatus: statusFrom(facts.doses[0]?.due_on ?? null, facts.today),
  },
  asOf: isoAt(facts.businessNow),
  today: facts.today,
  vaccinations: facts.doses.map((d) => ({
    vaccinationId: d.id,
    vaccine: d.vaccine,
    administeredOn: d.administered_on,
    dueOn: d.due_on,
    status: vaccineStatus[statusFrom(d.due_on, facts.today)],
  })),
  appointments: facts.appointments.map((a) => ({
    id: a.id,
    type: a.type,
    status: a.status,
    startsAt: a.starts_at,
    endsAt: a.ends_at,
    locationId: a.location_id,
    providerId: a.provider_id,
  })),
  bookings: facts.bookings.map((b) => ({
    id: b.id,
    kind: b.kind,
    status: b.status,
    startsAt: b.starts_at,
    endsAt: b.ends_at,
    locationId: b.location_id,
    providerId: b.provider_id,
    amount: b.amount,
    currency: b.currency,
  })),
  activeStay: facts.activeStay,
  openInvoices: facts.invoices.map((inv) => ({
    id: inv.id,
    number: inv.number,
    status: inv.status,
    locationId: inv.location_id,
    petId: inv.pet_id,
    currency: inv.currency,
    total: inv.total,
    amountDue: amountDueOf(inv),
    dueOn: inv.due_on,
  })),
  actions: facts.actions,
});
