import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileMigrationProvider, Migrator } from 'kysely/migration';
import type { Db } from './database.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/** src/db → migrations (tsx) and dist/src/db → dist/migrations (compiled) are both two levels up. */
export const migrationsFolder = path.resolve(here, '../../migrations');

export function createMigrator(db: Db): Migrator {
  return new Migrator({
    db,
    provider: new FileMigrationProvider({ fs, path, migrationFolder: migrationsFolder }),
  });
}

export async function migrateToLatest(db: Db): Promise<void> {
  const { error, results } = await createMigrator(db).migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    const reason = error instanceof Error ? error.message : String(error ?? 'unknown error');
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${reason}`);
  }
}

/** True when every migration on disk has been applied (used by /readyz). */
export async function migrationsAreCurrent(db: Db): Promise<boolean> {
  const migrations = await createMigrator(db).getMigrations();
  return migrations.every((m) => m.executedAt !== undefined);
}
