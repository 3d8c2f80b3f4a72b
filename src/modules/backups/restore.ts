import { constants, existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { DataDirBusyError, lockDataDir } from '../../data-dir.js';
import { Stores } from '../../db/stores.js';
import { readArchive, type Manifest } from './appliance-archive.js';
import { ArchiveError } from './archive-error.js';
import { insideDataDir, isKeptOut, restoreStagingPrefix } from './data-dir-contents.js';

/**
 * Restore, where the appliance runs: the data dir is often a mount point (a Docker volume, a bind
 * mount) that cannot be renamed, inside a parent the appliance's user cannot write (`/`). So a
 * restore replaces the data dir's *contents*, and stages everything inside it:
 *
 * 1. Takes the data dir's lock (src/data-dir.ts): refused while any appliance process uses the
 *    dir, in any container on the volume; a server cannot start until the restore ends.
 * 2. Reads the whole archive into `<data>/.restore-staging-…/new/`, checking every frame and
 *    sha256 (appliance-archive.ts), and runs the migrations an older archive lacks there. A
 *    corrupt, truncated, tampered or wrong-key archive stops here: the staging folder goes, the
 *    live files were never touched.
 * 3. Swaps, one top-level entry at a time, by rename within the volume: every current entry
 *    (but what data-dir-contents.ts keeps out: backups/, the lock, staging) into `…/old/`, then
 *    every entry of `…/new/` into the data dir; then removes the staging folder.
 *
 * A stop in step 3 (power cut, kill) is finished, not undone: `<data>/.restore-in-progress`, a
 * journal written before the first rename (and rewritten atomically between the two halves),
 * names the staging folder and the half underway. Its new contents were fully verified before
 * the journal was written, so the next start of the appliance, or the next restore, completes
 * the moves (finishInterruptedRestore) and logs that it did. A stop before step 3 leaves only a
 * staging folder, which the next start removes.
 */

const journalName = '.restore-in-progress';

interface SwapJournal {
  staging: string;
  phase: 'out' | 'in';
  /** Top-level names kept in place (a PETCARE_BACKUP_DIR inside the data dir). */
  keep: string[];
  archive: string;
  startedAt: string;
}

export interface RestoreOptions {
  archive: string;
  dataDir: string;
  /** Replace a data dir that already holds data. */
  force: boolean;
  now: number;
  /** PETCARE_BACKUP_KEY(_FILE)'s text, for an encrypted archive. */
  key?: string | undefined;
  /** PETCARE_BACKUP_DIR: left in place when it is inside the data dir (like `backups/`). */
  backupDir?: string | undefined;
}

/** The data dir's top-level entries a restore replaces. */
async function replaceable(dataDir: string, keep: readonly string[]): Promise<string[]> {
  if (!existsSync(dataDir)) return [];
  return (await fs.readdir(dataDir)).filter((name) => !isKeptOut(name, keep)).sort();
}

async function syncFolder(folder: string): Promise<void> {
  const handle = await fs.open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Writes the journal atomically: a temp file in the staging folder, synced, renamed over the old one. */
async function writeJournal(dataDir: string, journal: SwapJournal): Promise<void> {
  const temp = path.join(dataDir, journal.staging, 'journal.tmp');
  const handle = await fs.open(temp, 'w', 0o600);
  try {
    await handle.writeFile(`${JSON.stringify(journal)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.rename(temp, path.join(dataDir, journalName));
  await syncFolder(dataDir);
}

/** Both halves of the swap; each may be run again after a stop (a name moved is no longer where it was). */
async function swapContents(dataDir: string, journal: SwapJournal): Promise<void> {
  const staging = path.join(dataDir, journal.staging);
  const outgoing = path.join(staging, 'old');
  const incoming = path.join(staging, 'new');
  if (journal.phase === 'out') {
    await fs.mkdir(outgoing, { recursive: true, mode: 0o700 });
    for (const name of await replaceable(dataDir, journal.keep)) await fs.rename(path.join(dataDir, name), path.join(outgoing, name));
    journal = { ...journal, phase: 'in' };
    await writeJournal(dataDir, journal);
  }
  const names = existsSync(incoming) ? await fs.readdir(incoming) : [];
  for (const name of names) await fs.rename(path.join(incoming, name), path.join(dataDir, name));
  await syncFolder(dataDir);
  await fs.rm(path.join(dataDir, journalName), { force: true });
  await syncFolder(dataDir);
  await fs.rm(staging, { recursive: true, force: true });
}

/**
 * Run by whoever holds the data dir's lock before using it (the appliance at start, a restore):
 * completes a restore that stopped while swapping, and removes staging folders of restores that
 * stopped before. Returns what it did, for the log, or null when there was nothing to do.
 */
export async function finishInterruptedRestore(dataDir: string): Promise<string | null> {
  let journal: SwapJournal | null = null;
  try {
    journal = JSON.parse(await fs.readFile(path.join(dataDir, journalName), 'utf8')) as SwapJournal;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new ArchiveError(
        `${path.join(dataDir, journalName)} is unreadable (${(err as Error).message}); a restore stopped while swapping the data dir: restore the archive again`,
      );
  }
  if (journal) await swapContents(dataDir, journal);
  if (existsSync(dataDir)) {
    for (const name of await fs.readdir(dataDir)) {
      if (name.startsWith(restoreStagingPrefix)) await fs.rm(path.join(dataDir, name), { recursive: true, force: true });
    }
  }
  return journal
    ? `finished the restore of ${journal.archive} (started ${journal.startedAt}) that had stopped while swapping the contents of ${dataDir}`
    : null;
}

/** Refuses before the swap what would stop it halfway: an entry on another filesystem (a mount inside the data dir), a folder that cannot be moved. */
async function checkMovable(dataDir: string, staging: string, names: readonly string[]): Promise<void> {
  const device = (await fs.stat(staging)).dev;
  for (const name of names) {
    const entry = path.join(dataDir, name);
    const stat = await fs.lstat(entry);
    if (stat.dev !== device)
      throw new ArchiveError(
        `${entry} is on another filesystem than the data dir (a mount inside it); a restore moves entries by rename: unmount it or move it out of the data dir`,
      );
    if (stat.isDirectory()) {
      await fs.access(entry, constants.W_OK).catch(() => {
        throw new ArchiveError(`${entry} cannot be moved by this user (uid ${process.getuid?.() ?? '?'}): make it writable, or remove it`);
      });
    }
  }
}

/**
 * Restores an archive into the data dir (see the top of this file). On any refusal the data dir
 * is as it was. Returns the archive's manifest.
 */
export async function restoreArchive(options: RestoreOptions): Promise<Manifest> {
  const dataDir = path.resolve(options.dataDir);
  const archive = path.resolve(options.archive);
  if (!existsSync(archive)) throw new ArchiveError(`${options.archive}: not found`);
  await fs.mkdir(dataDir, { recursive: true, mode: 0o700 });
  let lock;
  try {
    lock = lockDataDir(dataDir, 'restore');
  } catch (err) {
    if (err instanceof DataDirBusyError)
      throw new ArchiveError(`${err.message}; stop every appliance using this data dir (each container on the volume) before restoring`);
    throw err;
  }
  try {
    await finishInterruptedRestore(dataDir);
    const backupDir = options.backupDir ? insideDataDir(await fs.realpath(dataDir), path.resolve(options.backupDir)) : null;
    const keep = backupDir ? [backupDir.split('/')[0]!] : [];
    if (!options.force && (await replaceable(dataDir, keep)).length > 0) {
      throw new ArchiveError(`${dataDir} already holds data; restore into an empty folder or add --force to replace it`);
    }
    const staging = await fs.mkdtemp(path.join(dataDir, restoreStagingPrefix));
    let swapping = false;
    try {
      const incoming = path.join(staging, 'new');
      await fs.mkdir(incoming, { mode: 0o700 });
      const { manifest } = await readArchive(archive, { key: options.key, into: incoming });
      // An archive from an older release gets the migrations it lacks (Stores.open runs them), before the swap.
      const stores = await Stores.open(
        incoming,
        manifest.environments.filter((env) => existsSync(path.join(incoming, `${env}.sqlite`))),
      );
      await stores.close();
      await checkMovable(dataDir, staging, await replaceable(dataDir, keep));
      swapping = true;
      const journal: SwapJournal = { staging: path.basename(staging), phase: 'out', keep, archive, startedAt: new Date(options.now).toISOString() };
      await writeJournal(dataDir, journal);
      await swapContents(dataDir, journal);
      return manifest;
    } finally {
      if (!swapping) await fs.rm(staging, { recursive: true, force: true });
    }
  } finally {
    lock.release();
  }
}
