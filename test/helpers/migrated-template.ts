import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { environmentsOf, type Config } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest, migrationsFolder } from '../../src/db/migrator.js';
import { databaseFile } from '../../src/db/stores.js';

/**
 * A database file every migration has run on, made once per set of migrations (named by a hash of
 * their files) in the temp dir and shared by every test process: a fresh test app starts from
 * copies of it instead of running the migrations on each of its files (~0.2 s of CPU per file, two
 * per app, hundreds of apps per suite run). Opening the copy migrates as a first start would
 * (nothing left to run); the migrations themselves run here and in the tests that migrate files of
 * their own (test/db).
 */
let template: string | undefined;

function migratedTemplate(): Promise<string> | string {
  if (template) return template;
  const hash = createHash('sha256');
  for (const name of readdirSync(migrationsFolder).sort())
    hash
      .update(name)
      .update('\0')
      .update(readFileSync(path.join(migrationsFolder, name)))
      .update('\0');
  const dir = path.join(tmpdir(), `petcare-test-migrated-${hash.digest('hex').slice(0, 16)}`);
  const file = path.join(dir, 'migrated.sqlite');
  if (existsSync(file)) return (template = file);
  return (async () => {
    // Built beside it and renamed into place: test processes running at once each build one, the first rename wins.
    const building = mkdtempSync(`${dir}.building-`);
    const handle = openDatabase(path.join(building, 'migrated.sqlite'));
    try {
      await migrateToLatest(handle.db);
    } finally {
      await handle.db.destroy(); // checkpoints the WAL into the file
    }
    try {
      renameSync(building, dir);
    } catch {
      rmSync(building, { recursive: true, force: true }); // another process's is in place
    }
    return (template = file);
  })();
}

/** Gives each of the config's environments whose database file is not there yet (a first start) a migrated copy. */
export async function copyMigratedDatabases(config: Config): Promise<void> {
  const missing = environmentsOf(config)
    .map((env) => databaseFile(config.dataDir, env))
    .filter((file) => !existsSync(file));
  if (missing.length === 0) return;
  const file = await migratedTemplate();
  mkdirSync(config.dataDir, { recursive: true });
  for (const target of missing) copyFileSync(file, target);
}
