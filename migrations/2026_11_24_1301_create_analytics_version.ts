import { sql, type Kysely } from 'kysely';

/**
 * A change counter of everything the analytics metrics read, kept by triggers so no write path can
 * forget it: a metric's figures are reused while the counter stands still (as occupancy does with
 * boarding_version), so a dashboard polled by many screens computes each answer once per change.
 * UPDATE triggers fire only on the columns a metric reads (an appointment's notes do not count).
 * One row, never erased.
 */
const watched: Array<[table: string, updateOf: string | null]> = [
  ['payments', null],
  ['refunds', null],
  ['invoices', 'location_id, finalized_at, paid_at, voided_at, uncollectible_at'],
  ['appointments', 'location_id, status, starts_at'],
  ['pets', 'location_id, created_at'],
  ['vaccinations', 'pet_id, vaccine_key, administered_on, due_on'],
  ['bookings', 'location_id, kind, status, starts_at'],
  ['boarding_rooms', 'location_id, capacity, active'],
  ['boarding_night_totals', 'location_id, night, reserved, checked_in'],
];

const bump = 'BEGIN UPDATE analytics_version SET version = version + 1 WHERE id = 1; END';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE analytics_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)`.execute(db);
  await sql`INSERT INTO analytics_version (id, version) VALUES (1, 0)`.execute(db);
  for (const [table, updateOf] of watched) {
    await sql.raw(`CREATE TRIGGER ${table}_analytics_insert AFTER INSERT ON ${table} ${bump}`).execute(db);
    await sql.raw(`CREATE TRIGGER ${table}_analytics_delete AFTER DELETE ON ${table} ${bump}`).execute(db);
    // payments and refunds change only amount_refunded and settlement_id after insert, which no metric reads.
    if (updateOf !== null) await sql.raw(`CREATE TRIGGER ${table}_analytics_update AFTER UPDATE OF ${updateOf} ON ${table} ${bump}`).execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [table] of watched) {
    for (const event of ['insert', 'update', 'delete']) await sql.raw(`DROP TRIGGER IF EXISTS ${table}_analytics_${event}`).execute(db);
  }
  await sql`DROP TABLE IF EXISTS analytics_version`.execute(db);
}
