import { sql, type Kysely } from 'kysely';

/**
 * The vaccines a location requires of boarded pets, per species (DESIGN §10), as a JSON object
 * such as {"dog": ["Rabies", "DHPP"]}. Existing locations require none until an admin sets them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE locations ADD COLUMN boarding_required_vaccines TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(boarding_required_vaccines))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE locations DROP COLUMN boarding_required_vaccines`.execute(db);
}
