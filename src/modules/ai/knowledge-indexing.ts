import { promises as fs } from 'node:fs';
import type { Environment } from '../../config.js';
import { databaseIdentity, type Executor } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import type { EnvironmentStore } from '../../db/stores.js';
import type { JobDefinition, JobResult } from '../../jobs/job-definition.js';
import { extractPdfText, type PdfTextLimits } from '../documents/index.js';
import {
  deleteDocumentChunks,
  insertChunks,
  deletedPetDocuments,
  mergeSearchIndex,
  nextPendingDocument,
  retirePetDocuments,
  searchIndexVersion,
  updateKnowledgeDocument,
  updateService,
  type NewChunk,
} from './ai.repository.js';
import type { AiDocumentsTable, AiServicesTable } from './ai.table.js';
import { chunkPages, textPages } from './knowledge-text.js';
import type { KnowledgeFiles } from './knowledge.service.js';
import { LlmUnavailable, type LlmClient } from './llm-client.js';

/** Guards of PDF extraction for knowledge documents (a worker with a heap cap and a deadline). */
export const knowledgePdfLimits: PdfTextLimits = { maxPages: 2000, maxChars: 5_000_000, timeoutMs: 60_000, maxHeapMb: 256 };

/** Chunks written per transaction: progress shows between them and API writes are not held up. */
const chunkBatch = 200;
/** Texts per embeddings request. */
const embedBatch = 32;

class IndexingFailure extends Error {}

export interface IndexingDeps {
  files: KnowledgeFiles;
  llm: LlmClient;
}

/** The pages of a document's text, from wherever it lives; throws IndexingFailure with the reason. */
async function extractPages(doc: AiDocumentsTable, env: Environment, files: KnowledgeFiles): Promise<string[]> {
  if (doc.source === 'text') return textPages(doc.source_text ?? '');
  const folder = doc.source === 'file' ? files.knowledge : files.pets;
  if (!doc.storage_key) throw new IndexingFailure('the document has no stored file');
  const file = folder.pathOf(env, doc.storage_key);
  if (doc.content_type === 'application/pdf') {
    const result = await extractPdfText(file, knowledgePdfLimits);
    if (!result.ok) {
      const encrypted = /password|encrypt/i.test(result.reason);
      throw new IndexingFailure(encrypted ? `the PDF is encrypted (${result.reason})` : `the PDF could not be read (${result.reason})`);
    }
    if (result.pages.every((p) => p.trim() === '')) throw new IndexingFailure('the PDF has no text layer (a scan?); nothing to index');
    return result.pages;
  }
  try {
    return textPages(await fs.readFile(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw new IndexingFailure(doc.source === 'pet_document' ? 'the pet document was deleted' : 'the stored file is missing');
    throw err;
  }
}

async function loadService(db: Executor, id: string): Promise<AiServicesTable> {
  const service = await db.selectFrom('ai_services').selectAll().where('id', '=', id).executeTakeFirst();
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
  await store.writes.run((trx) => updateKnowledgeDocument(trx, doc.id, { status: 'extracting', chunks: 0, error: null, updated_at: at() }));
  const pages = await extractPages(doc, store.env, deps.files);
  const chunks = chunkPages(pages);
  if (chunks.length === 0) throw new IndexingFailure('the document has no text to index');
  const service = await loadService(store.db, doc.service_id);
  let model = service.embedding_model;
  let note: string | null = null;
  if (model !== null && deps.llm.embeddingModel !== model) {
    throw new IndexingFailure(
      `embedding_mismatch: the service is pinned to ${model}, the appliance is configured with ${deps.llm.embeddingModel ?? 'none'}; re-index the service`,
    );
  }
  await store.writes.run(async (trx) => {
    await deleteDocumentChunks(trx, doc.id);
    await updateKnowledgeDocument(trx, doc.id, { pages: pages.length, chunks_total: chunks.length, updated_at: at() });
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
        await updateService(trx, doc.tenant_id, service.id, { dimension, updated_at: at() });
        service.dimension = dimension;
      }
      await insertChunks(trx, rows);
      await updateKnowledgeDocument(trx, doc.id, { chunks: start + batch.length, updated_at: at() });
    });
  }
  await store.writes.run((trx) => updateKnowledgeDocument(trx, doc.id, { status: 'indexed', error: note, indexed_at: at(), updated_at: at() }));
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
      failed++;
      const reason = err instanceof IndexingFailure ? err.message : `indexing failed: ${err instanceof Error ? err.message : String(err)}`;
      await store.writes.run(async (trx) => {
        await deleteDocumentChunks(trx, doc.id);
        await updateKnowledgeDocument(trx, doc.id, { status: 'failed', error: reason.slice(0, 1000), updated_at: new Date(now()).toISOString() });
      });
    }
  }
  const mergeSteps = await compactSearchIndex(store);
  return { indexed, failed, chunks, retired, mergeSteps };
}

/** Leaf pages of merge work per step: each step is its own short write transaction (a few ms). */
const mergePages = 500;
/** Steps per run at most; a run that stops short leaves the rest to the next (the job polls every 2 s). */
const maxMergeSteps = 40;
/** Per database (its connection): the chunk counter the index was last compacted at. */
const compactedAt = new WeakMap<object, number>();

/**
 * Compacts the search index after chunks changed, by any path (the counter is kept by triggers):
 * FTS5 adds a b-tree per transaction that writes chunks, and every query pays a seek in each, so
 * the job merges them in short steps (FTS5's incremental merge) until a step finds nothing left.
 * Returns the steps taken (0: the index had not changed since the last compaction).
 */
export async function compactSearchIndex(store: EnvironmentStore): Promise<number> {
  const owner = databaseIdentity(store.db);
  const version = await searchIndexVersion(store.db);
  if (compactedAt.get(owner) === version) return 0;
  let steps = 0;
  let pages = -mergePages;
  while (steps < maxMergeSteps) {
    const work = pages;
    const changed = await store.writes.run((trx) => mergeSearchIndex(trx, work));
    steps++;
    pages = mergePages;
    if (!changed) {
      // Merges write the FTS tables only, not ai_chunks: the counter read before still describes the index.
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
    run: (ctx) => indexPending(ctx.store, deps, () => ctx.clock.now(), ctx.signal),
  };
}
