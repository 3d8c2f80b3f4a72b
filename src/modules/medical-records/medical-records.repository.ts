import { scoped } from '../../db/access-policy.js';
import type { Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { ListMedicalRecordsFilters } from './medical-records.schema.js';
import type { MedicalRecordsTable } from './medical-records.table.js';

/** A record is visible when its pet is (its policy): the record follows the pet, wherever it is kept now. */
export async function findMedicalRecord(db: Executor, actor: AccessFilter, id: string): Promise<MedicalRecordsTable | null> {
  const query = scoped(db, actor).selectFrom('medical_records').selectAll().where('id', '=', id);
  return (await query.executeTakeFirst()) ?? null;
}

/** The records of one pet the caller already proved it can see (findPet), newest first. */
export async function listMedicalRecords(
  db: Executor,
  access: AccessFilter,
  petId: string,
  page: PageRequest,
  filters: ListMedicalRecordsFilters,
): Promise<MedicalRecordsTable[]> {
  let query = scoped(db, access).selectFrom('medical_records as r').selectAll('r').where('r.pet_id', '=', petId);
  if (filters.kind !== undefined) query = query.where('r.kind', '=', filters.kind);
  if (filters.externalId !== undefined) query = query.where('r.external_id', '=', filters.externalId);
  if (filters.current === true) {
    // An amendment is of the same pet as the record it corrects.
    query = query.where(({ not, exists, selectFrom }) => not(exists(selectFrom('medical_records as a').select('a.id').whereRef('a.amends', '=', 'r.id'))));
  }
  return pageQuery(query, page, 'r.id').execute();
}

/** For each of `ids` (records the caller was shown) that has been amended, the id of the amendment (of the same pet). */
export async function amendmentsOf(db: Executor, access: AccessFilter, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await scoped(db, access)
    .selectFrom('medical_records')
    .select(['id', 'amends'])
    .where('amends', 'in', [...ids])
    .execute();
  return new Map(rows.flatMap((r) => (r.amends ? [[r.amends, r.id] as const] : [])));
}

export async function insertMedicalRecord(db: Executor, access: AccessFilter, row: MedicalRecordsTable): Promise<void> {
  await scoped(db, access).insert('medical_records', row);
}

/**
 * Deletes every medical record of a tenant: the one exception to append-only (sandbox reset).
 * The erasure row lets the delete trigger through for this tenant and is gone again before the
 * caller's transaction commits.
 */
export async function eraseMedicalRecords(db: Executor, tenantId: string, reason: string): Promise<void> {
  const tenant = scoped(db, { tenantId, locationIds: null });
  await tenant.insert('medical_record_erasures', { tenant_id: tenantId, reason });
  await tenant.deleteFrom('medical_records').execute();
  await tenant.deleteFrom('medical_record_erasures').execute();
}
