import { sql } from 'kysely';
import { insertCallersRow, scoped } from '../../db/access-policy.js';
import type { Executor, PetsTable } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { ListPetsFilters } from './pets.schema.js';
import { findVisibleById, visibleById } from '../../db/find-visible.js';

const petById = visibleById('pets', 'location_id');

/** One pet, with the input of its vaccinationStatus (vaccination_earliest_due): GET /v1/pets/:id, the hottest read. */
export async function findPet(db: Executor, actor: AccessFilter, id: string): Promise<PetsTable | null> {
  return findVisibleById<PetsTable>(db, petById, actor, id);
}

export async function listPets(db: Executor, actor: AccessFilter, page: PageRequest, filters: ListPetsFilters): Promise<PetsTable[]> {
  let query = scoped(db, actor).selectFrom('pets').selectAll();
  if (filters.ownerId !== undefined) query = query.where('owner_id', '=', filters.ownerId);
  if (filters.locationId !== undefined) query = query.where('location_id', '=', filters.locationId);
  if (filters.name !== undefined) query = query.where(sql`instr(lower(name), ${filters.name.toLowerCase()})`, '>', 0);
  if (filters.externalId !== undefined) query = query.where('external_id', '=', filters.externalId);
  return pageQuery(query, page).execute();
}

/**
 * POST /v1/pets is a measured hot path (bench c): the row goes in through prepared SQL text rather
 * than `scoped().insert`'s query builder, after the same check that it is the caller's to write.
 */
export async function insertPet(db: Executor, access: AccessFilter, row: PetsTable): Promise<void> {
  await insertCallersRow(db, access, 'pets', row);
}

/** Updates a pet the caller may see (a move to another location the caller covers included: the old location is checked). */
export async function updatePet(db: Executor, access: AccessFilter, id: string, patch: Partial<PetsTable>): Promise<void> {
  await scoped(db, access).updateTable('pets').set(patch).where('id', '=', id).execute();
}

/**
 * Records a completed visit: lastVisit becomes `date` (YYYY-MM-DD) unless the pet already has a
 * later one (an older appointment completed late never moves it back).
 */
export async function recordPetVisit(db: Executor, access: AccessFilter, id: string, date: string, updatedAt: string): Promise<void> {
  await scoped(db, access)
    .updateTable('pets')
    .set({ last_visit: date, updated_at: updatedAt })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_visit', 'is', null), eb('last_visit', '<', date)]))
    .execute();
}
