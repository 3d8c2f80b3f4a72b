import { accessSync, chmodSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { environmentsOf, type Config } from './config.js';
import { databaseFile, Stores } from './db/stores.js';
import { AppError } from './http/errors.js';
import { SigningKeys } from './modules/oauth/index.js';

/**
 * Everything about the data dir: the first steps of the boot (src/appliance.ts), kept apart so
 * offline tools (the CLI) open it without loading the app; the checks main.ts runs before it
 * (writable, modes tightened); and the lock that keeps a restore from swapping the files under a
 * running server, and a second server off the same files. `existingOnly`: open what a first start created, create nothing.
 */
interface OpenOptions {
  existingOnly?: boolean;
}

/** Each enabled environment's SQLite file, migrated to the latest schema (existingOnly: the files present). */
export async function openStores(config: Config, options: OpenOptions = {}): Promise<Stores> {
  const enabled = environmentsOf(config);
  const environments = options.existingOnly ? enabled.filter((env) => existsSync(databaseFile(config.dataDir, env))) : enabled;
  if (environments.length === 0) {
    throw new AppError('service_unavailable', `No appliance database in ${config.dataDir}; set PETCARE_DATA_DIR, or start the appliance once to create it.`);
  }
  return Stores.open(config.dataDir, environments);
}

/** The RS256 keys tokens are signed with, created on the first start. */
export function openSigningKeys(config: Config, options: OpenOptions = {}): SigningKeys {
  if (options.existingOnly && !SigningKeys.existIn(config.dataDir)) {
    throw new AppError('service_unavailable', `No signing keys in ${config.dataDir}; set PETCARE_DATA_DIR, or start the appliance once to create them.`);
  }
  return new SigningKeys(config.dataDir);
}

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

/**
 * The data dir's lock: `<dataDir>/appliance.lock`, a SQLite database in which the holder keeps a
 * write transaction open (BEGIN IMMEDIATE: SQLite's RESERVED lock, an fcntl lock on the file) for
 * as long as it uses the dir: the appliance for its lifetime, a restore while it replaces the
 * files. A second taker is refused at once (busy_timeout 0). The kernel releases the lock when
 * the holder's process ends, however it ends (SIGKILL, OOM), so there is no stale lock to judge,
 * and no pid is compared: processes in two containers on one volume (both pid 7) see each other's
 * lock, as does any process on the host. Network filesystems (NFS, SMB) may not carry fcntl locks:
 * a data dir belongs on a local disk or a Docker volume of one host.
 * `appliance.lock.json` says who holds it (pid, host, since), for messages only.
 */
const lockName = 'appliance.lock';
const holderName = 'appliance.lock.json';
/** Files of the lock, kept out of archives and never replaced by a restore. */
export const lockFileNames: readonly string[] = [lockName, `${lockName}-journal`, holderName];
/** The lock file of older releases (a pid): meaningless now, removed when the lock is taken. */
const legacyPidLock = 'petcare.lock';

/** Another appliance process, or a restore, holds the data dir. */
export class DataDirBusyError extends DataDirError {}

export interface DataDirLock {
  /** Ends the transaction and closes the lock database (the process's exit does the same). */
  release(): void;
}

function describeHolder(dataDir: string): string {
  try {
    const holder = JSON.parse(readFileSync(path.join(dataDir, holderName), 'utf8')) as { holder?: string; pid?: number; host?: string; since?: string };
    const what = holder.holder === 'restore' ? 'a restore' : holder.holder === 'import' ? 'an import (petcare import)' : 'an appliance process';
    return `${what} (pid ${holder.pid} on host ${holder.host}, since ${holder.since})`;
  } catch {
    return 'an appliance process or a restore';
  }
}

/**
 * Takes the data dir's lock for `holder`, or throws DataDirBusyError naming who holds it (an
 * appliance in any container on the volume, or a restore), or DataDirError when the lock file
 * cannot be opened.
 */
export function lockDataDir(dataDir: string, holder: 'appliance' | 'restore' | 'import'): DataDirLock {
  const file = path.join(dataDir, lockName);
  let db: SQLite.Database | undefined;
  try {
    db = new SQLite(file);
    db.pragma('busy_timeout = 0');
    db.exec('BEGIN IMMEDIATE');
    // A write inside the transaction, never committed: SQLite opens a file it may not write
    // read-only without a word, and then BEGIN IMMEDIATE takes no lock at all.
    db.exec('CREATE TABLE IF NOT EXISTS held (since TEXT)');
  } catch (err) {
    db?.close();
    const code = (err as { code?: string }).code ?? 'error';
    if (code === 'SQLITE_BUSY') throw new DataDirBusyError(`${dataDir} is in use by ${describeHolder(dataDir)}, which holds ${file}`);
    const uid = typeof process.getuid === 'function' ? process.getuid() : 'unknown';
    throw new DataDirError(`cannot lock ${file} as uid ${uid} (${code}: ${(err as Error).message}); it must be writable by that user`);
  }
  const held = db;
  try {
    chmodSync(file, 0o600);
  } catch {
    // another owner's file that we may still lock: left as it is
  }
  rmSync(path.join(dataDir, legacyPidLock), { force: true });
  const info = `${JSON.stringify({ holder, pid: process.pid, host: hostname(), since: new Date().toISOString() })}\n`;
  writeFileSync(path.join(dataDir, holderName), info, { mode: 0o600 });
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      try {
        if (readFileSync(path.join(dataDir, holderName), 'utf8') === info) rmSync(path.join(dataDir, holderName), { force: true });
      } catch {
        // gone already
      }
      try {
        held.exec('ROLLBACK');
      } finally {
        held.close();
      }
    },
  };
}
