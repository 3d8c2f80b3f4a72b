import { sql } from 'kysely';
import { scoped } from '../../db/access-policy.js';
import type { Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { BoardingCarePlansTable, BoardingDosesTable } from './boarding.table.js';
import type { ListCarePlansFilters } from './care-plans.schema.js';

/** Care plans the caller may see: its tenant, and the stay's location when it is location-scoped (the manifest's policy). */
function visible(db: Executor, actor: AccessFilter) {
  return scoped(db, actor).selectFrom('boarding_care_plans').selectAll('boarding_care_plans');
}

export async function findCarePlan(db: Executor, actor: AccessFilter, id: string): Promise<BoardingCarePlansTable | null> {
  return (await visible(db, actor).where('boarding_care_plans.id', '=', id).executeTakeFirst()) ?? null;
}

export async function listCarePlans(db: Executor, actor: AccessFilter, page: PageRequest, filters: ListCarePlansFilters): Promise<BoardingCarePlansTable[]> {
  let query = visible(db, actor);
  if (filters.bookingId !== undefined) query = query.where('boarding_care_plans.booking_id', '=', filters.bookingId);
  if (filters.petId !== undefined) query = query.where('boarding_care_plans.pet_id', '=', filters.petId);
  if (filters.locationId !== undefined) query = query.where('boarding_care_plans.location_id', '=', filters.locationId);
  if (filters.activeOn !== undefined) {
    const on = filters.activeOn;
    query = query.where('boarding_care_plans.booking_id', 'in', (eb) =>
      eb.selectFrom('boarding_stays').select('booking_id').where('check_in_on', '<=', on).where('check_out_on', '>', on),
    );
  }
  return pageQuery(query, page, 'boarding_care_plans.id').execute();
}

export async function carePlansOfBooking(db: Executor, access: AccessFilter, bookingId: string): Promise<BoardingCarePlansTable[]> {
  return visible(db, access).where('booking_id', '=', bookingId).orderBy('id').execute();
}

export async function insertCarePlan(db: Executor, access: AccessFilter, row: BoardingCarePlansTable): Promise<void> {
  await scoped(db, access).insert('boarding_care_plans', row);
}

export async function updateCarePlan(db: Executor, access: AccessFilter, id: string, patch: Partial<BoardingCarePlansTable>): Promise<void> {
  await scoped(db, access).updateTable('boarding_care_plans').set(patch).where('id', '=', id).execute();
}

export async function insertDose(db: Executor, access: AccessFilter, row: BoardingDosesTable): Promise<void> {
  await scoped(db, access).insert('boarding_doses', row);
}

export async function listDoses(db: Executor, access: AccessFilter, carePlanId: string, page: PageRequest): Promise<BoardingDosesTable[]> {
  return pageQuery(scoped(db, access).selectFrom('boarding_doses').selectAll().where('care_plan_id', '=', carePlanId), page).execute();
}

/** An entry of a plan's dose log by id. */
export async function findDose(db: Executor, access: AccessFilter, carePlanId: string, id: string): Promise<BoardingDosesTable | null> {
  return (
    (await scoped(db, access).selectFrom('boarding_doses').selectAll().where('id', '=', id).where('care_plan_id', '=', carePlanId).executeTakeFirst()) ?? null
  );
}

/** Dose log entries (aliased `d`) no entry corrects: the latest of each dose, the one that counts. */
const latestOfItsDose = sql<boolean>`not exists (select 1 from boarding_doses as c where c.supersedes = d.id)`;

/** The latest entry logged for a dose (the one no entry supersedes), or null when none is. */
export async function latestDoseEntry(
  db: Executor,
  access: AccessFilter,
  carePlanId: string,
  medicationKey: string,
  scheduledFor: string,
): Promise<string | null> {
  const row = await scoped(db, access)
    .selectFrom('boarding_doses as d')
    .select('d.id')
    .where('d.care_plan_id', '=', carePlanId)
    .where('d.medication_key', '=', medicationKey)
    .where('d.scheduled_for', '=', scheduledFor)
    .where(latestOfItsDose)
    .executeTakeFirst();
  return row?.id ?? null;
}

/**
 * Doses given per plan and medication of a booking: what check-out bills as care items. Only the
 * latest entry of each dose counts (a corrected entry does not), so a dose is billed at most once.
 */
export async function givenDoseCounts(db: Executor, access: AccessFilter, bookingId: string) {
  return scoped(db, access)
    .selectFrom('boarding_doses as d')
    .select(['d.care_plan_id', 'd.medication_key', (eb) => eb.fn.countAll<number>().as('given')])
    .where('d.booking_id', '=', bookingId)
    .where('d.outcome', '=', 'given')
    .where(latestOfItsDose)
    .groupBy(['d.care_plan_id', 'd.medication_key'])
    .execute();
}
