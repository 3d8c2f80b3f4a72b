import { accessSync, chmodSync, closeSync, constants, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { environmentsOf, type Config } from './config.js';
import { databaseFile, Stores } from './db/stores.js';
import { AppError } from './http/errors.js';
import { SigningKeys } from './modules/oauth/index.js';

/**
 * Everything about the data dir: the first steps of the boot (src/appliance.ts), kept apart so
 * offline tools (the CLI) open it without loading the app; the checks main.ts runs before it
 * (writable, modes tightened); and the lock that keeps an offline restore from swapping the files
 * under a running server. `existingOnly`: open what a first start created, create nothing.
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
