import { addDays, dayMs, utcDate } from '../../calendar-dates.js';
import { sql } from 'kysely';
import { acrossTenants, scoped } from '../../db/access-policy.js';
import type { Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import type { VaccinationStatus } from './pets.schema.js';

/** A latest dose due within this many days (today included) makes the pet "Due soon". */
export const dueSoonDays = 30;

/**
 * A pet's vaccinationStatus is derived from its vaccination records and today's date, never stored;
 * its input, the earliest due date below, is kept on the pet (pets.vaccination_earliest_due) by
 * triggers that state this same rule in SQL (migration denormalize_pet_earliest_due). Per vaccine
 * (case-insensitive name) only the latest record by administeredOn counts (a later dose replaces
 * the earlier one's due date); then the earliest of those due dates decides:
 * none → No records; before today → Overdue; within 30 days → Due soon; else Up to date.
 */
/**
 * The rule "per vaccine only the latest dose counts" as a window: 1 on the latest record (by
 * administeredOn, then id) of each partition. The reminders job ranks by the same rule.
 */
export const latestDoseRank = (partition: 'vaccine_key' | 'pet_id, vaccine_key' | 'tenant_id, pet_id, vaccine_key') =>
  sql<number>`row_number() over (partition by ${sql.raw(partition)} order by administered_on desc, id desc)`;

function latestDoses(db: Executor, access: AccessFilter, partition: 'vaccine_key' | 'pet_id, vaccine_key') {
  return scoped(db, access)
    .selectFrom('vaccinations')
    .select(['id', 'tenant_id', 'pet_id', 'vaccine', 'vaccine_key', 'administered_on', 'due_on', latestDoseRank(partition).as('rank')]);
}

/** The latest doses above, as rows: the outer select reads only the scoped subquery. */
const latestOf = (db: Executor, doses: ReturnType<typeof latestDoses>) =>
  acrossTenants(db, 'reads only a scoped() subquery of vaccinations').selectFrom(doses.as('latest')).where('latest.rank', '=', 1);

/**
 * Each vaccine's due date by vaccine key (lower-case name), from its latest dose: the rule the status
 * above follows, for callers that check particular vaccines (boarding's required vaccines).
 */
export async function latestDueDates(db: Executor, access: AccessFilter, petId: string): Promise<Map<string, string>> {
  const rows = await latestOf(db, latestDoses(db, access, 'vaccine_key').where('pet_id', '=', petId))
    .select(['latest.vaccine_key', 'latest.due_on'])
    .execute();
  return new Map(rows.map((row) => [row.vaccine_key, row.due_on]));
}

/** A pet's latest dose of one vaccine, as the record it comes from (for callers that cite record ids). */
export interface LatestDose {
  id: string;
  tenant_id: string;
  pet_id: string;
  vaccine: string;
  vaccine_key: string;
  administered_on: string;
  due_on: string;
}

const latestDoseColumns = [
  'latest.id',
  'latest.tenant_id',
  'latest.pet_id',
  'latest.vaccine',
  'latest.vaccine_key',
  'latest.administered_on',
  'latest.due_on',
] as const;

/** The records behind `latestDueDates` (same rule): each vaccine's latest dose of one pet, earliest due first. */
export async function latestDosesOfPet(db: Executor, access: AccessFilter, petId: string): Promise<LatestDose[]> {
  return latestOf(db, latestDoses(db, access, 'vaccine_key').where('pet_id', '=', petId))
    .select(latestDoseColumns)
    .orderBy('latest.due_on')
    .orderBy('latest.vaccine_key')
    .execute();
}

/**
 * The latest dose per pet and vaccine (same rule) due on or before `dueThrough` — overdue ones
 * included — of the pets now at `access.locationIds` (null: the whole tenant; an empty list matches
 * nothing), limited to `vaccineKeys` when given. Earliest due first.
 */
export async function latestDosesDueThrough(
  db: Executor,
  access: AccessFilter,
  dueThrough: string,
  vaccineKeys: readonly string[] | null,
): Promise<LatestDose[]> {
  if (vaccineKeys !== null && vaccineKeys.length === 0) return [];
  let doses = latestDoses(db, access, 'pet_id, vaccine_key');
  if (vaccineKeys !== null) doses = doses.where('vaccine_key', 'in', [...vaccineKeys]);
  return latestOf(db, doses)
    .select(latestDoseColumns)
    .where('latest.due_on', '<=', dueThrough)
    .orderBy('latest.due_on')
    .orderBy('latest.pet_id')
    .orderBy('latest.vaccine_key')
    .execute();
}

/** The status for the earliest due date (pets.vaccination_earliest_due, kept by triggers) as of `today` (YYYY-MM-DD of the service clock). */
export function statusFrom(earliestDue: string | null, today: string): VaccinationStatus {
  if (earliestDue === null) return 'No records';
  return earliestDue < today ? 'Overdue' : earliestDue <= dueSoonBound(today) ? 'Due soon' : 'Up to date';
}

// Every pet read needs today and today + 30 days; both change once a day.
let cachedDay = Number.NaN;
let cachedToday = '';
let cachedSoonFor = '';
let cachedSoon = '';

/** YYYY-MM-DD (UTC) of an instant of the service clock. */
export function dateOf(now: number): string {
  const day = Math.floor(now / dayMs);
  if (day !== cachedDay) {
    cachedDay = day;
    cachedToday = utcDate(now);
  }
  return cachedToday;
}

function dueSoonBound(today: string): string {
  if (today !== cachedSoonFor) {
    cachedSoonFor = today;
    cachedSoon = addDays(today, dueSoonDays);
  }
  return cachedSoon;
}
