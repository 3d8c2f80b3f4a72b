import test from 'ava';
import { TestClock, useTestApp } from '../helpers/test-app.js';
import { assertProblem } from '../gateway/gateway-support.js';

/** Money rows of another tenant in the same file answer 404 on every route and stay out of every list. */
let admin: string;
const at = '2026-11-23T15:00:00.000Z';

const t = useTestApp(test, { clock: new TestClock(Date.parse(at)), jobs: false });
test.before(async () => {
  admin = await t.adminToken();
  const db = t.stores.get('live').db;
  // A second tenant written straight into the live file: the API never creates one.
  await db.insertInto('tenants').values({ id: 'ten_foreign', name: 'Foreign group', created_at: at }).execute();
  await db
    .insertInto('locations')
    .values({ id: 'loc_foreign', tenant_id: 'ten_foreign', name: 'Foreign', timezone: 'UTC', currency: 'USD', tax_rate_bps: 0, created_at: at, updated_at: at })
    .execute();
  await db
    .insertInto('pet_parents')
    .values({
      id: 'usr_foreign',
      tenant_id: 'ten_foreign',
      location_id: 'loc_foreign',
      name: 'Foreigner',
      email: null,
      phone: null,
      reminder_consent: 0,
      created_at: at,
      updated_at: at,
    })
    .execute();
  await db
    .insertInto('invoices')
    .values({
      id: 'inv_foreign',
      tenant_id: 'ten_foreign',
      location_id: 'loc_foreign',
      parent_id: 'usr_foreign',
      pet_id: null,
      number: 'FO-000001',
      status: 'open',
      currency: 'USD',
      subtotal: 1000,
      tax: 0,
      total: 1000,
      amount_paid: 500,
      amount_refunded: 0,
      due_on: null,
      subscription_id: null,
      created_at: at,
      updated_at: at,
      finalized_at: at,
      paid_at: null,
      voided_at: null,
      uncollectible_at: null,
    })
    .execute();
  await db
    .insertInto('payments')
    .values({
      id: 'pay_foreign',
      tenant_id: 'ten_foreign',
      location_id: 'loc_foreign',
      parent_id: 'usr_foreign',
      invoice_id: 'inv_foreign',
      wallet_id: null,
      amount: 500,
      amount_refunded: 0,
      currency: 'USD',
      method: 'cash',
      reference: null,
      status: 'succeeded',
      settlement_id: null,
      created_at: at,
    })
    .execute();
  await db
    .insertInto('wallets')
    .values({ id: 'wal_foreign', tenant_id: 'ten_foreign', parent_id: 'usr_foreign', currency: 'USD', balance: 0, created_at: at, updated_at: at })
    .execute();
  // Lines and their entry in one transaction: the lines' foreign key waits for the entry until COMMIT.
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('ledger_lines')
      .values([
        { entry_id: 'je_foreign', position: 0, tenant_id: 'ten_foreign', account: 'cash:cash', amount: 500 },
        { entry_id: 'je_foreign', position: 1, tenant_id: 'ten_foreign', account: 'receivable:usr_foreign', amount: -500 },
      ])
      .execute();
    await trx
      .insertInto('ledger_entries')
      .values({
        id: 'je_foreign',
        tenant_id: 'ten_foreign',
        location_id: 'loc_foreign',
        source_type: 'payment',
        source_id: 'pay_foreign',
        currency: 'USD',
        memo: 'x',
        created_at: at,
      })
      .execute();
  });
});

test('another tenant’s invoice, payment and wallet answer 404, and no list shows them', async (a) => {
  for (const path of ['/v1/invoices/inv_foreign', '/v1/payments/pay_foreign', '/v1/wallets/wal_foreign', '/v1/wallets/wal_foreign/transactions']) {
    assertProblem(a, await t.request('GET', path, { token: admin }), 404, 'not_found');
  }
  assertProblem(a, await t.request('POST', '/v1/invoices/inv_foreign/void', { token: admin }), 404, 'not_found');
  assertProblem(a, await t.request('POST', '/v1/refunds', { token: admin, body: { paymentId: 'pay_foreign' } }), 404, 'not_found');
  assertProblem(a, await t.request('POST', '/v1/wallets/wal_foreign/top-ups', { token: admin, body: { amount: 100, method: 'cash' } }), 404, 'not_found');
  assertProblem(
    a,
    await t.request('POST', '/v1/payments', {
      token: admin,
      body: { parentId: 'usr_foreign', invoiceId: 'inv_foreign', amount: 1, currency: 'USD', method: 'cash' },
    }),
    404,
    'not_found',
  );
  assertProblem(a, await t.request('POST', '/v1/wallets', { token: admin, body: { parentId: 'usr_foreign', currency: 'EUR' } }), 400, 'resource_missing');
  for (const path of ['/v1/invoices', '/v1/payments', '/v1/wallets', '/v1/refunds', '/v1/ledger/entries', '/v1/settlements', '/v1/subscriptions']) {
    const res = await t.request('GET', `${path}?limit=100`, { token: admin });
    a.is(res.status, 200, path);
    a.false(JSON.stringify(res.body).includes('foreign'), path);
  }
  a.deepEqual((await t.request('GET', '/v1/ledger/entries?sourceId=pay_foreign', { token: admin })).body.data, []);
  a.deepEqual((await t.request('GET', '/v1/ledger/entries?account=receivable:usr_foreign', { token: admin })).body.data, []);
});
