/**
 * The extraction worker (a thread of the job runner's WorkerPool): reads a knowledge document's
 * text file, splits it into pages and chunks, and streams the chunks back in parts, so neither the
 * decoding of a 25 MB file nor its chunking runs on the API's event loop. Same functions as inline.
 */
import { serveWorkerTask } from '../../jobs/worker-pool.js';
import { chunkPages, type TextChunk } from './knowledge-text.js';
import type { ExtractionInput, ExtractionResult } from './knowledge-extraction.js';
import { pagesOf } from './knowledge-pages.js';

/** Characters of chunk text per message: each structured clone the event loop reads stays under a millisecond or so. */
const partChars = 512 * 1024;

serveWorkerTask<ExtractionInput, ExtractionResult, TextChunk[]>(async (input, send) => {
  const pages = await pagesOf(input);
  const chunks = chunkPages(pages);
  let part: TextChunk[] = [];
  let size = 0;
  for (const chunk of chunks) {
    part.push(chunk);
    size += chunk.text.length;
    if (size >= partChars) {
      send(part);
      part = [];
      size = 0;
    }
  }
  if (part.length > 0) send(part);
  return { pages: pages.length, chunks: chunks.length };
});
