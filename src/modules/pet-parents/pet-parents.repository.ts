import { sql } from 'kysely';
import type { Executor, PetParentsTable } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { ListPetParentsFilters } from './pet-parents.schema.js';
import { inList } from '../../db/in-list.js';
import { findVisibleById, visibleById } from '../../db/find-visible.js';

/** The access policy lives here: tenant always, locations when the caller is location-scoped. */
function visible(db: Executor, actor: AccessFilter) {
  let query = db.selectFrom('pet_parents').selectAll().where('tenant_id', '=', actor.tenantId);
  if (actor.locationIds !== null) query = query.where('location_id', 'in', inList(actor.locationIds));
  return query;
}

const parentById = visibleById('pet_parents', 'location_id');

export async function findPetParent(db: Executor, actor: AccessFilter, id: string): Promise<PetParentsTable | null> {
  return findVisibleById<PetParentsTable>(db, parentById, actor, id);
}

export async function listPetParents(db: Executor, actor: AccessFilter, page: PageRequest, filters: ListPetParentsFilters): Promise<PetParentsTable[]> {
  let query = visible(db, actor);
  if (filters.locationId !== undefined) query = query.where('location_id', '=', filters.locationId);
  if (filters.email !== undefined) query = query.where(sql`lower(email)`, '=', filters.email.toLowerCase());
  if (filters.name !== undefined) query = query.where(sql`instr(lower(name), ${filters.name.toLowerCase()})`, '>', 0);
  return pageQuery(query, page).execute();
}

export async function insertPetParent(db: Executor, row: PetParentsTable): Promise<void> {
  await db.insertInto('pet_parents').values(row).execute();
}

export async function updatePetParent(db: Executor, tenantId: string, id: string, patch: Partial<PetParentsTable>): Promise<void> {
  await db.updateTable('pet_parents').set(patch).where('id', '=', id).where('tenant_id', '=', tenantId).execute();
}
