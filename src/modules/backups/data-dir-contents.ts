import { promises as fs } from 'node:fs';
import path from 'node:path';
import { lockFileNames } from '../../data-dir.js';
import { ArchiveError } from './archive-error.js';

/**
 * What an archive holds: everything in the data dir, except what this list names. A module that
 * adds a folder to the data dir is in the next backup without a change here (a test creates a new
 * folder and looks for it in the archive); whatever must stay out is named below, with why.
 */
export const notArchived: Readonly<Record<string, string>> = {
  backups: 'older archives (the default PETCARE_BACKUP_DIR): an archive never holds archives',
  'lost+found': "the filesystem's own folder when the data dir is the root of a disk",
  ...Object.fromEntries(lockFileNames.map((name) => [name, 'the lock of the process using the data dir (src/data-dir.ts)'])),
  'petcare.lock': 'the pid lock of older releases',
  '.restore-in-progress': 'the journal of a restore swapping the data dir (restore.ts)',
};
/** Top-level folders a restore stages the archive in, and a backup its database copies (both inside the data dir). */
export const restoreStagingPrefix = '.restore-staging-';
export const backupStagingPrefix = '.backup-staging-';
/**
 * At any depth: uploads still being received (renamed into place when complete), and SQLite's
 * -wal, -shm and -journal files, whose content is in the copy SQLite makes of their database.
 */
const inFlightUpload = /^\.upload-/;
const sqliteSidecar = /^(.+)-(wal|shm|journal)$/;

/** Whether a top-level name of the data dir stays out of archives and is never replaced by a restore. */
export const isKeptOut = (name: string, extraTopLevel: readonly string[] = []): boolean =>
  Object.hasOwn(notArchived, name) || name.startsWith(restoreStagingPrefix) || name.startsWith(backupStagingPrefix) || extraTopLevel.includes(name);

/**
 * The relative path (forward slashes) of a folder inside the data dir, when it is one: a
 * PETCARE_BACKUP_DIR inside the data dir is kept out like `backups/`.
 */
export function insideDataDir(dataDir: string, folder: string): string | null {
  const relative = path.relative(path.resolve(dataDir), path.resolve(folder));
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return null;
  return relative.split(path.sep).join('/');
}

export interface DataDirFile {
  /** Relative to the data dir, forward slashes. */
  path: string;
  absolute: string;
}

/**
 * Every file an archive of `dataDir` holds, sorted. `keptOut` adds folders (relative paths) to
 * leave out, such as a backup dir inside the data dir. Anything that is neither a file nor a
 * folder (a link, a socket) is refused: an archive holds no links, and skipping it silently
 * could leave out what a module needs.
 */
export async function archivableFiles(dataDir: string, keptOut: readonly string[] = []): Promise<DataDirFile[]> {
  const files: DataDirFile[] = [];
  const walk = async (relative: string): Promise<void> => {
    const entries = await fs.readdir(path.join(dataDir, relative), { withFileTypes: true });
    const names = new Set(entries.map((entry) => entry.name));
    for (const entry of entries) {
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (relative === '' && isKeptOut(entry.name)) continue;
      if (keptOut.includes(child)) continue;
      if (inFlightUpload.test(entry.name)) continue;
      const sidecarOf = sqliteSidecar.exec(entry.name)?.[1];
      if (sidecarOf !== undefined && names.has(sidecarOf)) continue;
      if (entry.isDirectory()) await walk(child);
      else if (entry.isFile()) files.push({ path: child, absolute: path.join(dataDir, child) });
      else throw new ArchiveError(`${path.join(dataDir, child)} is neither a file nor a folder; a backup holds only those (move it out of the data dir)`);
    }
  };
  await walk('');
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Whether a path from an archive may be written into a data dir: relative, no `..`, no empty or
 * control characters, nor anything a backup keeps out.
 */
export function isRestorablePath(relative: string): boolean {
  if (relative === '' || relative.length > 1024 || relative.startsWith('/') || relative.includes('\\') || /[\u0000-\u001f]/.test(relative)) return false;
  const parts = relative.split('/');
  if (parts.some((part) => part === '' || part === '.' || part === '..')) return false;
  return !isKeptOut(parts[0]!) && !inFlightUpload.test(parts.at(-1)!);
}

/** A path naming a SQLite -wal/-shm/-journal file of another path in `paths` (never in an archive: it would be applied to the restored database). */
export function sidecarIn(paths: ReadonlySet<string>): string | undefined {
  return [...paths].find((p) => {
    const base = sqliteSidecar.exec(p)?.[1];
    return base !== undefined && paths.has(base);
  });
}
