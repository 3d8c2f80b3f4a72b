import { sql } from 'kysely';
import { insertRow, selectRows, type Executor, type PetsTable } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { ListPetsFilters } from './pets.schema.js';
import { inList } from '../../db/in-list.js';
import { earliestDueOf } from './vaccination-status.js';

/** The access policy lives here: tenant always, locations when the caller is location-scoped. */
function scoped(db: Executor, actor: AccessFilter) {
  let query = db.selectFrom('pets').where('tenant_id', '=', actor.tenantId);
  if (actor.locationIds !== null) query = query.where('location_id', 'in', inList(actor.locationIds));
  return query;
}

const visible = (db: Executor, actor: AccessFilter) => scoped(db, actor).selectAll();

/**
 * The ids of the pets the caller may see, as a subquery: records that belong to a pet
 * (vaccinations, medical records, documents) are visible exactly when their pet is, and follow it
 * when it moves, by filtering `pet_id in visiblePetIds(…)` — one policy, not a copy per module.
 */
export const visiblePetIds = (db: Executor, actor: AccessFilter) => scoped(db, actor).select('id');

export async function findPet(db: Executor, actor: AccessFilter, id: string): Promise<PetsTable | null> {
  return (await visible(db, actor).where('id', '=', id).executeTakeFirst()) ?? null;
}

/** A pet row with the input of its vaccinationStatus: the earliest due date of its latest doses (null: no records). */
export type PetWithEarliestDue = PetsTable & { earliest_due: string | null };

/**
 * The same policy as `scoped`, as SQL text built once per number of locations (-1: the whole
 * tenant): GET /v1/pets/:id is the hottest read, and building it through Kysely cost more than
 * running it. An empty location list matches nothing (`inList`'s rule).
 */
const petReadSql = new Map<number, string>();
function petReadText(locations: number): string {
  let text = petReadSql.get(locations);
  if (!text) {
    const inLocations = locations < 0 ? '' : locations === 0 ? ' and 0' : ` and p.location_id in (${new Array<string>(locations).fill('?').join(', ')})`;
    text = `select p.*, ${earliestDueOf('p.id')} as earliest_due from pets p where p.id = ? and p.tenant_id = ?${inLocations}`;
    if (petReadSql.size < 100) petReadSql.set(locations, text);
  }
  return text;
}

/** One pet with its vaccination input, in one statement. */
export async function findPetWithEarliestDue(db: Executor, actor: AccessFilter, id: string): Promise<PetWithEarliestDue | null> {
  const locations = actor.locationIds;
  const parameters = locations === null ? [id, actor.tenantId] : [id, actor.tenantId, ...locations];
  const [row] = await selectRows<PetWithEarliestDue>(db, petReadText(locations === null ? -1 : locations.length), parameters);
  return row ?? null;
}

export async function listPets(db: Executor, actor: AccessFilter, page: PageRequest, filters: ListPetsFilters): Promise<PetsTable[]> {
  let query = visible(db, actor);
  if (filters.ownerId !== undefined) query = query.where('owner_id', '=', filters.ownerId);
  if (filters.locationId !== undefined) query = query.where('location_id', '=', filters.locationId);
  if (filters.name !== undefined) query = query.where(sql`instr(lower(name), ${filters.name.toLowerCase()})`, '>', 0);
  return pageQuery(query, page).execute();
}

export async function insertPet(db: Executor, row: PetsTable): Promise<void> {
  await insertRow(db, 'pets', row);
}

export async function updatePet(db: Executor, tenantId: string, id: string, patch: Partial<PetsTable>): Promise<void> {
  await db.updateTable('pets').set(patch).where('id', '=', id).where('tenant_id', '=', tenantId).execute();
}

/**
 * Records a completed visit: lastVisit becomes `date` (YYYY-MM-DD) unless the pet already has a
 * later one (an older appointment completed late never moves it back).
 */
export async function recordPetVisit(db: Executor, tenantId: string, id: string, date: string, updatedAt: string): Promise<void> {
  await db
    .updateTable('pets')
    .set({ last_visit: date, updated_at: updatedAt })
    .where('id', '=', id)
    .where('tenant_id', '=', tenantId)
    .where((eb) => eb.or([eb('last_visit', 'is', null), eb('last_visit', '<', date)]))
    .execute();
}
