import { WorkerPool, workerScript } from '../../jobs/worker-pool.js';
import { ArchiveError } from './archive-error.js';
import type { Manifest } from './archive-manifest.js';
import { writeArchive, type ArchiveWriteInput } from './archive-writing.js';

export type { ArchiveWriteInput } from './archive-writing.js';

const writerScript = workerScript(import.meta.url, 'archive-writer.worker');
/** For callers without the job runner's pool (the CLI, tests): a worker per archive, nothing held between them. */
const ownPool = new WorkerPool(1);

/**
 * Writes the archive on a worker thread (archive-writer.worker.ts) and returns its manifest. An
 * ArchiveError there is an ArchiveError here; any other error keeps its message and code.
 */
export async function writeArchiveOffThread(input: ArchiveWriteInput, workers: WorkerPool = ownPool): Promise<Manifest> {
  try {
    return await workers.run<Manifest>({ script: writerScript, input, inline: writeArchive });
  } catch (err) {
    if (err instanceof Error && err.name === 'ArchiveError') throw new ArchiveError(err.message);
    throw err;
  }
}
