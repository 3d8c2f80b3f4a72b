import { sql, type Kysely } from 'kysely';

/**
 * A change counter of everything occupancy reads (rooms and the night totals), kept by triggers so
 * no write path can forget it: an occupancy answer is reused while the counter stands still (as the
 * appointments busy cache does with scheduling_versions). One row, never erased.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE boarding_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)`.execute(db);
  await sql`INSERT INTO boarding_version (id, version) VALUES (1, 0)`.execute(db);
  for (const table of ['boarding_rooms', 'boarding_night_totals']) {
    for (const event of ['INSERT', 'UPDATE', 'DELETE']) {
      await sql`
        CREATE TRIGGER ${sql.raw(`${table}_version_${event.toLowerCase()}`)} AFTER ${sql.raw(event)} ON ${sql.raw(table)}
        BEGIN UPDATE boarding_version SET version = version + 1 WHERE id = 1; END`.execute(db);
    }
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['boarding_rooms', 'boarding_night_totals']) {
    for (const event of ['insert', 'update', 'delete']) await sql`DROP TRIGGER IF EXISTS ${sql.raw(`${table}_version_${event}`)}`.execute(db);
  }
  await sql`DROP TABLE IF EXISTS boarding_version`.execute(db);
}
