import { sql } from 'kysely';
import { insertRow, type Executor, type PetsTable } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { ListPetsFilters } from './pets.schema.js';
import { inList } from '../../db/in-list.js';
import { findVisibleById, visibleById } from '../../db/find-visible.js';

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

const petById = visibleById('pets', 'location_id');

/** One pet, with the input of its vaccinationStatus (vaccination_earliest_due): GET /v1/pets/:id, the hottest read. */
export async function findPet(db: Executor, actor: AccessFilter, id: string): Promise<PetsTable | null> {
  return findVisibleById<PetsTable>(db, petById, actor, id);
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
