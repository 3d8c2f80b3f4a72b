import { sql, type Kysely } from 'kysely';

/**
 * Analytics over the marketplace (DESIGN §14): marketplace_gmv reads orders by the time they were
 * paid, commission_earned reads commission lines by their order's location and their own time, so
 * each gets an index leading with what the window join uses. The tables join the change counter of
 * 2026_11_24_1301 (analytics_version) on the columns the metrics read.
 */
const indexes: Array<[name: string, definition: string]> = [
  ['marketplace_orders_location_paid_idx', 'marketplace_orders (location_id, paid_at)'],
  ['marketplace_commission_lines_order_idx', 'marketplace_commission_lines (order_id, created_at, currency, commission)'],
];

const watched: Array<[table: string, updateOf: string | null]> = [
  ['marketplace_orders', 'location_id, paid_at'],
  // Lines and commission lines are fixed once written (their own triggers): inserts and deletes only.
  ['marketplace_order_lines', null],
  ['marketplace_commission_lines', null],
];

const bump = 'BEGIN UPDATE analytics_version SET version = version + 1 WHERE id = 1; END';

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [name, definition] of indexes) await sql.raw(`CREATE INDEX ${name} ON ${definition}`).execute(db);
  for (const [table, updateOf] of watched) {
    await sql.raw(`CREATE TRIGGER ${table}_analytics_insert AFTER INSERT ON ${table} ${bump}`).execute(db);
    await sql.raw(`CREATE TRIGGER ${table}_analytics_delete AFTER DELETE ON ${table} ${bump}`).execute(db);
    if (updateOf !== null) await sql.raw(`CREATE TRIGGER ${table}_analytics_update AFTER UPDATE OF ${updateOf} ON ${table} ${bump}`).execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [table] of watched) {
    for (const event of ['insert', 'update', 'delete']) await sql.raw(`DROP TRIGGER IF EXISTS ${table}_analytics_${event}`).execute(db);
  }
  for (const [name] of indexes) await sql.raw(`DROP INDEX IF EXISTS ${name}`).execute(db);
}
