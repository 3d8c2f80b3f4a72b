import { sql, type Kysely } from 'kysely';

/**
 * The source system's id of an imported row (issue 29, DESIGN §17): a re-run of the same import file
 * updates the row it made instead of adding a second one, and references between files (a pet's
 * owner, a vaccination's pet) are resolved by it. Null for rows created through the API. Unique per
 * tenant and table (each environment is its own file); the partial indexes hold only imported rows,
 * so tables without imports carry no index entries, and they serve `?externalId=` and the import's
 * look-ups. The CHECK keeps a runaway value out (the import refuses longer ones with a message first).
 */
const tables = ['pet_parents', 'pets', 'vaccinations', 'medical_records', 'appointments', 'providers'] as const;
const externalIdMaxLength = 100;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of tables) {
    await sql
      .raw(`ALTER TABLE ${table} ADD COLUMN external_id TEXT CHECK (external_id IS NULL OR length(external_id) BETWEEN 1 AND ${externalIdMaxLength})`)
      .execute(db);
    await sql.raw(`CREATE UNIQUE INDEX ${table}_external_id_idx ON ${table} (tenant_id, external_id) WHERE external_id IS NOT NULL`).execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of tables) {
    await sql.raw(`DROP INDEX ${table}_external_id_idx`).execute(db);
    await sql.raw(`ALTER TABLE ${table} DROP COLUMN external_id`).execute(db);
  }
}
