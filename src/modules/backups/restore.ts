import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { environmentsOf } from '../../config.js';
import { lockFile, lockHolder } from '../../data-dir.js';
import { Stores } from '../../db/stores.js';
import { ArchiveError, unpackVerified, type Manifest } from './appliance-archive.js';

export interface RestoreOptions {
  archive: string;
  dataDir: string;
  /** Replace a data dir that already holds data. */
  force: boolean;
  now: number;
}

/** What counts as "already holds data": anything but a backups folder and a stale lock. */
async function holdsData(dataDir: string): Promise<boolean> {
  if (!existsSync(dataDir)) return false;
  const names = (await fs.readdir(dataDir)).filter((name) => name !== 'backups' && name !== path.basename(lockFile(dataDir)));
  return names.length > 0;
}

/**
 * Restores an archive into the data dir: refuses while a server holds the dir, verifies every
 * sha256 in a temporary folder beside it before touching anything, then swaps whole folders
 * (rename), keeps the backups folder that lived in the old dir, and brings an older schema up to
 * date with the migrations. On any refusal the data dir is exactly as it was.
 */
export async function restoreArchive(options: RestoreOptions): Promise<Manifest> {
  const dataDir = path.resolve(options.dataDir);
  const holder = lockHolder(dataDir);
  if (holder !== null) throw new ArchiveError(`a server (pid ${holder}) is running on ${dataDir}; stop it before restoring`);
  if (!options.force && (await holdsData(dataDir))) throw new ArchiveError(`${dataDir} already holds data; restore into an empty folder or add --force to replace it`);

  const parent = path.dirname(dataDir);
  await fs.mkdir(parent, { recursive: true });
  const incoming = await fs.mkdtemp(path.join(parent, `.${path.basename(dataDir)}-restore-`));
  let manifest: Manifest;
  try {
    manifest = await unpackVerified(path.resolve(options.archive), incoming);
    await fs.rm(path.join(incoming, 'manifest.json'));
    await fs.chmod(incoming, 0o700);
  } catch (err) {
    await fs.rm(incoming, { recursive: true, force: true });
    throw err;
  }

  const replaced = `${dataDir}.replaced-${options.now}`;
  const hadDir = existsSync(dataDir);
  if (hadDir) await fs.rename(dataDir, replaced);
  await fs.rename(incoming, dataDir);
  if (hadDir) {
    if (existsSync(path.join(replaced, 'backups'))) await fs.rename(path.join(replaced, 'backups'), path.join(dataDir, 'backups'));
    await fs.rm(replaced, { recursive: true, force: true });
  }
  // An archive from an older release gets the migrations it lacks (Stores.open runs them).
  const stores = await Stores.open(dataDir, environmentsOf({ sandboxOnly: !manifest.environments.includes('live') }));
  await stores.close();
  return manifest;
}
