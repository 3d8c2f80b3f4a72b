import { addDays, dayMs, utcDate } from '../../calendar-dates.js';
import { selectRows, type Executor } from '../../db/database.js';
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
const latestDoses = (where: string, partition: string, columns = 'pet_id, vaccine_key, due_on') =>
  `select ${columns}, row_number() over (partition by ${partition} order by administered_on desc, id desc) as rank from vaccinations where ${where}`;

const latestDueSql = `select vaccine_key, due_on from (${latestDoses('tenant_id = ? and pet_id = ?', 'vaccine_key')}) where rank = 1`;

/**
 * Each vaccine's due date by vaccine key (lower-case name), from its latest dose: the rule the status
 * above follows, for callers that check particular vaccines (boarding's required vaccines).
 */
export async function latestDueDates(db: Executor, tenantId: string, petId: string): Promise<Map<string, string>> {
  const rows = await selectRows<{ vaccine_key: string; due_on: string }>(db, latestDueSql, [tenantId, petId]);
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

const latestDoseColumns = 'id, tenant_id, pet_id, vaccine, vaccine_key, administered_on, due_on';
const latestDosesOfPetSql = `select ${latestDoseColumns} from (${latestDoses('tenant_id = ? and pet_id = ?', 'vaccine_key', latestDoseColumns)}) where rank = 1 order by due_on, vaccine_key`;

/** The records behind `latestDueDates` (same rule): each vaccine's latest dose of one pet, earliest due first. */
export async function latestDosesOfPet(db: Executor, tenantId: string, petId: string): Promise<LatestDose[]> {
  return selectRows<LatestDose>(db, latestDosesOfPetSql, [tenantId, petId]);
}

/**
 * The latest dose per pet and vaccine (same rule) due on or before `dueThrough` — overdue ones
 * included — of the pets now at `locationIds` (null: the whole tenant; an empty list matches
 * nothing), limited to `vaccineKeys` when given. Earliest due first.
 */
export async function latestDosesDueThrough(
  db: Executor,
  access: { tenantId: string; locationIds: readonly string[] | null },
  dueThrough: string,
  vaccineKeys: readonly string[] | null,
): Promise<LatestDose[]> {
  const marks = (n: number) => new Array<string>(n).fill('?').join(', ');
  const locations = access.locationIds === null ? '' : access.locationIds.length === 0 ? ' and 0' : ` and location_id in (${marks(access.locationIds.length)})`;
  const keys = vaccineKeys === null ? '' : vaccineKeys.length === 0 ? ' and 0' : ` and vaccine_key in (${marks(vaccineKeys.length)})`;
  const where = `tenant_id = ? and pet_id in (select id from pets where tenant_id = ?${locations})${keys}`;
  const text = `select ${latestDoseColumns} from (${latestDoses(where, 'pet_id, vaccine_key', latestDoseColumns)}) where rank = 1 and due_on <= ? order by due_on, pet_id, vaccine_key`;
  return selectRows<LatestDose>(db, text, [access.tenantId, access.tenantId, ...(access.locationIds ?? []), ...(vaccineKeys ?? []), dueThrough]);
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
