import type { Static } from '@sinclair/typebox';
import type { BoardingCarePlansTable, BoardingDosesTable } from './boarding.table.js';
import type { CarePlan, CarePlanSchema, DoseSchema } from './care-plans.schema.js';

export const medicationsOf = (row: Pick<BoardingCarePlansTable, 'medications'>): CarePlan['medications'] =>
  JSON.parse(row.medications) as CarePlan['medications'];

export const presentCarePlan = (row: BoardingCarePlansTable): Static<typeof CarePlanSchema> => ({
  id: row.id,
  bookingId: row.booking_id,
  petId: row.pet_id,
  locationId: row.location_id,
  feeding: JSON.parse(row.feeding) as CarePlan['feeding'],
  medications: medicationsOf(row),
  notes: row.notes,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export const presentDose = (row: BoardingDosesTable): Static<typeof DoseSchema> => ({
  id: row.id,
  carePlanId: row.care_plan_id,
  bookingId: row.booking_id,
  medication: row.medication,
  scheduledFor: row.scheduled_for,
  outcome: row.outcome,
  givenBy: row.given_by,
  notes: row.notes,
  recordedBy: { clientId: row.recorded_by_client_id },
  createdAt: row.created_at,
  supersedes: row.supersedes,
});
