import { sql, type Kysely } from 'kysely';

/**
 * The directory (GET /v1/providers) is read far more often than providers change: a change counter
 * of everything it reads (providers, where they work, marketplace profiles and listings; reviews move
 * providers' rating columns, so they count through providers), kept by triggers so no write path can
 * forget it, lets an answer be reused exactly while nothing it reads changed (as boarding_version
 * does for occupancy). One row, never erased.
 *
 * Also: listings are always read through their provider (a page's listings, the directory's category
 * EXISTS), which marketplace_listings_provider_idx serves; the (tenant_id, category, …) index of
 * 2026_11_24_1100 led SQLite to read a page's listings by scanning the whole tenant's (2.5 ms instead
 * of 0.2 ms per page with 4,000 listings), so it goes.
 */
const tables = ['providers', 'provider_locations', 'provider_marketplace_profiles', 'marketplace_listings'];

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS marketplace_listings_category_idx`.execute(db);
  await sql`CREATE TABLE provider_directory_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)`.execute(db);
  await sql`INSERT INTO provider_directory_version (id, version) VALUES (1, 0)`.execute(db);
  for (const table of tables) {
    for (const event of ['INSERT', 'UPDATE', 'DELETE']) {
      await sql`
        CREATE TRIGGER ${sql.raw(`${table}_directory_version_${event.toLowerCase()}`)} AFTER ${sql.raw(event)} ON ${sql.raw(table)}
        BEGIN UPDATE provider_directory_version SET version = version + 1 WHERE id = 1; END`.execute(db);
    }
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of tables) {
    for (const event of ['insert', 'update', 'delete']) await sql`DROP TRIGGER IF EXISTS ${sql.raw(`${table}_directory_version_${event}`)}`.execute(db);
  }
  await sql`DROP TABLE IF EXISTS provider_directory_version`.execute(db);
  await sql`CREATE INDEX IF NOT EXISTS marketplace_listings_category_idx ON marketplace_listings (tenant_id, category, status, provider_id)`.execute(db);
}
