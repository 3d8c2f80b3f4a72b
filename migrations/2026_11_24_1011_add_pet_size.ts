import { sql, type Kysely } from 'kysely';

/** A pet's optional size (DESIGN §5): grooming prices and times its packages by it. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE pets ADD COLUMN size TEXT CHECK (size IS NULL OR size IN ('small', 'medium', 'large', 'xlarge'))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE pets DROP COLUMN size`.execute(db);
}
