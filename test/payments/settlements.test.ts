import test from 'ava';
import pino from 'pino';
import type { JobContext } from '../../src/jobs/job-definition.js';
import { adminCredentials, startTestApp, TestClock, type TestApp, type TokenSet } from '../helpers/test-app.js';
import { assertProblem } from '../gateway/gateway-support.js';
import { moneyHousehold, openInvoice, type Household } from './payments-support.js';

/** The settlement job's daily_close per location and local day, and GET /v1/settlements. */
const settlementKeys = [
  'id',
  'kind',
  'locationId',
  'providerId',
  'periodStart',
  'periodEnd',
  'currency',
  'gross',
  'refunds',
  'net',
  'byMethod',
  'paymentCount',
  'refundCount',
  'status',
  'createdAt',
].sort();

// 10:00 on Monday 23 Nov 2026 in New York (UTC−5).
const start = Date.parse('2026-11-23T15:00:00.000Z');

async function setup() {
  const t = await startTestApp({ clock: new TestClock(start) });
  const staff: TokenSet = await t.client({ name: 'front desk', role: 'staff', scopes: ['payments'] });
  const admin = { token: await t.adminToken() };
  const h = await moneyHousehold(t, { name: 'Close Clinic', timezone: 'America/New_York', taxRateBps: 0 });
  const move = async (at: number) => {
    t.clock.set(at);
    staff.accessToken = (await t.token(staff.clientId, staff.clientSecret)).body.access_token;
    admin.token = (await t.token(adminCredentials.live.clientId, adminCredentials.live.clientSecret)).body.access_token;
  };
  const pay = async (body: Record<string, unknown>) => {
    const res = await t.request('POST', '/v1/payments', {
      token: staff.accessToken,
      body: { parentId: h.parent.id, currency: 'USD', method: 'cash', ...body },
    });
    if (res.status !== 201) throw new Error(`payment: ${res.status} ${res.text}`);
    return res.body as { id: string };
  };
  const settle = async () => {
    const res = await t.request('POST', '/v1/jobs/settlement/run', { token: admin.token, body: { wait: true } });
    if (res.status !== 200 || res.body.status !== 'succeeded') throw new Error(`settlement run: ${res.status} ${res.text}`);
    return res.body.result as { days: number; settlements: number };
  };
  const closes = async (h2: Household = h) =>
    (await t.request('GET', `/v1/settlements?locationId=${h2.location.id}&kind=daily_close&limit=100`, { token: staff.accessToken })).body.data as Array<
      Record<string, unknown>
    >;
  return { t, staff, admin, h, move, pay, settle, closes };
}

test('a local day closes once it has ended: payments and refunds by method, gross − refunds = net; later entries go to the next day', async (a) => {
  const { t, staff, h, move, pay, settle, closes } = await setup();
  try {
    await pay({ amount: 1_000 });
    const card = await pay({ amount: 2_000, method: 'card_terminal' });
    const refund = await t.request('POST', '/v1/refunds', { token: staff.accessToken, body: { paymentId: card.id, amount: 300 } });
    a.is(refund.status, 201, refund.text);
    const w = await t.request('POST', '/v1/wallets', { token: staff.accessToken, body: { parentId: h.parent.id, currency: 'USD' } });
    await t.request('POST', `/v1/wallets/${w.body.id}/top-ups`, { token: staff.accessToken, body: { amount: 5_000, method: 'cash' } });
    await pay({ amount: 500, method: 'wallet' });
    a.is((await settle()).days, 0, 'the day has not ended');

    await move(Date.parse('2026-11-24T04:59:00Z')); // 23:59 on the 23rd in New York
    await pay({ amount: 700 });
    a.is((await settle()).days, 0);
    await move(Date.parse('2026-11-24T05:30:00Z')); // 00:30 on the 24th
    await pay({ amount: 100 });
    a.like(await settle(), { days: 1, settlements: 1 });
    const [close] = await closes();
    a.deepEqual(Object.keys(close!).sort(), settlementKeys);
    a.like(close, {
      kind: 'daily_close',
      locationId: h.location.id,
      providerId: null,
      periodStart: '2026-11-23',
      periodEnd: '2026-11-23',
      currency: 'USD',
      gross: 4_200,
      refunds: 300,
      net: 3_900,
      paymentCount: 4,
      refundCount: 1,
      status: 'closed',
    });
    a.deepEqual(close!.byMethod, { cash: 1_700, card_terminal: 1_700, wallet: 500 });
    a.deepEqual((await t.request('GET', `/v1/settlements/${close!.id}`, { token: staff.accessToken })).body, close);
    a.is((await settle()).days, 0, 'a second run closes nothing again');

    // A payment recorded late, dated in the closed day (e.g. written by another process): the closed day stays as it was.
    const db = t.stores.get('live').db;
    await db
      .insertInto('payments')
      .values({
        id: 'pay_zz_late',
        tenant_id: t.tenantId,
        location_id: h.location.id,
        parent_id: h.parent.id,
        invoice_id: null,
        wallet_id: null,
        amount: 42,
        amount_refunded: 0,
        currency: 'USD',
        method: 'check',
        reference: null,
        status: 'succeeded',
        settlement_id: null,
        created_at: '2026-11-23T20:00:00.000Z',
      })
      .execute();
    await move(Date.parse('2026-11-25T05:30:00Z'));
    await settle();
    const [next, first] = await closes();
    a.deepEqual(first, close, 'the closed day is unchanged');
    a.like(next, { periodStart: '2026-11-24', gross: 142, net: 142, paymentCount: 2 });
    a.deepEqual(next!.byMethod, { cash: 100, check: 42 });
    await a.throwsAsync(
      db
        .updateTable('settlements')
        .set({ gross: 0 })
        .where('id', '=', close!.id as string)
        .execute(),
      { message: /immutable/ },
    );
    await a.throwsAsync(
      db
        .deleteFrom('settlements')
        .where('id', '=', close!.id as string)
        .execute(),
      { message: /never deleted/ },
    );
    await a.throwsAsync(db.updateTable('payments').set({ settlement_id: null }).where('id', '=', card.id).execute(), {
      message: /only its refunded amount and settlement/,
    });
  } finally {
    await t.close();
  }
});

test('missed runs catch up every day, quiet days included; other currencies close separately; parallel runs close each day once', async (a) => {
  const { t, staff, h, move, settle, closes } = await setup();
  try {
    const eur = await openInvoice(t, staff.accessToken, h, 900, { currency: 'EUR' });
    await t.request('POST', '/v1/payments', {
      token: staff.accessToken,
      body: { parentId: h.parent.id, invoiceId: eur.id, amount: 900, currency: 'EUR', method: 'bank_transfer' },
    });
    await move(Date.parse('2026-11-27T12:00:00Z'));
    const { settlementJob } = await import('../../src/modules/payments/settlement.job.js');
    const job = settlementJob();
    const ctx: JobContext = {
      name: job.name,
      env: 'live',
      store: t.stores.get('live'),
      config: t.config,
      clock: t.clock,
      logger: pino({ level: 'silent' }),
      payload: {},
      attempt: 1,
      signal: new AbortController().signal,
      enqueue: async () => 'none',
    };
    await Promise.all([job.run(ctx), job.run(ctx), settle(), job.run(ctx)]);
    const rows = await closes();
    a.deepEqual(rows.map((r) => [r.periodStart, r.currency, r.net]).reverse(), [
      ['2026-11-23', 'EUR', 900],
      ['2026-11-23', 'USD', 0],
      ['2026-11-24', 'USD', 0],
      ['2026-11-25', 'USD', 0],
      ['2026-11-26', 'USD', 0],
    ]);
  } finally {
    await t.close();
  }
});

test('settlements follow the caller: 401, 403, another location answers 404, sandbox and live apart', async (a) => {
  const { t, staff, h, move, pay, settle, closes } = await setup();
  try {
    const other = await moneyHousehold(t, { name: 'Other close', timezone: 'America/New_York' });
    const scoped = await t.client({ name: 'other only', role: 'staff', scopes: ['payments.read'], locationIds: [other.location.id] });
    const doctor = await t.client({ name: 'doctor', role: 'doctor', scopes: ['pets'] });
    await pay({ amount: 10 });
    await move(Date.parse('2026-11-24T12:00:00Z'));
    await settle();
    const [mine] = await closes();
    a.truthy(mine);
    scoped.accessToken = (await t.token(scoped.clientId, scoped.clientSecret)).body.access_token;
    doctor.accessToken = (await t.token(doctor.clientId, doctor.clientSecret)).body.access_token;
    assertProblem(a, await t.request('GET', `/v1/settlements/${mine!.id}`, { token: scoped.accessToken }), 404, 'not_found');
    const theirs = await t.request('GET', '/v1/settlements?limit=100', { token: scoped.accessToken });
    a.true(theirs.body.data.length > 0);
    a.true(theirs.body.data.every((s: { locationId: string }) => s.locationId === other.location.id));
    assertProblem(a, await t.request('GET', '/v1/settlements'), 401, 'unauthorized');
    assertProblem(a, await t.request('GET', '/v1/settlements', { token: doctor.accessToken }), 403, 'insufficient_scope');
    const sandbox = (await t.token(adminCredentials.sandbox.clientId, adminCredentials.sandbox.clientSecret)).body.access_token;
    assertProblem(a, await t.request('GET', `/v1/settlements/${mine!.id}`, { token: sandbox }), 404, 'not_found');
    const filtered = await t.request('GET', `/v1/settlements?locationId=${h.location.id}&from=2026-11-24`, { token: staff.accessToken });
    a.deepEqual(filtered.body.data, []);
    assertProblem(a, await t.request('GET', '/v1/settlements?kind=weekly', { token: staff.accessToken }), 400, 'validation_failed');
  } finally {
    await t.close();
  }
});
