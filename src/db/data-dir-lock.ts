import { closeSync, existsSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';

/**
 * `<dataDir>/petcare.lock` holds the pid of the server using the data dir, so an offline restore
 * never swaps the files under a running server. A lock whose process is gone is stale and taken over.
 */
export const lockFile = (dataDir: string): string => path.join(dataDir, 'petcare.lock');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid of a live server holding the data dir, or null. */
export function lockHolder(dataDir: string): number | null {
  const file = lockFile(dataDir);
  if (!existsSync(file)) return null;
  const pid = Number.parseInt(readFileSync(file, 'utf8'), 10);
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid) ? pid : null;
}

/** Takes the lock for this process (throws when another live server holds it); returns its release. */
export function acquireDataDirLock(dataDir: string): () => void {
  const holder = lockHolder(dataDir);
  if (holder !== null) throw new Error(`another server (pid ${holder}) is using ${dataDir}`);
  const file = lockFile(dataDir);
  rmSync(file, { force: true }); // stale, or our own
  const fd = openSync(file, 'wx', 0o600);
  try {
    writeSync(fd, `${process.pid}\n`);
  } finally {
    closeSync(fd);
  }
  return () => {
    try {
      if (readFileSync(file, 'utf8').trim() === String(process.pid)) rmSync(file, { force: true });
    } catch {
      // already gone
    }
  };
}
