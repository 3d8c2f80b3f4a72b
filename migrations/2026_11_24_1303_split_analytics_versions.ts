import { sql, type Kysely } from 'kysely';

/**
 * One change counter per kind of record instead of one for all (2026_11_24_1301/1302): a metric's
 * figures are reused while the counters of what it reads stand still, so a busy front desk taking
 * payments no longer makes the next summary recount appointments or vaccination compliance. The
 * triggers keep the same tables and columns; each now moves its own kind's counter.
 */
const kinds: Record<string, Array<[table: string, updateOf: string | null]>> = {
  money: [
    ['payments', null],
    ['refunds', null],
  ],
  invoices: [['invoices', 'location_id, finalized_at, paid_at, voided_at, uncollectible_at']],
  appointments: [['appointments', 'location_id, status, starts_at']],
  pets: [
    ['pets', 'location_id, created_at'],
    ['vaccinations', 'pet_id, vaccine_key, administered_on, due_on'],
  ],
  bookings: [['bookings', 'location_id, kind, status, starts_at']],
  boarding: [
    ['boarding_rooms', 'location_id, capacity, active'],
    ['boarding_night_totals', 'location_id, night, reserved, checked_in'],
  ],
  marketplace: [
    ['marketplace_orders', 'location_id, paid_at'],
    ['marketplace_order_lines', null],
    ['marketplace_commission_lines', null],
  ],
};

const dropTriggers = async (db: Kysely<unknown>, table: string) => {
  for (const event of ['insert', 'update', 'delete']) await sql.raw(`DROP TRIGGER IF EXISTS ${table}_analytics_${event}`).execute(db);
};

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE analytics_versions (name TEXT PRIMARY KEY, version INTEGER NOT NULL) WITHOUT ROWID`.execute(db);
  for (const [kind, tables] of Object.entries(kinds)) {
    await sql`INSERT INTO analytics_versions (name, version) VALUES (${kind}, 0)`.execute(db);
    const bump = `BEGIN UPDATE analytics_versions SET version = version + 1 WHERE name = '${kind}'; END`;
    for (const [table, updateOf] of tables) {
      await dropTriggers(db, table);
      await sql.raw(`CREATE TRIGGER ${table}_analytics_insert AFTER INSERT ON ${table} ${bump}`).execute(db);
      await sql.raw(`CREATE TRIGGER ${table}_analytics_delete AFTER DELETE ON ${table} ${bump}`).execute(db);
      if (updateOf !== null) await sql.raw(`CREATE TRIGGER ${table}_analytics_update AFTER UPDATE OF ${updateOf} ON ${table} ${bump}`).execute(db);
    }
  }
  await sql`DROP TABLE analytics_version`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE analytics_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)`.execute(db);
  await sql`INSERT INTO analytics_version (id, version) VALUES (1, 0)`.execute(db);
  const bump = 'BEGIN UPDATE analytics_version SET version = version + 1 WHERE id = 1; END';
  for (const tables of Object.values(kinds)) {
    for (const [table, updateOf] of tables) {
      await dropTriggers(db, table);
      await sql.raw(`CREATE TRIGGER ${table}_analytics_insert AFTER INSERT ON ${table} ${bump}`).execute(db);
      await sql.raw(`CREATE TRIGGER ${table}_analytics_delete AFTER DELETE ON ${table} ${bump}`).execute(db);
      if (updateOf !== null) await sql.raw(`CREATE TRIGGER ${table}_analytics_update AFTER UPDATE OF ${updateOf} ON ${table} ${bump}`).execute(db);
    }
  }
  await sql`DROP TABLE analytics_versions`.execute(db);
}
