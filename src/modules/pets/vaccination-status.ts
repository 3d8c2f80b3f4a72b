import { CompiledQuery } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { VaccinationStatus } from './pets.schema.js';
import { addDays } from '../../calendar-dates.js';

/** A latest dose due within this many days (today included) makes the pet "Due soon". */
export const dueSoonDays = 30;


/**
 * A pet's vaccinationStatus is derived from its vaccination records, never stored. Per vaccine
 * (case-insensitive name) only the latest record by administeredOn counts (a later dose replaces
 * the earlier one's due date); then the earliest of those due dates decides:
 * none → No records; before today → Overdue; within 30 days → Due soon; else Up to date.
 * One query for a whole page of pets. `today` is YYYY-MM-DD of the service clock.
 */
interface EarliestDue {
  pet_id: string;
  earliest_due: string;
}

/**
 * The SQL for `count` pet ids, built once per count: this runs on every pet read, and building
 * the query through Kysely's builder cost more than running it (measured in the GET-pet bench).
 */
const statementByCount = new Map<number, string>();
function earliestDueSql(count: number): string {
  let text = statementByCount.get(count);
  if (!text) {
    text =
      'select pet_id, min(due_on) as earliest_due from (' +
      'select pet_id, due_on, row_number() over (partition by pet_id, vaccine_key order by administered_on desc, id desc) as rank ' +
      `from vaccinations where pet_id in (${new Array<string>(count).fill('?').join(', ')})` +
      ') where rank = 1 group by pet_id';
    if (statementByCount.size < 200) statementByCount.set(count, text);
  }
  return text;
}

export async function vaccinationStatuses(db: Executor, petIds: readonly string[], today: string): Promise<Map<string, VaccinationStatus>> {
  const statuses = new Map<string, VaccinationStatus>(petIds.map((id) => [id, 'No records']));
  if (petIds.length === 0) return statuses;
  const ids = [...new Set(petIds)];
  const { rows } = await db.executeQuery<EarliestDue>(CompiledQuery.raw(earliestDueSql(ids.length), ids));
  const soon = addDays(today, dueSoonDays);
  for (const row of rows) {
    const due = row.earliest_due;
    statuses.set(row.pet_id, due < today ? 'Overdue' : due <= soon ? 'Due soon' : 'Up to date');
  }
  return statuses;
}
