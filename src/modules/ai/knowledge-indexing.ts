import { scoped } from '../../db/access-policy.js';
import { databaseIdentity, type Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import { newId } from '../../db/ids.js';
import type { EnvironmentStore } from '../../db/stores.js';
import type { JobDefinition, JobResult } from '../../jobs/job-definition.js';
import { WorkerPoolClosed, type WorkerPool } from '../../jobs/worker-pool.js';
import {
  deleteDocumentChunks,
  insertChunks,
  deletedPetDocuments,
  mergeSearchIndex,
  nextPendingDocument,
  retirePetDocuments,
  searchIndexVersion,
  tenantOf,
  updateKnowledgeDocument,
  updateService,
  type NewChunk,
} from './ai.repository.js';
import type { AiDocumentsTable, AiServicesTable } from './ai.table.js';
import {
  extractChunks,
  fromSource,
  IndexingFailure,
  mergeSearchIndexOffThread,
  searchMergeWorkerAvailable,
  writeChunksOffThread,
} from './knowledge-extraction.js';
import type { KnowledgeFiles } from './knowledge.service.js';
import { LlmUnavailable, type LlmClient } from './llm-client.js';

export { knowledgePdfLimits } from './knowledge-extraction.js';

/**
 * Chunks written per transaction: progress shows between them and API writes are not held up. Each
 * chunk also goes into the FTS index (a trigger): 50 keep a transaction to a few ms of the event loop.
 */
const chunkBatch = 50;
/**
 * Without embeddings, the worker writes the chunks itself (knowledge-indexing.worker.ts), in write
 * transactions of about `writeSliceMs`, each in a turn that holds the API's connection (its queries
 * wait for the turn to end, asynchronously); between turns the connection is the API's for at least
 * `writeGapMs`.
 */
const writeSliceMs = 4;
const writeGapMs = 4;
/** Texts per embeddings request. */
const embedBatch = 32;

export interface IndexingDeps {
  files: KnowledgeFiles;
  llm: LlmClient;
  /** Worker threads for extraction and chunking (the job runner's); without it, a worker per task of the module's own. */
  workers?: WorkerPool | undefined;
}

async function loadService(db: Executor, access: AccessFilter, id: string): Promise<AiServicesTable> {
  const service = await scoped(db, access).selectFrom('ai_services').selectAll().where('id', '=', id).executeTakeFirst();
  if (!service) throw new IndexingFailure('the knowledge service is gone');
  return service;
}

const toBlob = (vector: Float32Array): Buffer => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);

/**
 * Indexes one document: extracts its pages, chunks them, embeds the chunks when the service has
 * an embedding model pinned, and writes them in batches (progress in `chunks` / `chunks_total`).
 */
async function indexDocument(
  store: EnvironmentStore,
  doc: AiDocumentsTable,
  deps: IndexingDeps,
  now: () => number,
): Promise<{ chunks: number; vectors: boolean }> {
  const at = () => new Date(now()).toISOString();
  await store.writes.run((trx) => updateKnowledgeDocument(trx, tenantOf(doc), doc.id, { status: 'extracting', chunks: 0, error: null, updated_at: at() }));
  const service = await loadService(store.db, tenantOf(doc), doc.service_id);
  if (service.embedding_model === null && store.file !== ':memory:') {
    // Nothing to embed: the chunks never come to this thread (issue 27.4: 25,000 chunks a 25 MB upload).
    const written = await fromSource(doc, store.env, deps.files, (source) =>
      writeChunksOffThread(
        {
          source,
          file: store.file,
          document: { id: doc.id, tenantId: doc.tenant_id, serviceId: doc.service_id },
          clockOffsetMs: now() - Date.now(),
          sliceMs: writeSliceMs,
        },
        // Each turn holds the API's connection (its queries queue meanwhile, without blocking the loop).
        { hold: (during) => store.db.connection().execute(during), gapMs: writeGapMs },
        deps.workers,
      ),
    );
    if (written.chunks === 0) throw new IndexingFailure('the document has no text to index');
    await store.writes.run((trx) =>
      updateKnowledgeDocument(trx, tenantOf(doc), doc.id, { status: 'indexed', chunks: written.chunks, error: null, indexed_at: at(), updated_at: at() }),
    );
    return { chunks: written.chunks, vectors: false };
  }
  const { pages, chunks } = await extractChunks(doc, store.env, deps.files, deps.workers);
  if (chunks.length === 0) throw new IndexingFailure('the document has no text to index');
  let model = service.embedding_model;
  let note: string | null = null;
  if (model !== null && deps.llm.embeddingModel !== model) {
    throw new IndexingFailure(
      `embedding_mismatch: the service is pinned to ${model}, the appliance is configured with ${deps.llm.embeddingModel ?? 'none'}; re-index the service`,
    );
  }
  await store.writes.run(async (trx) => {
    await deleteDocumentChunks(trx, tenantOf(doc), doc.id);
    await updateKnowledgeDocument(trx, tenantOf(doc), doc.id, { pages, chunks_total: chunks.length, updated_at: at() });
  });
  let dimension = service.dimension;
  for (let start = 0; start < chunks.length; start += chunkBatch) {
    const batch = chunks.slice(start, start + chunkBatch);
    const vectors: Array<Float32Array | null> = batch.map(() => null);
    if (model !== null) {
      try {
        for (let i = 0; i < batch.length; i += embedBatch) {
          const got = await deps.llm.embed(batch.slice(i, i + embedBatch).map((c) => c.text));
          got.forEach((v, j) => (vectors[i + j] = v));
        }
      } catch (err) {
        if (!(err instanceof LlmUnavailable)) throw err;
        // Lexical retrieval still finds the document; re-indexing adds the vectors later.
        note = `indexed without vectors: ${err.reason}; re-index the service to add them`;
        model = null;
        vectors.fill(null);
      }
      const first = vectors.find((v) => v !== null);
      if (first && dimension !== null && first.length !== dimension) {
        throw new IndexingFailure(
          `embedding_mismatch: the service is pinned to dimension ${dimension}, ${service.embedding_model} now answers ${first.length}; re-index the service`,
        );
      }
      if (first && vectors.some((v) => v !== null && v.length !== first.length))
        throw new IndexingFailure('the embedding model answered vectors of different lengths');
      if (first && dimension === null) dimension = first.length;
    }
    const rows: NewChunk[] = batch.map((c, i) => {
      const v = vectors[i];
      return {
        id: newId('chk'),
        tenantId: doc.tenant_id,
        serviceId: doc.service_id,
        documentId: doc.id,
        position: c.position,
        page: c.page,
        text: c.text,
        vector: v && model ? { model, dimension: v.length, embedding: toBlob(v) } : null,
      };
    });
    await store.writes.run(async (trx) => {
      if (dimension !== null && service.dimension === null) {
        // Pinned by the first vectors stored; a concurrent pin of another length would fail the CHECK on the vectors.
        await updateService(trx, tenantOf(doc), service.id, { dimension, updated_at: at() });
        service.dimension = dimension;
      }
      await insertChunks(trx, tenantOf(doc), rows);
      await updateKnowledgeDocument(trx, tenantOf(doc), doc.id, { chunks: start + batch.length, updated_at: at() });
    });
  }
  await store.writes.run((trx) => updateKnowledgeDocument(trx, tenantOf(doc), doc.id, { status: 'indexed', error: note, indexed_at: at(), updated_at: at() }));
  return { chunks: chunks.length, vectors: model !== null };
}

/** Indexes every document waiting in one environment, oldest first; a failure marks that document failed with the reason. */
export async function indexPending(store: EnvironmentStore, deps: IndexingDeps, now: () => number, signal?: AbortSignal): Promise<JobResult> {
  let indexed = 0;
  let failed = 0;
  let chunks = 0;
  // Pet documents deleted since the last run: their knowledge chunks go (search already skips them).
  // (read first: the job polls every 2 s and should not take a write transaction for nothing).
  const gone = await deletedPetDocuments(store.db);
  if (gone.length > 0) await store.writes.run((trx) => retirePetDocuments(trx, gone, new Date(now()).toISOString()));
  const retired = gone.length;
  for (;;) {
    if (signal?.aborted) break;
    const doc = await nextPendingDocument(store.db);
    if (!doc) break;
    try {
      const done = await indexDocument(store, doc, deps, now);
      indexed++;
      chunks += done.chunks;
    } catch (err) {
      // The process is stopping: the document stays where it was and is indexed again at the next start.
      if (err instanceof WorkerPoolClosed) throw err;
      failed++;
      const reason = err instanceof IndexingFailure ? err.message : `indexing failed: ${err instanceof Error ? err.message : String(err)}`;
      await store.writes.run(async (trx) => {
        await deleteDocumentChunks(trx, tenantOf(doc), doc.id);
        await updateKnowledgeDocument(trx, tenantOf(doc), doc.id, {
          status: 'failed',
          error: reason.slice(0, 1000),
          updated_at: new Date(now()).toISOString(),
        });
      });
    }
  }
  const mergeSteps = await compactSearchIndex(store, deps.workers);
  return { indexed, failed, chunks, retired, mergeSteps };
}

/**
 * Leaf pages of merge work per step: each step is its own short write transaction. On the API's
 * thread, 500 pages measured 90–140 ms a step during the bench's three 25 MB uploads (a stall of the
 * event loop), 100 still 65–150 ms under load: the steps now run on a worker thread
 * (search-merge.worker.ts), each in a turn at the write lock; 100 pages keep a turn short.
 */
const mergePages = 100;
/** Steps per run at most (the same merge work per run as 40 steps of 500); a run that stops short leaves the rest to the next (the job polls every 2 s). */
const maxMergeSteps = 200;
/** Per database (its connection): the chunk counter the index was last compacted at. */
const compactedAt = new WeakMap<object, number>();

/**
 * Compacts the search index after chunks changed, by any path (the counter is kept by triggers):
 * FTS5 adds a b-tree per transaction that writes chunks, and every query pays a seek in each, so
 * the job merges them in short steps (FTS5's incremental merge) until a step finds nothing left.
 * Returns the steps taken (0: the index had not changed since the last compaction). The steps run
 * on a worker thread with its own connection; on the API's connection for an in-memory database
 * (or a build without the worker module).
 */
export async function compactSearchIndex(store: EnvironmentStore, workers?: WorkerPool): Promise<number> {
  const owner = databaseIdentity(store.db);
  const version = await searchIndexVersion(store.db);
  if (compactedAt.get(owner) === version) return 0;
  if (store.file !== ':memory:' && searchMergeWorkerAvailable()) {
    const merged = await mergeSearchIndexOffThread(
      { file: store.file, pages: mergePages, maxSteps: maxMergeSteps },
      { hold: (during) => store.db.connection().execute(during), gapMs: writeGapMs },
      workers,
    );
    // Merges write the FTS tables only, not ai_chunks: the counter read before still describes the index.
    if (merged.finished) compactedAt.set(owner, version);
    return merged.steps;
  }
  let steps = 0;
  let pages = -mergePages;
  while (steps < maxMergeSteps) {
    const work = pages;
    const changed = await store.writes.run((trx) => mergeSearchIndex(trx, work));
    steps++;
    pages = mergePages;
    if (!changed) {
      compactedAt.set(owner, version);
      break;
    }
  }
  return steps;
}

/** `ai-indexing`: polled every 2 s, queued at once after an upload, and runnable by POST /v1/jobs/ai-indexing/run. */
export function aiIndexingJob(deps: IndexingDeps): JobDefinition {
  return {
    name: 'ai-indexing',
    description: 'Extracts, chunks, embeds (when configured) and indexes uploaded knowledge documents; progress is on each document (chunks of chunksTotal).',
    schedule: { everyMs: 2000 },
    maxAttempts: 3,
    run: (ctx) => indexPending(ctx.store, { ...deps, workers: ctx.workers }, () => ctx.clock.now(), ctx.signal),
  };
}
