import { createHash } from 'node:crypto';
import { createReadStream, existsSync, promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { pipeline as pipelineCallback, Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import SQLite from 'better-sqlite3';
import type { Environment } from '../../config.js';
import type { WorkerPool } from '../../jobs/worker-pool.js';
import { ArchiveError } from './archive-error.js';
import { decryptFrames, encryptedHeaderSize, isEncryptedArchive, parseBackupKey } from './archive-encryption.js';
import { readTar } from './archive-tar.js';
import type { Manifest, ManifestFile } from './archive-manifest.js';
import { writeArchiveOffThread } from './archive-writer.js';
import { ByteReader } from './byte-reader.js';
import { archivableFiles, backupStagingPrefix, insideDataDir, isRestorablePath, sidecarIn } from './data-dir-contents.js';
import { isSqliteDatabase, snapshotDatabase } from './database-snapshot.js';

/**
 * A whole-appliance backup: one archive of everything in the data dir but what
 * data-dir-contents.ts keeps out (older archives, locks, staging). SQLite databases are copied
 * through SQLite (VACUUM INTO, consistent while the API writes); every other file as it is. The
 * tar stream is gzipped and, with PETCARE_BACKUP_KEY(_FILE), encrypted (archive-encryption.ts)
 * as it is written: `petcare-<time>.tar.gz`, or `.tar.gz.enc` when encrypted, mode 0600. Its
 * last entry, `manifest.json`, lists the sha256 and size of every file and the schema version;
 * reading an archive checks every byte against it, streaming, before a restore swaps anything in.
 */

export const archivePrefix = 'petcare-';
export const archiveSuffix = '.tar.gz';
export const encryptedArchiveSuffix = '.tar.gz.enc';
const manifestName = 'manifest.json';
const environments: readonly Environment[] = ['live', 'sandbox'];
const gzipMagic = Buffer.from([0x1f, 0x8b]);

export type { Manifest, ManifestFile } from './archive-manifest.js';

function latestMigration(file: string): string | null {
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare('select name from kysely_migration order by name desc limit 1').get() as { name: string } | undefined;
    return row?.name ?? null;
  } catch {
    return null;
  } finally {
    db.close();
  }
}

/** The real path of `folder`, resolving the part of it that exists (it may not have been created yet). */
async function realFolder(folder: string): Promise<string> {
  const missing: string[] = [];
  let current = path.resolve(folder);
  for (;;) {
    try {
      return path.join(await fs.realpath(current), ...missing.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return path.resolve(folder);
      missing.push(path.basename(current));
      current = parent;
    }
  }
}

/** Why an archive outside the data dir must be encrypted (printed when refused, and with --unencrypted). */
export const unencryptedOutsideWarning = (destination: string): string =>
  `an archive holds the token signing key and the data key: anyone who can read it can mint admin tokens and read sealed secrets, and ${destination} is outside the data dir. ` +
  'Set PETCARE_BACKUP_KEY or PETCARE_BACKUP_KEY_FILE (32 random bytes, base64 or hex: `openssl rand -base64 32`; keep the key apart from the archives) to encrypt it';

export interface CreateArchiveOptions {
  dataDir: string;
  backupDir: string;
  now: number;
  platformVersion: string;
  /** Archives kept in backupDir; older ones are deleted once the new one is complete. */
  keep: number;
  /** PETCARE_BACKUP_KEY(_FILE)'s text (config.backupKey): the archive is encrypted with it. */
  key?: string | undefined;
  /** Write an unencrypted archive outside the data dir (the operator asked, with --unencrypted). */
  unencrypted?: boolean;
  /** One archive at this path (a file, or a folder to put it in) instead of a dated one in backupDir; nothing is pruned. */
  out?: string | undefined;
  /** Where the archive is written (the job runner's worker threads); default a worker of the module's own. */
  workers?: WorkerPool | undefined;
}

export interface CreatedArchive {
  file: string;
  manifest: Manifest;
  deleted: number;
  encrypted: boolean;
  /** Set when an unencrypted archive was written outside the data dir (--unencrypted): why that is unwise. */
  warning: string | null;
}

/** Writes one archive (mode 0600) and returns its path; prunes older archives beyond `keep`. */
export async function createArchive(options: CreateArchiveOptions): Promise<CreatedArchive> {
  const dataDir = path.resolve(options.dataDir);
  const { now } = options;
  const key = parseBackupKey(options.key);
  const stamp = new Date(now).toISOString().replace(/[:.]/g, '-');
  const name = `${archivePrefix}${stamp}${key ? encryptedArchiveSuffix : archiveSuffix}`;
  let file = path.join(options.backupDir, name);
  if (options.out !== undefined) {
    const out = path.resolve(options.out);
    const isFolder = options.out.endsWith('/') || (await fs.stat(out).catch(() => null))?.isDirectory() === true;
    file = isFolder ? path.join(out, name) : out;
  }
  const folder = path.dirname(file);
  if (!existsSync(dataDir)) throw new ArchiveError(`${dataDir} does not exist (PETCARE_DATA_DIR)`);
  if (existsSync(path.join(dataDir, '.restore-in-progress')))
    throw new ArchiveError(`a restore is replacing the contents of ${dataDir}; back up after it has finished`);

  const realData = await fs.realpath(dataDir);
  const outside = insideDataDir(realData, await realFolder(folder)) === null;
  let warning: string | null = null;
  if (!key && outside) {
    warning = unencryptedOutsideWarning(folder);
    if (!options.unencrypted) throw new ArchiveError(`refusing to write an unencrypted archive: ${warning}, or add --unencrypted to write it anyway`);
  }

  await fs.mkdir(folder, { recursive: true, mode: 0o700 });
  if (existsSync(file)) throw new ArchiveError(`${file} already exists`);
  await removeStaleStaging(dataDir);
  // Database copies are staged inside the data dir: they are no more exposed there than the databases themselves.
  const staging = await fs.mkdtemp(path.join(dataDir, backupStagingPrefix));
  const partial = `${file}.partial`;
  let completed = false;
  try {
    const keptOut = [insideDataDir(realData, await realFolder(options.backupDir)), insideDataDir(realData, await realFolder(folder))].filter(
      (p): p is string => p !== null,
    );
    const listed = await archivableFiles(dataDir, keptOut);
    // Databases first, each in one read transaction; then the other files as they are now.
    const sources = new Map<string, string>();
    /** Database copies, hashed by the thread that made them: their bytes are not hashed again. */
    const hashed = new Map<string, ManifestFile>();
    const databases: string[] = [];
    for (const entry of listed) {
      let database = false;
      try {
        database = await isSqliteDatabase(entry.absolute);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // removed since it was listed
        throw err;
      }
      if (database) {
        const copy = path.join(staging, `db-${databases.length}.sqlite`);
        hashed.set(entry.path, { path: entry.path, ...(await snapshotDatabase(entry.absolute, copy)) });
        databases.push(entry.path);
        sources.set(entry.path, copy);
      } else {
        sources.set(entry.path, entry.absolute);
      }
    }
    const present = environments.filter((env) => databases.includes(`${env}.sqlite`));
    if (present.length === 0) throw new ArchiveError(`no database in ${dataDir}`);

    // Read, tarred, gzipped and encrypted on a worker thread: nothing of it on the event loop.
    const manifest = await writeArchiveOffThread(
      {
        sources: [...sources],
        hashed: [...hashed],
        header: {
          format: 'petcare-backup/2',
          createdAt: new Date(now).toISOString(),
          platformVersion: options.platformVersion,
          schemaVersion: latestMigration(sources.get(`${present[0]}.sqlite`)!),
          environments: [...present],
          databases,
        },
        mtime: now,
        key: options.key ?? null,
        partial,
      },
      options.workers,
    );
    await fs.chmod(partial, 0o600);
    // Renamed when complete: an archive cut short (disk full) never passes for one.
    await fs.rename(partial, file);
    completed = true;
    const deleted = options.out === undefined ? await pruneArchives(options.backupDir, options.keep) : 0;
    return { file, manifest, deleted, encrypted: key !== null, warning };
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
    if (!completed) await fs.rm(partial, { force: true });
  }
}

/** Database copies left by a backup that was killed (a finished or failed one removes its own); a running one is never this old. */
async function removeStaleStaging(dataDir: string): Promise<void> {
  // Compared with file times, so the real clock, not the appliance's (a test clock may be anywhere).
  const now = Date.now();
  for (const name of await fs.readdir(dataDir)) {
    if (!name.startsWith(backupStagingPrefix)) continue;
    const stat = await fs.stat(path.join(dataDir, name)).catch(() => null);
    if (stat && now - stat.mtimeMs > 12 * 3600 * 1000) await fs.rm(path.join(dataDir, name), { recursive: true, force: true });
  }
}

const isArchiveName = (name: string): boolean => name.startsWith(archivePrefix) && (name.endsWith(archiveSuffix) || name.endsWith(encryptedArchiveSuffix));

/** Deletes all but the newest `keep` archives (plain and encrypted alike); returns how many went. */
export async function pruneArchives(backupDir: string, keep: number): Promise<number> {
  const archives = (await fs.readdir(backupDir)).filter(isArchiveName).sort();
  const stale = archives.slice(0, Math.max(0, archives.length - keep));
  for (const name of stale) await fs.rm(path.join(backupDir, name), { force: true });
  return stale.length;
}

export interface ReadArchiveOptions {
  /** PETCARE_BACKUP_KEY(_FILE)'s text: needed for an encrypted archive. */
  key?: string | undefined;
  /** An empty folder to write the archive's files into (a restore's staging); none: only check. */
  into?: string;
}

export interface ReadArchive {
  manifest: Manifest;
  encrypted: boolean;
}

/** zlib's complaints about a damaged or cut gzip stream. */
const isZlibError = (err: unknown): boolean =>
  typeof (err as { code?: unknown }).code === 'string' && /^Z_|^ERR_(ZLIB|BUFFER)/.test((err as { code: string }).code);

/**
 * Reads an archive from end to end, streaming: decrypts (checking every frame), inflates, and
 * hashes each file, writing it under `into` when given; then checks the manifest — a known
 * format, every listed file present with its size and sha256, nothing unlisted, no path a backup
 * never writes. Nothing is written anywhere else. Throws ArchiveError with the first problem.
 */
export async function readArchive(archive: string, options: ReadArchiveOptions = {}): Promise<ReadArchive> {
  const name = path.basename(archive);
  const stat = await fs.stat(archive).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR') throw new ArchiveError(`${archive}: not found`);
    throw err;
  });
  if (!stat.isFile()) throw new ArchiveError(`${archive} is not a file`);
  const key = parseBackupKey(options.key);
  const source = createReadStream(archive, { highWaterMark: 256 * 1024 });
  const raw = new ByteReader(source);
  let inflated: ByteReader | undefined;
  try {
    const head = await raw.exactly(encryptedHeaderSize);
    const encrypted = isEncryptedArchive(head);
    let compressed: AsyncIterable<Buffer>;
    if (encrypted) {
      if (!key) throw new ArchiveError(`${name} is encrypted: set PETCARE_BACKUP_KEY or PETCARE_BACKUP_KEY_FILE to the key it was written with`);
      compressed = decryptFrames(raw, head, key);
    } else if (head.subarray(0, 2).equals(gzipMagic)) {
      compressed = (async function* () {
        yield head;
        yield* raw.rest();
      })();
    } else {
      throw new ArchiveError(`${name} is not a petcare backup archive (neither a .tar.gz nor an encrypted archive)`);
    }
    const gunzip = pipelineCallback(Readable.from(compressed, { objectMode: false }), createGunzip(), () => undefined);
    inflated = new ByteReader(gunzip);

    const found = new Map<string, ManifestFile>();
    let manifestText: Buffer | undefined;
    await readTar(inflated, async (entry, body) => {
      const relative = entry.path.replace(/^\.\//, '');
      if (relative === manifestName) {
        if (entry.size > 16 * 1024 * 1024 || manifestText) throw new ArchiveError('the archive has more than one manifest, or an oversized one');
        const parts: Buffer[] = [];
        for await (const chunk of body) parts.push(chunk);
        manifestText = Buffer.concat(parts);
        return;
      }
      if (!isRestorablePath(relative)) throw new ArchiveError(`the archive holds an entry a backup never writes: ${relative}`);
      if (found.has(relative)) throw new ArchiveError(`the archive holds ${relative} twice`);
      const hash = createHash('sha256');
      let size = 0;
      const handle = options.into ? await openForRestore(options.into, relative) : undefined;
      try {
        for await (const chunk of body) {
          hash.update(chunk);
          size += chunk.length;
          if (handle) await handle.write(chunk);
        }
        if (handle) await handle.sync();
      } finally {
        await handle?.close();
      }
      found.set(relative, { path: relative, size, sha256: hash.digest('hex') });
    });
    // The rest of the stream too: gzip's checksum and an encrypted archive's final frame come last.
    for await (const chunk of inflated.rest()) void chunk;

    const manifest = checkedManifest(manifestText, found);
    return { manifest, encrypted };
  } catch (err) {
    if (isZlibError(err)) throw new ArchiveError(`${name} is not a readable backup archive (${(err as Error).message})`);
    throw err;
  } finally {
    await inflated?.close().catch(() => undefined);
    source.destroy();
  }
}

async function openForRestore(into: string, relative: string): Promise<FileHandle> {
  const target = path.join(into, ...relative.split('/'));
  await fs.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
  return fs.open(target, 'wx', 0o600);
}

function checkedManifest(text: Buffer | undefined, found: ReadonlyMap<string, ManifestFile>): Manifest {
  if (!text) throw new ArchiveError('the archive has no manifest.json');
  let manifest: Manifest;
  try {
    manifest = JSON.parse(text.toString('utf8')) as Manifest;
  } catch {
    throw new ArchiveError('the archive has no readable manifest.json');
  }
  if (
    (manifest.format !== 'petcare-backup/1' && manifest.format !== 'petcare-backup/2') ||
    !Array.isArray(manifest.files) ||
    !Array.isArray(manifest.environments)
  ) {
    throw new ArchiveError('the manifest is not a petcare-backup manifest');
  }
  if (!manifest.environments.every((env) => environments.includes(env))) throw new ArchiveError('the manifest names an unknown environment');
  const listed = new Set(manifest.files.map((f) => f.path));
  for (const name of found.keys()) if (!listed.has(name)) throw new ArchiveError(`${name} is in the archive but not in its manifest`);
  for (const expected of manifest.files) {
    if (!isRestorablePath(expected.path)) throw new ArchiveError(`the manifest names an unexpected path: ${expected.path}`);
    const actual = found.get(expected.path);
    if (!actual) throw new ArchiveError(`${expected.path} is listed in the manifest but missing`);
    if (actual.sha256 !== expected.sha256 || actual.size !== expected.size)
      throw new ArchiveError(`${expected.path} does not match its sha256 in the manifest`);
  }
  if (!manifest.environments.some((env) => listed.has(`${env}.sqlite`))) throw new ArchiveError('the archive holds no database');
  const sidecar = sidecarIn(listed);
  if (sidecar) throw new ArchiveError(`the archive holds ${sidecar}, a SQLite journal a backup never writes`);
  return manifest;
}

/** Checks an archive on its own, reading only: nothing is written, so it works on a read-only mount. */
export async function verifyArchive(archive: string, options: { key?: string | undefined } = {}): Promise<Manifest> {
  return (await readArchive(archive, { key: options.key })).manifest;
}
