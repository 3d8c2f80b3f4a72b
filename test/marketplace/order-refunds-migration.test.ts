import { readdirSync } from 'node:fs';
import test from 'ava';
import type SQLite from 'better-sqlite3';
import { openDatabase } from '../../src/db/database.js';
import { createMigrator, migrationsFolder } from '../../src/db/migrator.js';
import { databaseFile } from '../../src/db/stores.js';
import { assertBooksBalance } from '../payments/payments-support.js';
import { startTestApp } from '../helpers/test-app.js';
import { expectStatus, market, mondayAt, order, payOrder } from './orders-support.js';

/**
 * The upgrade that gives order lines `tax_refunded` (2026_11_26_1720_add_order_line_tax_refunded)
 * on a data dir with lines refunded under the old rule (gross plus round-half-up of its tax): the
 * backfill is that tax, so the lines' rest refunds through POST /v1/refunds to exactly zero.
 */
const migration = '2026_11_26_1720_add_order_line_tax_refunded';
const names = readdirSync(migrationsFolder)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.slice(0, -3))
  .sort();
const previous = names[names.indexOf(migration) - 1]!;

const all = <T>(sqlite: SQLite.Database, text: string, ...params: unknown[]): T[] => sqlite.prepare(text).all(...params) as T[];

test('lines refunded before tax_refunded existed are backfilled with their tax share; the rest then refunds through POST /v1/refunds to zero', async (a) => {
  let t = await startTestApp({ jobs: false });
  const { dataDir } = t;
  const m = await market(t, { taxRateBps: 1000, amount: 10_000, commissionBps: 2000 });
  const o = expectStatus(await order(t, m, [mondayAt(t, 10), mondayAt(t, 11)]), 201, 'order').body;
  const payment = await payOrder(t, o);
  // 2,505 of gross of line 0: its tax share is round-half-up(250.5) = 251.
  expectStatus(
    await t.request('POST', `/v1/orders/${o.id}/refund`, { token: await t.adminToken(), body: { lineIds: [o.lines[0].id], amount: 2_505 } }),
    200,
    'line refund',
  );
  await t.close({ keepData: true });

  const handle = openDatabase(databaseFile(dataDir, 'live'));
  try {
    const down = await createMigrator(handle.db).migrateTo(previous);
    a.falsy(down.error);
    a.false(
      all<{ name: string }>(handle.sqlite, 'PRAGMA table_info(marketplace_order_lines)').some((c) => c.name === 'tax_refunded'),
      'down drops the column',
    );
    const up = await createMigrator(handle.db).migrateToLatest();
    a.falsy(up.error);
    a.true(up.results?.some((r) => r.migrationName === migration && r.status === 'Success'));
    a.deepEqual(all(handle.sqlite, 'SELECT amount_refunded, tax_refunded FROM marketplace_order_lines WHERE order_id = ? ORDER BY position', o.id), [
      { amount_refunded: 2_505, tax_refunded: 251 },
      { amount_refunded: 0, tax_refunded: 0 },
    ]);
    a.throws(
      () => handle.sqlite.prepare('UPDATE marketplace_order_lines SET tax_refunded = 1001 WHERE order_id = ?').run(o.id),
      { message: /CHECK/ },
      'never more tax than the line carries',
    );
  } finally {
    await handle.db.destroy();
  }

  t = await startTestApp({ jobs: false, dataDir });
  try {
    const token = await t.adminToken();
    const rest = expectStatus(await t.request('POST', '/v1/refunds', { token, body: { paymentId: payment.id } }), 201, 'the rest');
    a.is(rest.body.amount, 22_000 - 2_756);
    a.like((await t.request('GET', `/v1/orders/${o.id}`, { token })).body, { status: 'refunded' });
    const db = t.stores.get('live').db;
    const sum = async (account: string) =>
      Number(
        (
          await db
            .selectFrom('ledger_lines')
            .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount'), eb.lit(0)).as('s'))
            .where('account', '=', account)
            .executeTakeFirstOrThrow()
        ).s,
      );
    for (const account of [`tax_payable:${m.location.id}`, `revenue:${m.location.id}`, `commission:${m.location.id}`, `provider_payable:${m.walker.id}`])
      a.is(await sum(account), 0, account);
    await assertBooksBalance(a, t);
  } finally {
    await t.close();
  }
});
