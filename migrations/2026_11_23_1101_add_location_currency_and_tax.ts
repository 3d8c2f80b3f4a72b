import { sql, type Kysely } from 'kysely';

/**
 * Locations carry the currency they invoice in and their tax rate in basis points (DESIGN §7, §9).
 * Existing locations get USD (the tenant default) and no tax until an admin sets them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE locations ADD COLUMN currency TEXT NOT NULL DEFAULT 'USD' CHECK (length(currency) = 3)`.execute(db);
  await sql`ALTER TABLE locations ADD COLUMN tax_rate_bps INTEGER NOT NULL DEFAULT 0 CHECK (tax_rate_bps BETWEEN 0 AND 10000)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE locations DROP COLUMN tax_rate_bps`.execute(db);
  await sql`ALTER TABLE locations DROP COLUMN currency`.execute(db);
}
