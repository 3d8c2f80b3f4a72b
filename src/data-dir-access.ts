import { accessSync, chmodSync, constants, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** sysexits.h EX_CONFIG: the data dir is unusable as configured (not a crash: no stack trace). */
export const exitDataDirUnusable = 78;

export class DataDirError extends Error {}

/**
 * Makes sure the process can create and write files in the data dir, and tightens what an older
 * release left group- or world-readable (databases hold webhook secrets and calendar tokens).
 * Throws DataDirError with one line naming the path and the uid.
 */
export function prepareDataDir(dataDir: string): void {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'unknown';
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    accessSync(dataDir, constants.W_OK | constants.X_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new DataDirError(`cannot write the data dir ${dataDir} as uid ${uid} (${code}); make it writable by that user (PETCARE_DATA_DIR)`);
  }
  const tighten = (file: string, mode: number) => {
    try {
      if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, mode);
    } catch {
      // not ours to change (another owner): left as it is
    }
  };
  tighten(dataDir, 0o700);
  for (const name of readdirSync(dataDir)) {
    const file = path.join(dataDir, name);
    if (/\.sqlite(-wal|-shm)?$/.test(name)) tighten(file, 0o600);
    else if (['backups', 'documents', 'keys'].includes(name) && existsSync(file)) tighten(file, 0o700);
  }
}
