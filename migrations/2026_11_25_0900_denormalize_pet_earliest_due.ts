import { sql, type Kysely } from 'kysely';

/**
 * pets.vaccination_earliest_due: the earliest due date of the pet's latest dose of each vaccine
 * (null: no records), the input of its vaccinationStatus. Kept by triggers on every vaccination
 * write, so no write path can forget it; GET /v1/pets/:id, the hottest read, then reads one row
 * instead of ranking the pet's doses (~3 µs of SQLite per read). The rule is the one
 * src/modules/pets/vaccination-status.ts states: per vaccine (vaccine_key) only the latest dose by
 * administered_on (then id) counts. Written out here, not imported, so this migration keeps
 * meaning what it meant.
 */
const earliestDue = `(SELECT min(due_on) FROM (
  SELECT due_on, row_number() OVER (PARTITION BY vaccine_key ORDER BY administered_on DESC, id DESC) AS rank
  FROM vaccinations WHERE pet_id = pets.id
) WHERE rank = 1)`;

const refresh = (pets: string) => `UPDATE pets SET vaccination_earliest_due = ${earliestDue} WHERE id IN (${pets});`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE pets ADD COLUMN vaccination_earliest_due TEXT`.execute(db);
  await sql.raw(`UPDATE pets SET vaccination_earliest_due = ${earliestDue}`).execute(db);
  await sql.raw(`CREATE TRIGGER vaccinations_earliest_due_insert AFTER INSERT ON vaccinations BEGIN ${refresh('NEW.pet_id')} END`).execute(db);
  await sql.raw(`CREATE TRIGGER vaccinations_earliest_due_delete AFTER DELETE ON vaccinations BEGIN ${refresh('OLD.pet_id')} END`).execute(db);
  await sql
    .raw(
      `CREATE TRIGGER vaccinations_earliest_due_update AFTER UPDATE OF pet_id, vaccine_key, administered_on, due_on ON vaccinations BEGIN ${refresh('OLD.pet_id, NEW.pet_id')} END`,
    )
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const event of ['insert', 'delete', 'update']) await sql.raw(`DROP TRIGGER IF EXISTS vaccinations_earliest_due_${event}`).execute(db);
  await sql`ALTER TABLE pets DROP COLUMN vaccination_earliest_due`.execute(db);
}
