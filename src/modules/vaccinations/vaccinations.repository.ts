import { scoped } from '../../db/access-policy.js';
import type { Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { ListVaccinationsFilters } from './vaccinations.schema.js';
import type { VaccinationsTable } from './vaccinations.table.js';

/** A vaccination is visible when its pet is (its policy): the record follows the pet, wherever it is kept now. */
export async function findVaccination(db: Executor, actor: AccessFilter, id: string): Promise<VaccinationsTable | null> {
  const query = scoped(db, actor).selectFrom('vaccinations').selectAll().where('id', '=', id);
  return (await query.executeTakeFirst()) ?? null;
}

/** The vaccinations of one pet the caller already proved it can see (findPet). */
export async function listVaccinations(
  db: Executor,
  access: AccessFilter,
  petId: string,
  page: PageRequest,
  filters: ListVaccinationsFilters,
): Promise<VaccinationsTable[]> {
  let query = scoped(db, access).selectFrom('vaccinations').selectAll().where('pet_id', '=', petId);
  if (filters.vaccine !== undefined) query = query.where('vaccine_key', '=', vaccineKey(filters.vaccine));
  if (filters.externalId !== undefined) query = query.where('external_id', '=', filters.externalId);
  return pageQuery(query, page).execute();
}

export async function insertVaccination(db: Executor, access: AccessFilter, row: VaccinationsTable): Promise<void> {
  await scoped(db, access).insert('vaccinations', row);
}

/** One vaccine regardless of letter case and surrounding blanks. */
export const vaccineKey = (vaccine: string): string => vaccine.trim().toLowerCase();

/** Deletes every vaccination of a tenant (sandbox reset only; vaccinations have no delete route). */
export async function deleteTenantVaccinations(db: Executor, tenantId: string): Promise<void> {
  await scoped(db, { tenantId, locationIds: null }).deleteFrom('vaccinations').execute();
}
