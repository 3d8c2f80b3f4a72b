import type { Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { ListMedicalRecordsFilters } from './medical-records.schema.js';
import type { MedicalRecordsTable } from './medical-records.table.js';
import { visiblePetIds } from '../pets/index.js';

/** A record is visible when its pet is: the record follows the pet, wherever it is kept now. */
export async function findMedicalRecord(db: Executor, actor: AccessFilter, id: string): Promise<MedicalRecordsTable | null> {
  const query = db
    .selectFrom('medical_records')
    .selectAll()
    .where('id', '=', id)
    .where('tenant_id', '=', actor.tenantId)
    .where('pet_id', 'in', visiblePetIds(db, actor));
  return (await query.executeTakeFirst()) ?? null;
}

/** The records of one pet the caller already proved it can see (findPet), newest first. */
export async function listMedicalRecords(
  db: Executor,
  tenantId: string,
  petId: string,
  page: PageRequest,
  filters: ListMedicalRecordsFilters,
): Promise<MedicalRecordsTable[]> {
  let query = db.selectFrom('medical_records as r').selectAll('r').where('r.tenant_id', '=', tenantId).where('r.pet_id', '=', petId);
  if (filters.kind !== undefined) query = query.where('r.kind', '=', filters.kind);
  if (filters.current === true) {
    query = query.where(({ not, exists, selectFrom }) => not(exists(selectFrom('medical_records as a').select('a.id').whereRef('a.amends', '=', 'r.id'))));
  }
  return pageQuery(query, page, 'r.id').execute();
}

/** For each of `ids` that has been amended, the id of the amendment. */
export async function amendmentsOf(db: Executor, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('medical_records')
    .select(['id', 'amends'])
    .where('amends', 'in', [...ids])
    .execute();
  return new Map(rows.flatMap((r) => (r.amends ? [[r.amends, r.id] as const] : [])));
}

export async function insertMedicalRecord(db: Executor, row: MedicalRecordsTable): Promise<void> {
  await db.insertInto('medical_records').values(row).execute();
}

/**
 * Deletes every medical record of a tenant: the one exception to append-only (sandbox reset).
 * The erasure row lets the delete trigger through for this tenant and is gone again before the
 * caller's transaction commits.
 */
export async function eraseMedicalRecords(db: Executor, tenantId: string, reason: string): Promise<void> {
  await db.insertInto('medical_record_erasures').values({ tenant_id: tenantId, reason }).execute();
  await db.deleteFrom('medical_records').where('tenant_id', '=', tenantId).execute();
  await db.deleteFrom('medical_record_erasures').where('tenant_id', '=', tenantId).execute();
}
