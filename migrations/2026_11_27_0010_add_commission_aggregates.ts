import { sql, type Kysely } from 'kysely';

/**
 * commission_earned from the daily aggregates (issue 27.3), like revenue: a year of it by day read,
 * per window, every marketplace order of the location and its commission lines (5–7 s tenant-wide on
 * the scale bench's 0.1 file). `analytics_daily` gains the measure `commission`: per location of the
 * line's order, UTC day of the line's created_at and currency, num = the sum of the lines'
 * commission and den = how many lines (a currency with lines in a window answers even when they net
 * to 0). Triggers keep it: a line's insert, delete or change (its order, day, currency or amount),
 * and an order's move to another location (its lines move with it). The partial days at a window's
 * ends are read from the records through the new `marketplace_commission_lines_created_idx`.
 *
 * SQLite cannot change a CHECK in place: the table is rebuilt, with the triggers that write it put
 * back as they were (they name it in their bodies, so they are dropped before and created after).
 */

const measures = ['revenue', 'appointments', 'grooming', 'pets', 'invoices_open', 'compliance'];

const upsertTail = 'ON CONFLICT (location_id, measure, day, key) DO UPDATE SET num = num + excluded.num, den = den + excluded.den';

/** A line's share (R: NEW or OLD) at its order's location, with sign. */
const lineShare = (row: 'NEW' | 'OLD', sign: '' | '-') => `INSERT INTO analytics_daily (tenant_id, location_id, measure, day, key, num, den)
      SELECT ${row}.tenant_id, o.location_id, 'commission', substr(${row}.created_at, 1, 10), ${row}.currency, ${sign}(${row}.commission), ${sign}1
      FROM marketplace_orders o WHERE o.id = ${row}.order_id ${upsertTail};`;

/** An order's lines at a location (R: OLD or NEW), with sign. */
const orderShare = (row: 'NEW' | 'OLD', sign: '' | '-') => `INSERT INTO analytics_daily (tenant_id, location_id, measure, day, key, num, den)
      SELECT c.tenant_id, ${row}.location_id, 'commission', substr(c.created_at, 1, 10), c.currency, ${sign}(c.commission), ${sign}1
      FROM marketplace_commission_lines c WHERE c.order_id = ${row}.id ${upsertTail};`;

async function rebuildTable(db: Kysely<unknown>, allowed: readonly string[]): Promise<void> {
  const triggers = await sql<{ name: string; sql: string }>`
    SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND sql LIKE '%analytics_daily%' AND tbl_name <> 'analytics_daily' ORDER BY name`.execute(db);
  for (const { name } of triggers.rows) await sql.raw(`DROP TRIGGER ${name}`).execute(db);
  await sql
    .raw(`CREATE TABLE analytics_daily_rebuilt (
        tenant_id TEXT NOT NULL REFERENCES tenants(id),
        location_id TEXT NOT NULL REFERENCES locations(id) ON DELETE CASCADE,
        measure TEXT NOT NULL CHECK (measure IN (${allowed.map((m) => `'${m}'`).join(', ')})),
        day TEXT NOT NULL,
        key TEXT NOT NULL,
        num INTEGER NOT NULL,
        den INTEGER NOT NULL,
        PRIMARY KEY (location_id, measure, day, key)
      ) WITHOUT ROWID`)
    .execute(db);
  await sql
    .raw(
      `INSERT INTO analytics_daily_rebuilt (tenant_id, location_id, measure, day, key, num, den)
      SELECT tenant_id, location_id, measure, day, key, num, den FROM analytics_daily WHERE measure IN (${allowed.map((m) => `'${m}'`).join(', ')})`,
    )
    .execute(db);
  await sql`DROP TABLE analytics_daily`.execute(db);
  await sql`ALTER TABLE analytics_daily_rebuilt RENAME TO analytics_daily`.execute(db);
  for (const trigger of triggers.rows) await sql.raw(trigger.sql).execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await rebuildTable(trx, [...measures, 'commission']);
    await sql`CREATE INDEX marketplace_commission_lines_created_idx ON marketplace_commission_lines (tenant_id, created_at)`.execute(trx);
    const create = (name: string, timing: string, table: string, body: string) =>
      sql.raw(`CREATE TRIGGER ${name} ${timing} ON ${table} BEGIN\n${body}\nEND`).execute(trx);
    await create('marketplace_commission_lines_analytics_daily_insert', 'AFTER INSERT', 'marketplace_commission_lines', lineShare('NEW', ''));
    await create('marketplace_commission_lines_analytics_daily_delete', 'AFTER DELETE', 'marketplace_commission_lines', lineShare('OLD', '-'));
    await create(
      'marketplace_commission_lines_analytics_daily_update',
      'AFTER UPDATE OF order_id, created_at, currency, commission',
      'marketplace_commission_lines',
      `${lineShare('OLD', '-')}\n${lineShare('NEW', '')}`,
    );
    await create(
      'marketplace_orders_analytics_daily_update',
      'AFTER UPDATE OF location_id',
      'marketplace_orders',
      `${orderShare('OLD', '-')}\n${orderShare('NEW', '')}`,
    );
    await sql`
      INSERT INTO analytics_daily (tenant_id, location_id, measure, day, key, num, den)
      SELECT c.tenant_id, o.location_id, 'commission', substr(c.created_at, 1, 10), c.currency, sum(c.commission), count(*)
        FROM marketplace_commission_lines c JOIN marketplace_orders o ON o.id = c.order_id
        GROUP BY o.location_id, substr(c.created_at, 1, 10), c.currency`.execute(trx);
  });
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const name of [
      'marketplace_commission_lines_analytics_daily_insert',
      'marketplace_commission_lines_analytics_daily_delete',
      'marketplace_commission_lines_analytics_daily_update',
      'marketplace_orders_analytics_daily_update',
    ])
      await sql.raw(`DROP TRIGGER ${name}`).execute(trx);
    await sql`DROP INDEX marketplace_commission_lines_created_idx`.execute(trx);
    await rebuildTable(trx, measures);
  });
}
