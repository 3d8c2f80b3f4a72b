import type { Environment } from '../../config.js';
import { WorkerPool, workerScript } from '../../jobs/worker-pool.js';
import { extractPdfText, type PdfTextLimits } from '../documents/index.js';
import type { AiDocumentsTable } from './ai.table.js';
import type { TextChunk } from './knowledge-text.js';
import type { KnowledgeFiles } from './knowledge.service.js';

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

/**
 * A document's pages, chunked, from wherever it lives; throws IndexingFailure with the reason.
 * PDFs are read by the documents module's PDF worker, text files read and everything chunked by the
 * extraction worker: nothing of it runs on the event loop.
 */
export async function extractChunks(
  doc: AiDocumentsTable,
  env: Environment,
  files: KnowledgeFiles,
  workers?: WorkerPool,
): Promise<{ pages: number; chunks: TextChunk[] }> {
  if (doc.source === 'text') return chunksOffThread({ kind: 'text', text: doc.source_text ?? '' }, workers);
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
    return chunksOffThread({ kind: 'pages', pages: result.pages }, workers);
  }
  try {
    return await chunksOffThread({ kind: 'file', file }, workers);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw new IndexingFailure(doc.source === 'pet_document' ? 'the pet document was deleted' : 'the stored file is missing');
    throw err;
  }
}
