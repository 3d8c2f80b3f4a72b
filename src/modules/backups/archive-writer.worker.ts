/**
 * The archive writer (a worker thread): writeArchive (archive-writing.ts) off the event loop. The
 * hashing, the tar blocks, zlib's stream of small chunks and the cipher of a 10 GB data dir would
 * otherwise take the API's thread for as long as the backup lasts.
 */
import { serveWorkerTask } from '../../jobs/worker-pool.js';
import { ArchiveError } from './archive-error.js';
import type { Manifest } from './archive-manifest.js';
import { writeArchive, type ArchiveWriteInput } from './archive-writing.js';

serveWorkerTask<ArchiveWriteInput, Manifest>(async (input) => {
  try {
    return await writeArchive(input);
  } catch (err) {
    // Named, so the thread that waits rethrows it as the ArchiveError it is.
    if (err instanceof ArchiveError) err.name = 'ArchiveError';
    throw err;
  }
});
