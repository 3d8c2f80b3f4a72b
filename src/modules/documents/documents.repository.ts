import type { Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { DocumentsTable } from './documents.table.js';
import type { ListDocumentsFilters } from './documents.schema.js';
import { visiblePetIds } from '../pets/index.js';

/** A document row without its (possibly large) extracted text. */
export type DocumentRow = Omit<DocumentsTable, 'extracted_text'>;

const columns = [
  'id',
  'tenant_id',
  'pet_id',
  'title',
  'kind',
  'content_type',
  'declared_content_type',
  'filename',
  'size_bytes',
  'sha256',
  'storage_key',
  'text_status',
  'text_length',
  'page_count',
  'created_by',
  'created_at',
] as const satisfies ReadonlyArray<keyof DocumentRow>;

/**
 * The access policy: a document is visible exactly when its pet is (tenant always, the pet's
 * current location when the caller is location-scoped), so documents follow a pet that moves.
 */
export async function findDocument(db: Executor, actor: AccessFilter, id: string): Promise<DocumentRow | null> {
  const query = db
    .selectFrom('documents')
    .select(columns)
    .where('id', '=', id)
    .where('tenant_id', '=', actor.tenantId)
    .where('pet_id', 'in', visiblePetIds(db, actor));
  return (await query.executeTakeFirst()) ?? null;
}

/** Documents of a pet the caller has already been shown to see, newest first. */
export async function listPetDocuments(
  db: Executor,
  tenantId: string,
  petId: string,
  page: PageRequest,
  filters: ListDocumentsFilters,
): Promise<DocumentRow[]> {
  let query = db.selectFrom('documents').select(columns).where('tenant_id', '=', tenantId).where('pet_id', '=', petId);
  if (filters.kind !== undefined) query = query.where('kind', '=', filters.kind);
  return pageQuery(query, page).execute();
}

export async function insertDocument(db: Executor, row: DocumentsTable): Promise<void> {
  await db.insertInto('documents').values(row).execute();
}

export async function deleteDocumentRow(db: Executor, tenantId: string, id: string): Promise<void> {
  await db.deleteFrom('documents').where('id', '=', id).where('tenant_id', '=', tenantId).execute();
}

/** The stored text for the search index (null when none was extracted). */
export async function documentText(db: Executor, tenantId: string, id: string): Promise<string | null> {
  const row = await db.selectFrom('documents').select('extracted_text').where('id', '=', id).where('tenant_id', '=', tenantId).executeTakeFirst();
  return row?.extracted_text ?? null;
}
