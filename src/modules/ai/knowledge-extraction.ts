import type { Environment } from '../../config.js';
import { WorkerPool, workerScript, workerScriptPresent } from '../../jobs/worker-pool.js';
import { extractPdfText, type PdfTextLimits } from '../documents/index.js';
import type { AiDocumentsTable } from './ai.table.js';
import type { TextChunk } from './knowledge-text.js';
import type { KnowledgeFiles } from './knowledge.service.js';
import { runWithTurns } from '../../db/write-turns.js';

/** Guards of PDF extraction for knowledge documents (a worker with a heap cap and a deadline). */
export const knowledgePdfLimits: PdfTextLimits = { maxPages: 2000, maxChars: 5_000_000, timeoutMs: 60_000, maxHeapMb: 256 };

/** A reason a document cannot be indexed, shown on the document as it is. */
export class IndexingFailure extends Error {}

/** What the extraction worker is given: a text file to read, a text, or the pages of a PDF read already. */
export type ExtractionInput = { kind: 'file'; file: string } | { kind: 'text'; text: string } | { kind: 'pages'; pages: string[] };
export interface ExtractionResult {
  pages: number;
  chunks: number;
}

const extractionWorker = workerScript(import.meta.url, 'knowledge-extraction.worker');
/** Heap of one extraction worker: a 25 MB file is ~50 MB as a string, its chunks as much again. */
const extractionHeapMb = 512;
/** For callers without the job runner's pool (a script, a test): per-task workers, nothing held between tasks. */
const ownPool = new WorkerPool(1);

/**
 * Reads, pages and chunks a text on a worker thread (see knowledge-extraction.worker.ts): the same
 * chunks `chunkPages(textPages(…))` gives inline. A file's read errors come back as they were thrown
 * (ENOENT kept as the code).
 */
export async function chunksOffThread(input: ExtractionInput, workers: WorkerPool = ownPool): Promise<{ pages: number; chunks: TextChunk[] }> {
  const chunks: TextChunk[] = [];
  const result = await workers.run<ExtractionResult, TextChunk[]>({
    script: extractionWorker,
    input,
    onPart: (part) => {
      for (const chunk of part) chunks.push(chunk);
    },
    resourceLimits: { maxOldGenerationSizeMb: extractionHeapMb },
  });
  if (chunks.length !== result.chunks) throw new Error(`the extraction worker sent ${chunks.length} of ${result.chunks} chunks`);
  return { pages: result.pages, chunks };
}

/** What the indexing worker is given: the document's text, where to write its chunks, and how. */
export interface ChunkWriting {
  source: ExtractionInput;
  /** The environment's SQLite file (the document's own store: sandbox and live never share a file). */
  file: string;
  document: { id: string; tenantId: string; serviceId: string };
  /** Added to the worker's Date.now() for updated_at: the job's clock (a test's may be set apart). */
  clockOffsetMs: number;
  /** Longest write transaction (then the worker commits). */
  sliceMs: number;
  /** Turns at the write lock (src/db/write-turns.ts). */
  turns: Int32Array;
}
export interface WrittenChunks {
  pages: number;
  /** 0: the document has no text, and nothing was written (its old chunks are still there). */
  chunks: number;
}

const indexingWorker = workerScript(import.meta.url, 'knowledge-indexing.worker');

/**
 * Reads, chunks and writes a document's chunks on a worker thread, through its own connection (see
 * knowledge-indexing.worker.ts): the same rows as insertChunks of extractChunks' chunks, and
 * progress (`chunks`, `pages`, `chunks_total`) on the document; its status is left to the caller.
 */
export async function writeChunksOffThread(
  writing: Omit<ChunkWriting, 'turns'>,
  turns: { hold: (during: () => Promise<void>) => Promise<void>; gapMs: number },
  workers: WorkerPool = ownPool,
): Promise<WrittenChunks> {
  return runWithTurns(
    (cell) =>
      workers.run<WrittenChunks>({
        script: indexingWorker,
        input: { ...writing, turns: cell } satisfies ChunkWriting,
        resourceLimits: { maxOldGenerationSizeMb: extractionHeapMb },
      }),
    turns.hold,
    turns.gapMs,
  );
}

/** What the search merge worker is given (search-merge.worker.ts). */
export interface SearchMerge {
  /** The environment's SQLite file. */
  file: string;
  /** Leaf pages of merge work per step (the first step takes every b-tree of the index into the merge, as 'optimize' would). */
  pages: number;
  /** Steps at most; the rest is left to the next run. */
  maxSteps: number;
  turns: Int32Array;
}
export interface SearchMerged {
  steps: number;
  /** A step found nothing left to merge. */
  finished: boolean;
}

const searchMergeWorker = workerScript(import.meta.url, 'search-merge.worker');
/** False in a build without the worker module beside this one (a single-file bundle): the merge then runs on the API's connection. */
export const searchMergeWorkerAvailable = (): boolean => workerScriptPresent(searchMergeWorker);

/** FTS5's incremental merge of the search index on a worker thread, each step in a turn at the write lock (see search-merge.worker.ts). */
export async function mergeSearchIndexOffThread(
  merge: Omit<SearchMerge, 'turns'>,
  turns: { hold: (during: () => Promise<void>) => Promise<void>; gapMs: number },
  workers: WorkerPool = ownPool,
): Promise<SearchMerged> {
  return runWithTurns(
    (cell) => workers.run<SearchMerged>({ script: searchMergeWorker, input: { ...merge, turns: cell } satisfies SearchMerge }),
    turns.hold,
    turns.gapMs,
  );
}

/**
 * A document's text as a worker takes it, from wherever it lives, and `work` on it; throws
 * IndexingFailure with the reason. PDFs are read by the documents module's PDF worker, text files
 * read and everything chunked by the worker: nothing of it runs on the event loop.
 */
export async function fromSource<T>(doc: AiDocumentsTable, env: Environment, files: KnowledgeFiles, work: (input: ExtractionInput) => Promise<T>): Promise<T> {
  if (doc.source === 'text') return work({ kind: 'text', text: doc.source_text ?? '' });
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
    return work({ kind: 'pages', pages: result.pages });
  }
  try {
    return await work({ kind: 'file', file });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw new IndexingFailure(doc.source === 'pet_document' ? 'the pet document was deleted' : 'the stored file is missing');
    throw err;
  }
}

/** A document's pages, chunked (on a worker), from wherever it lives; throws IndexingFailure with the reason. */
export async function extractChunks(
  doc: AiDocumentsTable,
  env: Environment,
  files: KnowledgeFiles,
  workers?: WorkerPool,
): Promise<{ pages: number; chunks: TextChunk[] }> {
  return fromSource(doc, env, files, (input) => chunksOffThread(input, workers));
}
