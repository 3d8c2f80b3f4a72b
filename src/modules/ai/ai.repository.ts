import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import { acrossTenants, insertCallersRow, scoped } from '../../db/access-policy.js';
import { databaseIdentity, runStatement, selectRows, type Database, type Executor } from '../../db/database.js';
import { VersionedCache } from '../../db/versioned-cache.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { AiAnswersTable, AiChunksTable, AiDocumentsTable, AiServicesTable } from './ai.table.js';

/**
 * The access policy of knowledge, on top of the tenant `scoped()` adds (ai_services is tenant-wide in
 * the manifest): a service with no locations is the whole tenant's (clinic-group policies) and every
 * caller of the tenant sees it; a service bound to locations is seen only by a caller who covers
 * every one of them, since its documents may come from any of them.
 */
function serviceVisible(actor: AccessFilter): Expression<SqlBool> {
  if (actor.locationIds === null) return sql<SqlBool>`1 = 1`;
  const ids = actor.locationIds.length ? actor.locationIds : [''];
  return sql<SqlBool>`(ai_services.location_ids is null or not exists (select 1 from json_each(ai_services.location_ids) j where j.value not in (${sql.join(ids)})))`;
}

export async function insertService(db: Executor, access: AccessFilter, row: AiServicesTable): Promise<void> {
  await scoped(db, access).insert('ai_services', row);
}

export async function findService(db: Executor, actor: AccessFilter, id: string): Promise<AiServicesTable | null> {
  const row = await scoped(db, actor).selectFrom('ai_services').selectAll().where('id', '=', id).where(serviceVisible(actor)).executeTakeFirst();
  return row ?? null;
}

export async function listServices(db: Executor, actor: AccessFilter, page: PageRequest): Promise<AiServicesTable[]> {
  const query = scoped(db, actor).selectFrom('ai_services').selectAll().where(serviceVisible(actor));
  return pageQuery(query, page).execute();
}

/**
 * Services a question in `scope` searches: visible to the caller, and tenant-wide or bound to at
 * least one of the scope's locations (`locationIds` null: every location the caller may see).
 */
export async function servicesInScope(db: Executor, actor: AccessFilter, locationIds: readonly string[] | null): Promise<AiServicesTable[]> {
  let query = scoped(db, actor).selectFrom('ai_services').selectAll().where(serviceVisible(actor));
  if (locationIds !== null) {
    const ids = locationIds.length ? locationIds : [''];
    query = query.where(
      sql<SqlBool>`(ai_services.location_ids is null or exists (select 1 from json_each(ai_services.location_ids) j where j.value in (${sql.join(ids)})))`,
    );
  }
  return query.orderBy('id').limit(200).execute();
}

export async function updateService(db: Executor, access: AccessFilter, id: string, patch: Partial<AiServicesTable>): Promise<void> {
  await scoped(db, access).updateTable('ai_services').set(patch).where('id', '=', id).execute();
}

/**
 * "A location-scoped caller may read this document": a document made from a pet document follows it
 * (a child row follows its parent), so it is read only while the caller may see that pet document,
 * i.e. its pet. Other documents are the service's, which the caller has already been shown to see.
 */
const readableBy = (db: Executor, access: AccessFilter) => (eb: ExpressionBuilder<Database, 'ai_documents'>) =>
  access.locationIds === null
    ? sql<SqlBool>`1 = 1`
    : eb.or([
        eb('source', '!=', 'pet_document'),
        eb.exists(scoped(db, access).selectFrom('documents as pd').select('pd.id').where('pd.id', '=', sql.ref<string>('ai_documents.source_document_id'))),
      ]);

/** Documents per service (every status) the caller may read, for the services' documentCount. */
export async function documentCounts(db: Executor, access: AccessFilter, serviceIds: readonly string[]): Promise<Map<string, number>> {
  if (serviceIds.length === 0) return new Map();
  const rows = await scoped(db, access)
    .selectFrom('ai_documents')
    .select(['service_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('service_id', 'in', serviceIds)
    .where(readableBy(db, access))
    .groupBy('service_id')
    .execute();
  return new Map(rows.map((r) => [r.service_id, Number(r.n)]));
}

export async function insertKnowledgeDocument(db: Executor, access: AccessFilter, row: AiDocumentsTable): Promise<void> {
  await scoped(db, access).insert('ai_documents', row);
}

/** The document of a service (one the caller has already been shown to see) holding these bytes, if any. */
export async function findDocumentBySha(db: Executor, access: AccessFilter, serviceId: string, sha256: string): Promise<AiDocumentsTable | null> {
  const query = scoped(db, access).selectFrom('ai_documents').selectAll().where('service_id', '=', serviceId).where('sha256', '=', sha256);
  return (await query.executeTakeFirst()) ?? null;
}

/** The documents of a service (one the caller has already been shown to see) that the caller may read. */
const readableDocuments = (db: Executor, access: AccessFilter, serviceId: string) =>
  scoped(db, access).selectFrom('ai_documents').selectAll().where('service_id', '=', serviceId).where(readableBy(db, access));

/** A document of a service (one the caller has already been shown to see), if the caller may read it. */
export async function findKnowledgeDocument(db: Executor, access: AccessFilter, serviceId: string, id: string): Promise<AiDocumentsTable | null> {
  return (await readableDocuments(db, access, serviceId).where('id', '=', id).executeTakeFirst()) ?? null;
}

export async function listKnowledgeDocuments(db: Executor, access: AccessFilter, serviceId: string, page: PageRequest): Promise<AiDocumentsTable[]> {
  return pageQuery(readableDocuments(db, access, serviceId), page).execute();
}

/** The next document the indexing job should take (a run of one job never overlaps another, so `extracting` left over is from a stop). */
export async function nextPendingDocument(db: Executor): Promise<AiDocumentsTable | null> {
  const query = acrossTenants(db, 'the indexing job takes the pending documents of every tenant')
    .selectFrom('ai_documents')
    .selectAll()
    .where('status', 'in', ['uploaded', 'extracting'])
    .orderBy('id')
    .limit(1);
  return (await query.executeTakeFirst()) ?? null;
}

/** The access of a job working on one tenant's document. */
export const tenantOf = (row: { tenant_id: string }): AccessFilter => ({ tenantId: row.tenant_id, locationIds: null });

export async function updateKnowledgeDocument(db: Executor, access: AccessFilter, id: string, patch: Partial<AiDocumentsTable>): Promise<void> {
  await scoped(db, access).updateTable('ai_documents').set(patch).where('id', '=', id).execute();
}

/** Queues every document of a service for indexing again (re-index after an embedding model change). */
export async function requeueServiceDocuments(db: Executor, access: AccessFilter, serviceId: string, now: string): Promise<number> {
  const result = await scoped(db, access)
    .updateTable('ai_documents')
    .set({ status: 'uploaded', error: null, chunks: 0, updated_at: now })
    .where('service_id', '=', serviceId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** ai_chunk_vectors has no tenant of its own: its rows are reached through the chunks or the service they belong to. */
const vectorsOf = (db: Executor) => acrossTenants(db, 'ai_chunk_vectors has no tenant: only rows of chunks or services selected through scoped()');

export async function deleteDocumentChunks(db: Executor, access: AccessFilter, documentId: string): Promise<void> {
  const chunks = scoped(db, access);
  await vectorsOf(db)
    .deleteFrom('ai_chunk_vectors')
    .where('chunk_seq', 'in', chunks.selectFrom('ai_chunks').select('seq').where('document_id', '=', documentId))
    .execute();
  await chunks.deleteFrom('ai_chunks').where('document_id', '=', documentId).execute();
}

export async function deleteServiceVectors(db: Executor, access: AccessFilter, serviceId: string): Promise<void> {
  await vectorsOf(db)
    .deleteFrom('ai_chunk_vectors')
    .where('service_id', 'in', scoped(db, access).selectFrom('ai_services').select('id').where('id', '=', serviceId))
    .execute();
}

export interface NewChunk {
  id: string;
  tenantId: string;
  serviceId: string;
  documentId: string;
  position: number;
  page: number;
  text: string;
  vector: { model: string; dimension: number; embedding: Buffer } | null;
}

/** Inserts chunks (and their vectors) in the caller's transaction; the FTS index follows by trigger. */
export async function insertChunks(db: Executor, access: AccessFilter, chunks: readonly NewChunk[]): Promise<void> {
  const tenant = scoped(db, access);
  for (const c of chunks) {
    const row: Omit<AiChunksTable, 'seq'> = {
      id: c.id,
      tenant_id: c.tenantId,
      service_id: c.serviceId,
      document_id: c.documentId,
      position: c.position,
      page: c.page,
      text: c.text,
    };
    // seq is generated by SQLite (the FTS rowid); scoped().insert takes the table's row type, which names it.
    await tenant.insert('ai_chunks', row as AiChunksTable);
    if (c.vector) {
      await vectorsOf(db)
        .insertInto('ai_chunk_vectors')
        .values({
          chunk_seq: tenant.selectFrom('ai_chunks').select('seq').where('id', '=', c.id),
          service_id: c.serviceId,
          model: c.vector.model,
          dimension: c.vector.dimension,
          embedding: c.vector.embedding,
        })
        .execute();
    }
  }
}

export interface ChunkHit {
  seq: number;
  id: string;
  service_id: string;
  document_id: string;
  page: number | null;
  position: number;
  text: string;
  title: string;
  /** bm25 (lower is better) or cosine distance (lower is better). */
  score: number;
}

const placeholders = (n: number): string => Array.from({ length: n }, () => '?').join(', ');

/**
 * A knowledge document made from a pet document is searchable only while that pet document exists:
 * from the moment its deletion commits, its chunks reach no answer, citation or prompt (the
 * ai-indexing job then drops them: retirePetDocuments). It follows its pet, too (a child row follows
 * its parent): only while the pet is at one of the service's locations, the rule it joined the
 * service under (document_outside_service), so a pet that moves away takes its record out of the old
 * location's answers, and back in when it returns.
 */
const sourceStillThere =
  "(d.source != 'pet_document' or exists (select 1 from documents pd join pets p on p.id = pd.pet_id and p.tenant_id = pd.tenant_id " +
  'join ai_services s on s.id = d.service_id and s.tenant_id = d.tenant_id ' +
  'where pd.id = d.source_document_id and pd.tenant_id = d.tenant_id and exists (select 1 from json_each(s.location_ids) j where j.value = p.location_id)))';

/** Knowledge documents (not yet failed) whose pet document was deleted, up to 500, in every tenant. */
export async function deletedPetDocuments(db: Executor): Promise<Array<{ id: string; tenant_id: string }>> {
  return acrossTenants(db, 'the indexing job retires the knowledge documents of deleted pet documents in every tenant')
    .selectFrom('ai_documents as d')
    .select(['d.id', 'd.tenant_id'])
    .where('d.source', '=', 'pet_document')
    .where('d.status', '!=', 'failed')
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('documents as pd').select('pd.id').whereRef('pd.id', '=', 'd.source_document_id').whereRef('pd.tenant_id', '=', 'd.tenant_id'))),
    )
    .limit(500)
    .execute();
}

/** Retires those documents (each in its own tenant): their chunks go and they are marked failed with the reason. */
export async function retirePetDocuments(db: Executor, documents: ReadonlyArray<{ id: string; tenant_id: string }>, now: string): Promise<void> {
  for (const doc of documents) {
    await deleteDocumentChunks(db, tenantOf(doc), doc.id);
    await updateKnowledgeDocument(db, tenantOf(doc), doc.id, { status: 'failed', chunks: 0, error: 'the pet document was deleted', updated_at: now });
  }
}

/**
 * The search statements below are hand-written SQL on the measured hot path of every knowledge query
 * (bench case m): each carries the caller's tenant in its text, and its locations through
 * `serviceIds`, the services `findService`/`servicesInScope` found visible to the caller.
 */
const handWritten = (db: Executor) => acrossTenants(db, 'hand-written: tenant_id in its text, locations through the visible service ids');

/** FTS5 bm25 search over the chunks of the given services (already filtered by visibility). */
export async function lexicalSearch(db: Executor, access: AccessFilter, serviceIds: readonly string[], match: string, limit: number): Promise<ChunkHit[]> {
  if (serviceIds.length === 0 || match === '') return [];
  const text =
    'select c.seq, c.id, c.service_id, c.document_id, c.page, c.position, c.text, d.title, bm25(ai_chunks_fts) as score ' +
    'from ai_chunks_fts join ai_chunks c on c.seq = ai_chunks_fts.rowid join ai_documents d on d.id = c.document_id ' +
    `where ai_chunks_fts match ? and c.tenant_id = ? and c.service_id in (${placeholders(serviceIds.length)}) and d.status = 'indexed' and ${sourceStillThere} ` +
    'order by score limit ?';
  return selectRows<ChunkHit>(handWritten(db), text, [match, access.tenantId, ...serviceIds, limit]);
}

/** The change counter of ai_chunks (triggers; migration 1205): it moves whenever a chunk is written or removed. */
export async function searchIndexVersion(db: Executor): Promise<number> {
  const counter = acrossTenants(db, 'ai_index_version is one counter of the whole index');
  const [row] = await selectRows<{ version: number }>(counter, 'select version from ai_index_version where id = 1', []);
  return row?.version ?? 0;
}

/**
 * One step of FTS5's incremental merge of the search index (`pages` leaf pages of work; a negative
 * count first takes every b-tree of the index into the merge, as 'optimize' would). Returns whether
 * the step changed anything. FTS5 writes a new b-tree per transaction that adds chunks, and a query
 * seeks each term in every b-tree: measured over 10,000 chunks written in a handful of transactions,
 * a knowledge query's search took 77 µs, and 27 µs once merged.
 */
export async function mergeSearchIndex(db: Executor, pages: number): Promise<boolean> {
  if (!Number.isInteger(pages) || pages === 0) throw new Error('mergeSearchIndex: pages is a non-zero integer');
  // FTS5 keeps the list of its b-trees in one record of its data table (rowid 10, FTS5_STRUCTURE_ROWID
  // in fts5_index.c); a step that merged nothing leaves it byte for byte as it was.
  const index = acrossTenants(db, "FTS5's own tables: the merge works on the whole index");
  const structure = async () => (await selectRows<{ block: Buffer }>(index, 'select block from ai_chunks_fts_data where id = 10', []))[0]?.block ?? null;
  const before = await structure();
  await runStatement(index, `insert into ai_chunks_fts(ai_chunks_fts, rank) values('merge', ${pages})`, []);
  const after = await structure();
  return before === null || after === null ? false : !before.equals(after);
}

/**
 * How many chunks of the services hold each word, counted up to `cap` (a capped count stops early:
 * it only has to tell rare words from common ones).
 */
export async function cappedTermCounts(
  db: Executor,
  access: AccessFilter,
  serviceIds: readonly string[],
  words: readonly string[],
  cap: number,
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  if (serviceIds.length === 0) return counts;
  const text =
    'select count(*) as n from (select 1 from ai_chunks_fts join ai_chunks c on c.seq = ai_chunks_fts.rowid ' +
    `where ai_chunks_fts match ? and c.tenant_id = ? and c.service_id in (${placeholders(serviceIds.length)}) limit ?)`;
  const version = await searchIndexVersion(db);
  const owner = databaseIdentity(db);
  const scope = `${cap}|${serviceIds.join(',')}|`;
  for (const word of words) {
    let n = knownTermCounts.get(owner, scope + word, version);
    if (n === undefined) {
      const [found] = await selectRows<{ n: number }>(handWritten(db), text, [`"${word}"`, access.tenantId, ...serviceIds, cap]);
      n = found?.n ?? 0;
      knownTermCounts.set(owner, scope + word, version, n);
    }
    counts.set(word, n);
  }
  return counts;
}

/**
 * Term counts per database, valid for one value of the index's change counter: a count changes
 * only when chunks are written, which moves the counter (triggers on ai_chunks), so a count is
 * reused exactly while it is still true. Each question word otherwise costs a capped FTS scan (about
 * a third of a lexical query over 10,000 chunks). Held across transactions (the query route runs
 * in one): none of the routes that read them writes chunks, so the counter never moves uncommitted there.
 */
const knownTermCounts = new VersionedCache<number>(20_000);

/** Nearest chunks by cosine distance (sqlite-vec's vec_distance_cosine), brute force within the services. */
export async function vectorSearch(
  db: Executor,
  access: AccessFilter,
  serviceIds: readonly string[],
  embedding: Buffer,
  model: string,
  limit: number,
): Promise<ChunkHit[]> {
  if (serviceIds.length === 0) return [];
  const text =
    'select c.seq, c.id, c.service_id, c.document_id, c.page, c.position, c.text, d.title, vec_distance_cosine(v.embedding, ?) as score ' +
    'from ai_chunk_vectors v join ai_chunks c on c.seq = v.chunk_seq join ai_documents d on d.id = c.document_id ' +
    `where v.service_id in (${placeholders(serviceIds.length)}) and c.tenant_id = ? and v.model = ? and v.dimension = ? and d.status = 'indexed' and ${sourceStillThere} ` +
    'order by score limit ?';
  return selectRows<ChunkHit>(handWritten(db), text, [embedding, ...serviceIds, access.tenantId, model, embedding.length / 4, limit]);
}

/**
 * Every knowledge query stores its answer (bench case m): the row goes in through prepared SQL text
 * rather than `scoped().insert`'s query builder, after the same check (answers are tenant-wide rows).
 */
export async function insertAnswer(db: Executor, access: AccessFilter, row: AiAnswersTable): Promise<void> {
  await insertCallersRow(db, access, 'ai_answers', row);
}

/** An answer is readable by a caller who covers every location it drew from (tenant-wide answers: tenant-wide callers). */
export async function findAnswer(db: Executor, actor: AccessFilter, id: string): Promise<AiAnswersTable | null> {
  let query = scoped(db, actor).selectFrom('ai_answers').selectAll().where('id', '=', id);
  if (actor.locationIds !== null) {
    const ids = actor.locationIds.length ? actor.locationIds : [''];
    query = query.where(
      sql<SqlBool>`(ai_answers.location_ids is not null and not exists (select 1 from json_each(ai_answers.location_ids) j where j.value not in (${sql.join(ids)})))`,
    );
  }
  return (await query.executeTakeFirst()) ?? null;
}

/** Sandbox reset: every knowledge row of a tenant (the FTS index follows by trigger). */
export async function deleteTenantKnowledge(db: Executor, tenantId: string): Promise<void> {
  const tenant = scoped(db, { tenantId, locationIds: null });
  await tenant.deleteFrom('ai_answers').execute();
  await vectorsOf(db).deleteFrom('ai_chunk_vectors').where('service_id', 'in', tenant.selectFrom('ai_services').select('id')).execute();
  await tenant.deleteFrom('ai_chunks').execute();
  await tenant.deleteFrom('ai_documents').execute();
  await tenant.deleteFrom('ai_services').execute();
}
