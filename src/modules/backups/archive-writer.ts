import { WorkerPool, workerScript } from '../../jobs/worker-pool.js';
import { ArchiveError } from './archive-error.js';
import type { Manifest, ManifestFile } from './archive-manifest.js';

/** What the archive writer is given: every file to archive, in order, and the manifest's fields but its files. */
export interface ArchiveWriteInput {
  /** [path in the archive, file to read it from] */
  sources: Array<[string, string]>;
  /** Files hashed already (the database copies): their bytes are not hashed again. */
  hashed: Array<[string, ManifestFile]>;
  header: Omit<Manifest, 'files'>;
  /** The tar entries' mtime (epoch ms). */
  mtime: number;
  /** PETCARE_BACKUP_KEY(_FILE)'s text: the archive is encrypted with it. */
  key: string | null;
  /** Created (flag wx, mode 0600); the caller renames it when complete. */
  partial: string;
}

const writerScript = workerScript(import.meta.url, 'archive-writer.worker');
/** For callers without the job runner's pool (the CLI, tests): a worker per archive, nothing held between them. */
const ownPool = new WorkerPool(1);

/**
 * Writes the archive on a worker thread (archive-writer.worker.ts) and returns its manifest. An
 * ArchiveError there is an ArchiveError here; any other error keeps its message and code.
 */
export async function writeArchiveOffThread(input: ArchiveWriteInput, workers: WorkerPool = ownPool): Promise<Manifest> {
  try {
    return await workers.run<Manifest>({ script: writerScript, input });
  } catch (err) {
    if (err instanceof Error && err.name === 'ArchiveError') throw new ArchiveError(err.message);
    throw err;
  }
}
