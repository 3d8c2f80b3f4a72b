import { sql } from 'kysely';
import { scoped } from '../../db/access-policy.js';
import type { Executor, PetParentsTable } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { ListPetParentsFilters } from './pet-parents.schema.js';
import { findVisibleById, visibleById } from '../../db/find-visible.js';

const parentById = visibleById('pet_parents', 'location_id');

export async function findPetParent(db: Executor, actor: AccessFilter, id: string): Promise<PetParentsTable | null> {
  return findVisibleById<PetParentsTable>(db, parentById, actor, id);
}

export async function listPetParents(db: Executor, actor: AccessFilter, page: PageRequest, filters: ListPetParentsFilters): Promise<PetParentsTable[]> {
  let query = scoped(db, actor).selectFrom('pet_parents').selectAll();
  if (filters.locationId !== undefined) query = query.where('location_id', '=', filters.locationId);
  if (filters.email !== undefined) query = query.where(sql`lower(email)`, '=', filters.email.toLowerCase());
  if (filters.name !== undefined) query = query.where(sql`instr(lower(name), ${filters.name.toLowerCase()})`, '>', 0);
  if (filters.externalId !== undefined) query = query.where('external_id', '=', filters.externalId);
  return pageQuery(query, page).execute();
}

export async function insertPetParent(db: Executor, access: AccessFilter, row: PetParentsTable): Promise<void> {
  await scoped(db, access).insert('pet_parents', row);
}

/** Updates a parent the caller may see (a move to another location the caller covers included: the old location is checked). */
export async function updatePetParent(db: Executor, access: AccessFilter, id: string, patch: Partial<PetParentsTable>): Promise<void> {
  await scoped(db, access).updateTable('pet_parents').set(patch).where('id', '=', id).execute();
}
