import { createHash } from 'node:crypto';
import { createReadStream, existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import * as tar from 'tar';
import type { Environment } from '../../config.js';
import { databaseFile } from '../../db/stores.js';

/**
 * A whole-appliance backup: one `petcare-<time>.tar.gz` holding each environment's database
 * (SQLite online backup, consistent while the server writes), `documents/`, `keys/` (without
 * them restored documents answer 500 and every issued token dies) and `manifest.json` with the
 * sha256 and size of every file and the schema version. A restore checks every hash before it
 * touches the data dir.
 */

export const archivePrefix = 'petcare-';
export const archiveSuffix = '.tar.gz';
const manifestName = 'manifest.json';
const environments: readonly Environment[] = ['live', 'sandbox'];

export interface ManifestFile {
  path: string;
  size: number;
  sha256: string;
}

export interface Manifest {
  format: 'petcare-backup/1';
  createdAt: string;
  platformVersion: string;
  /** The newest migration applied to the databases in the archive. */
  schemaVersion: string | null;
  environments: Environment[];
  files: ManifestFile[];
}

export class ArchiveError extends Error {}

async function sha256Of(file: string): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(file)) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), size };
}

/** Every regular file below `dir`, as paths relative to `root` with forward slashes. */
async function filesBelow(root: string, dir: string): Promise<string[]> {
  if (!existsSync(path.join(root, dir))) return [];
  const entries = await fs.readdir(path.join(root, dir), { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && !entry.name.startsWith('.upload-'))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}

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

export interface CreateArchiveOptions {
  dataDir: string;
  backupDir: string;
  now: number;
  platformVersion: string;
  /** Archives kept in backupDir; older ones are deleted once the new one is complete. */
  keep: number;
}

/** Writes one archive (mode 0600) and returns its path; prunes older archives beyond `keep`. */
export async function createArchive(options: CreateArchiveOptions): Promise<{ file: string; manifest: Manifest; deleted: number }> {
  const { dataDir, backupDir, now } = options;
  await fs.mkdir(backupDir, { recursive: true, mode: 0o700 });
  const stamp = new Date(now).toISOString().replace(/[:.]/g, '-');
  const staging = await fs.mkdtemp(path.join(backupDir, '.staging-'));
  const file = path.join(backupDir, `${archivePrefix}${stamp}${archiveSuffix}`);
  const partial = `${file}.partial`;
  try {
    const present = environments.filter((env) => existsSync(databaseFile(dataDir, env)));
    if (present.length === 0) throw new ArchiveError(`no database in ${dataDir}`);
    for (const env of present) {
      // A connection of our own: the backup API copies a consistent snapshot while the server writes.
      const source = new SQLite(databaseFile(dataDir, env), { readonly: true, fileMustExist: true });
      try {
        await source.backup(path.join(staging, `${env}.sqlite`));
      } finally {
        source.close();
      }
    }
    const copied = [...(await filesBelow(dataDir, 'documents')), ...(await filesBelow(dataDir, 'keys'))];
    for (const relative of copied) {
      await fs.mkdir(path.dirname(path.join(staging, relative)), { recursive: true });
      await fs.copyFile(path.join(dataDir, relative), path.join(staging, relative));
    }
    const names = [...present.map((env) => `${env}.sqlite`), ...copied];
    const files: ManifestFile[] = [];
    for (const name of names) files.push({ path: name, ...(await sha256Of(path.join(staging, name))) });
    const manifest: Manifest = {
      format: 'petcare-backup/1',
      createdAt: new Date(now).toISOString(),
      platformVersion: options.platformVersion,
      schemaVersion: latestMigration(path.join(staging, `${present[0]}.sqlite`)),
      environments: [...present],
      files,
    };
    await fs.writeFile(path.join(staging, manifestName), `${JSON.stringify(manifest, null, 2)}\n`);
    await tar.create({ gzip: true, file: partial, cwd: staging, portable: true, mode: 0o600 }, [manifestName, ...names]);
    await fs.chmod(partial, 0o600);
    // Renamed when complete: an archive cut short (disk full) never passes for one.
    await fs.rename(partial, file);
    return { file, manifest, deleted: await pruneArchives(backupDir, options.keep) };
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
    await fs.rm(partial, { force: true });
  }
}

/** Deletes all but the newest `keep` archives; returns how many went. */
export async function pruneArchives(backupDir: string, keep: number): Promise<number> {
  const archives = (await fs.readdir(backupDir)).filter((name) => name.startsWith(archivePrefix) && name.endsWith(archiveSuffix)).sort();
  const stale = archives.slice(0, Math.max(0, archives.length - keep));
  for (const name of stale) await fs.rm(path.join(backupDir, name), { force: true });
  return stale.length;
}

const safeName = /^(live|sandbox)\.sqlite$|^manifest\.json$|^(documents|keys)\/[A-Za-z0-9._/-]+$/;

/**
 * Unpacks an archive into `into` (which must be empty) and checks it: only regular files under
 * the names a backup writes, a manifest of the known format, and every listed file present with
 * its size and sha256 — nothing more, nothing less. Throws ArchiveError with the first problem.
 */
export async function unpackVerified(archive: string, into: string): Promise<Manifest> {
  if (!existsSync(archive)) throw new ArchiveError(`${archive} does not exist`);
  const refused: string[] = [];
  try {
    await tar.extract({
      file: archive,
      cwd: into,
      strict: true,
      preserveOwner: false,
      // Only files and folders under the names a backup writes: no links, devices or paths out.
      filter: (entryPath, entry) => {
        const type = 'type' in entry ? entry.type : 'File';
        const name = entryPath.replace(/^\.\//, '').replace(/\/$/, '');
        const ok = (type === 'File' || type === 'Directory') && !name.split('/').includes('..') && (type === 'Directory' || safeName.test(name));
        if (!ok) refused.push(entryPath);
        return ok;
      },
    });
  } catch (err) {
    throw new ArchiveError(`${path.basename(archive)} is not a readable backup archive (${(err as Error).message})`);
  }
  if (refused.length > 0) throw new ArchiveError(`the archive holds entries a backup never writes: ${refused.slice(0, 3).join(', ')}`);
  let manifest: Manifest;
  try {
    manifest = JSON.parse(await fs.readFile(path.join(into, manifestName), 'utf8')) as Manifest;
  } catch {
    throw new ArchiveError('the archive has no readable manifest.json');
  }
  if (manifest.format !== 'petcare-backup/1' || !Array.isArray(manifest.files)) throw new ArchiveError('the manifest is not a petcare-backup/1 manifest');
  const listed = new Set(manifest.files.map((f) => f.path));
  const present = [...(await filesBelow(into, 'documents')), ...(await filesBelow(into, 'keys')), ...environments.map((env) => `${env}.sqlite`).filter((name) => existsSync(path.join(into, name)))];
  for (const name of present) if (!listed.has(name)) throw new ArchiveError(`${name} is in the archive but not in its manifest`);
  if (!manifest.files.some((f) => f.path.endsWith('.sqlite'))) throw new ArchiveError('the archive holds no database');
  for (const expected of manifest.files) {
    if (!safeName.test(expected.path)) throw new ArchiveError(`the manifest names an unexpected path: ${expected.path}`);
    const file = path.join(into, expected.path);
    if (!existsSync(file)) throw new ArchiveError(`${expected.path} is listed in the manifest but missing`);
    const actual = await sha256Of(file);
    if (actual.sha256 !== expected.sha256 || actual.size !== expected.size) throw new ArchiveError(`${expected.path} does not match its sha256 in the manifest`);
  }
  return manifest;
}

/** Checks an archive on its own (unpacked into a temporary folder beside it, then removed). */
export async function verifyArchive(archive: string, tempParent = path.dirname(path.resolve(archive))): Promise<Manifest> {
  const dir = await fs.mkdtemp(path.join(tempParent, '.verify-'));
  try {
    return await unpackVerified(archive, dir);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
