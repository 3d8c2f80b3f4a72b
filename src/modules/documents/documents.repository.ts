import { scoped } from '../../db/access-policy.js';
import type { Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { DocumentsTable } from './documents.table.js';
import type { ListDocumentsFilters } from './documents.schema.js';

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
 * A document is visible exactly when its pet is (its policy: tenant always, the pet's current
 * location when the caller is location-scoped), so documents follow a pet that moves.
 */
export async function findDocument(db: Executor, actor: AccessFilter, id: string): Promise<DocumentRow | null> {
  const query = scoped(db, actor).selectFrom('documents').select(columns).where('id', '=', id);
  return (await query.executeTakeFirst()) ?? null;
}

/** Documents of a pet the caller has already been shown to see, newest first. */
export async function listPetDocuments(
  db: Executor,
  access: AccessFilter,
  petId: string,
  page: PageRequest,
  filters: ListDocumentsFilters,
): Promise<DocumentRow[]> {
  let query = scoped(db, access).selectFrom('documents').select(columns).where('pet_id', '=', petId);
  if (filters.kind !== undefined) query = query.where('kind', '=', filters.kind);
  return pageQuery(query, page).execute();
}

export async function insertDocument(db: Executor, access: AccessFilter, row: DocumentsTable): Promise<void> {
  await scoped(db, access).insert('documents', row);
}

export async function deleteDocumentRow(db: Executor, access: AccessFilter, id: string): Promise<void> {
  await scoped(db, access).deleteFrom('documents').where('id', '=', id).execute();
}

/** The stored text for the search index (null when none was extracted). */
export async function documentText(db: Executor, access: AccessFilter, id: string): Promise<string | null> {
  const row = await scoped(db, access).selectFrom('documents').select('extracted_text').where('id', '=', id).executeTakeFirst();
  return row?.extracted_text ?? null;
}
