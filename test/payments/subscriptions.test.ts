import test from 'ava';
import pino from 'pino';
import type { JobContext } from '../../src/jobs/job-definition.js';
import { adminCredentials, startTestApp, TestClock, type TestApp, type TokenSet } from '../helpers/test-app.js';
import { assertProblem } from '../gateway/gateway-support.js';
import { assertBooksBalance, eventsOf, moneyHousehold, wallet, type Household } from './payments-support.js';

/** /v1/subscriptions and the subscription-billing job: each period invoiced once, wallet collection, past_due and recovery. */
const subscriptionKeys = [
  'id',
  'status',
  'parentId',
  'petId',
  'locationId',
  'description',
  'amount',
  'currency',
  'interval',
  'intervalCount',
  'collection',
  'startDate',
  'trialEnd',
  'currentPeriodStart',
  'currentPeriodEnd',
  'latestInvoiceId',
  'cancelAtPeriodEnd',
  'canceledAt',
  'createdAt',
].sort();

const day = 86_400_000;
// 15:00 UTC on 23 Nov 2026: the same local date in London (every location here).
const start = Date.parse('2026-11-23T15:00:00.000Z');

/** Each test gets its own app: they move the clock (and take new tokens after each move). */
async function setup() {
  const t = await startTestApp({ clock: new TestClock(start) });
  const admin = await t.adminToken();
  const staff: TokenSet = await t.client({ name: 'front desk', role: 'staff', scopes: ['payments'] });
  const h = await moneyHousehold(t, { name: 'Sub Clinic', taxRateBps: 0 });
  /** Sets the clock; the tokens of the admin (runBilling) and of staff are taken again for the new time. */
  const move = async (at: number) => {
    t.clock.set(at);
    staff.accessToken = (await t.token(staff.clientId, staff.clientSecret)).body.access_token;
    adminNow.token = (await t.token(adminCredentials.live.clientId, adminCredentials.live.clientSecret)).body.access_token;
  };
  const adminNow = { token: admin };
  return { t, admin: adminNow, staff, h, move };
}

async function runBilling(t: TestApp, admin: { token: string }) {
  const res = await t.request('POST', '/v1/jobs/subscription-billing/run', { token: admin.token, body: { wait: true } });
  if (res.status !== 200 || res.body.status !== 'succeeded') throw new Error(`billing run: ${res.status} ${res.text}`);
  return res.body;
}

const subscribe = (t: TestApp, token: string, h: Household, body: Record<string, unknown> = {}, idempotencyKey?: string) =>
  t.request('POST', '/v1/subscriptions', {
    token,
    body: { parentId: h.parent.id, locationId: h.location.id, description: 'Wellness plan', amount: 2_000, interval: 'month', collection: 'wallet', ...body },
    ...(idempotencyKey ? { idempotencyKey } : {}),
  });

async function invoicesOf(t: TestApp, subscriptionId: string) {
  return t.stores
    .get('live')
    .db.selectFrom('subscription_invoices')
    .innerJoin('invoices', 'invoices.id', 'subscription_invoices.invoice_id')
    .select(['period_start', 'period_end', 'invoices.id', 'invoices.status', 'invoices.total'])
    .where('subscription_invoices.subscription_id', '=', subscriptionId)
    .orderBy('period_start')
    .execute();
}

test('collection wallet: the first period is billed and paid from the wallet at once; a month later the job bills the next, once', async (a) => {
  const { t, admin, staff, h, move } = await setup();
  try {
    const w = await wallet(t, staff.accessToken, h.parent.id, 5_000);
    const res = await subscribe(t, staff.accessToken, h, { petId: h.pet.id });
    a.is(res.status, 201, res.text);
    a.deepEqual(Object.keys(res.body).sort(), subscriptionKeys);
    a.regex(res.body.id, /^sub_[a-z0-9]{26}$/);
    a.like(res.body, {
      status: 'active',
      amount: 2_000,
      currency: 'USD',
      interval: 'month',
      intervalCount: 1,
      collection: 'wallet',
      petId: h.pet.id,
      startDate: '2026-11-23',
      trialEnd: null,
      currentPeriodStart: '2026-11-23',
      currentPeriodEnd: '2026-12-23',
      cancelAtPeriodEnd: false,
      canceledAt: null,
    });
    const first = await t.request('GET', `/v1/invoices/${res.body.latestInvoiceId}`, { token: staff.accessToken });
    a.like(first.body, { status: 'paid', total: 2_000, amountPaid: 2_000, petId: h.pet.id });
    a.is(first.body.lines[0].description, 'Wellness plan (2026-11-23 to 2026-12-22)');
    a.like((await t.request('GET', `/v1/wallets/${w.id}`, { token: staff.accessToken })).body, { balance: 3_000 });
    a.is((await eventsOf(t, 'subscription.created', 'subscriptionId', res.body.id)).length, 1);

    // Not due yet: running the job changes nothing.
    await runBilling(t, admin);
    a.is((await invoicesOf(t, res.body.id)).length, 1);

    await move(Date.parse('2026-12-23T09:00:00Z'));
    const [one, two] = await Promise.all([runBilling(t, admin), runBilling(t, admin)]);
    a.truthy(one && two);
    await runBilling(t, admin);
    const periods = await invoicesOf(t, res.body.id);
    a.deepEqual(
      periods.map((p) => [p.period_start, p.period_end, p.status]),
      [
        ['2026-11-23', '2026-12-23', 'paid'],
        ['2026-12-23', '2027-01-23', 'paid'],
      ],
    );
    const sub = await t.request('GET', `/v1/subscriptions/${res.body.id}`, { token: staff.accessToken });
    a.like(sub.body, { status: 'active', currentPeriodStart: '2026-12-23', currentPeriodEnd: '2027-01-23', latestInvoiceId: periods[1]!.id });
    a.like((await t.request('GET', `/v1/wallets/${w.id}`, { token: staff.accessToken })).body, { balance: 1_000 });
    await assertBooksBalance(a, t);
  } finally {
    await t.close();
  }
});

test('the job run in parallel with itself (and the HTTP runs) still invoices each period exactly once', async (a) => {
  const { t, admin, staff, h, move } = await setup();
  try {
    await wallet(t, staff.accessToken, h.parent.id, 100_000);
    const res = await subscribe(t, staff.accessToken, h, { interval: 'week' });
    await move(start + 35 * day);
    const { subscriptionBillingJob } = await import('../../src/modules/payments/subscription-billing.job.js');
    const job = subscriptionBillingJob();
    const store = t.stores.get('live');
    const ctx: JobContext = {
      name: job.name,
      env: 'live',
      store,
      config: t.config,
      clock: t.clock,
      logger: pino({ level: 'silent' }),
      payload: {},
      attempt: 1,
      signal: new AbortController().signal,
      enqueue: async () => 'none',
    };
    const results = await Promise.all([job.run(ctx), job.run(ctx), job.run(ctx), runBilling(t, admin)]);
    a.is(results.length, 4);
    const periods = await invoicesOf(t, res.body.id);
    a.deepEqual(
      periods.map((p) => p.period_start),
      ['2026-11-23', '2026-11-30', '2026-12-07', '2026-12-14', '2026-12-21', '2026-12-28'],
    );
    const invoices = await store.db.selectFrom('invoices').select('id').where('subscription_id', '=', res.body.id).execute();
    a.is(invoices.length, 6, 'one invoice per period, no orphan');
  } finally {
    await t.close();
  }
});

test('a short wallet leaves the invoice open and the subscription past_due; a top-up and the next run recover it', async (a) => {
  const { t, admin, staff, h, move } = await setup();
  try {
    const w = await wallet(t, staff.accessToken, h.parent.id, 1_500);
    const res = await subscribe(t, staff.accessToken, h);
    a.is(res.body.status, 'past_due');
    const invoice = await t.request('GET', `/v1/invoices/${res.body.latestInvoiceId}`, { token: staff.accessToken });
    a.like(invoice.body, { status: 'open', amountPaid: 0, amountDue: 2_000 });
    a.like((await t.request('GET', `/v1/wallets/${w.id}`, { token: staff.accessToken })).body, { balance: 1_500 }, 'the whole amount or nothing');
    const pastDue = await eventsOf(t, 'subscription.past_due', 'subscriptionId', res.body.id);
    a.is(pastDue.length, 1);
    a.deepEqual(pastDue[0]!.data, { subscriptionId: res.body.id, parentId: h.parent.id, status: 'past_due', latestInvoiceId: res.body.latestInvoiceId });

    await runBilling(t, admin);
    a.is((await t.request('GET', `/v1/subscriptions/${res.body.id}`, { token: staff.accessToken })).body.status, 'past_due');
    await t.request('POST', `/v1/wallets/${w.id}/top-ups`, { token: staff.accessToken, body: { amount: 1_000, method: 'cash' } });
    await runBilling(t, admin);
    a.is((await t.request('GET', `/v1/subscriptions/${res.body.id}`, { token: staff.accessToken })).body.status, 'active');
    a.like((await t.request('GET', `/v1/invoices/${res.body.latestInvoiceId}`, { token: staff.accessToken })).body, { status: 'paid' });
    a.like((await t.request('GET', `/v1/wallets/${w.id}`, { token: staff.accessToken })).body, { balance: 500 });
    a.is((await eventsOf(t, 'subscription.past_due', 'subscriptionId', res.body.id)).length, 1);
  } finally {
    await t.close();
  }
});

test('past_due recovers when the open invoice is paid at the desk', async (a) => {
  const { t, staff, h } = await setup();
  try {
    const res = await subscribe(t, staff.accessToken, h);
    a.is(res.body.status, 'past_due', 'no wallet at all');
    const paid = await t.request('POST', '/v1/payments', {
      token: staff.accessToken,
      body: { parentId: h.parent.id, invoiceId: res.body.latestInvoiceId, amount: 2_000, currency: 'USD', method: 'cash' },
    });
    a.is(paid.status, 201, paid.text);
    a.is((await t.request('GET', `/v1/subscriptions/${res.body.id}`, { token: staff.accessToken })).body.status, 'active');
  } finally {
    await t.close();
  }
});

test('a trial bills nothing until it ends; then the first period is invoiced and the subscription is active', async (a) => {
  const { t, admin, staff, h, move } = await setup();
  try {
    await wallet(t, staff.accessToken, h.parent.id, 10_000);
    const res = await subscribe(t, staff.accessToken, h, { trialDays: 14 });
    a.like(res.body, { status: 'trialing', trialEnd: '2026-12-07', currentPeriodStart: '2026-11-23', currentPeriodEnd: '2026-12-07', latestInvoiceId: null });
    await move(start + 13 * day);
    await runBilling(t, admin);
    a.is((await invoicesOf(t, res.body.id)).length, 0);
    await move(start + 14 * day);
    await runBilling(t, admin);
    const sub = await t.request('GET', `/v1/subscriptions/${res.body.id}`, { token: staff.accessToken });
    a.like(sub.body, { status: 'active', currentPeriodStart: '2026-12-07', currentPeriodEnd: '2027-01-07' });
    a.deepEqual(
      (await invoicesOf(t, res.body.id)).map((p) => p.status),
      ['paid'],
    );
  } finally {
    await t.close();
  }
});

test('missed periods are caught up, and month ends stay month ends (31 Jan → 28 Feb → 31 Mar)', async (a) => {
  const { t, staff, h } = await setup();
  try {
    const res = await subscribe(t, staff.accessToken, h, { startDate: '2026-01-31', collection: 'send_invoice' });
    a.is(res.status, 201, res.text);
    const periods = await invoicesOf(t, res.body.id);
    a.deepEqual(
      periods.map((p) => p.period_start),
      ['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30', '2026-05-31', '2026-06-30', '2026-07-31', '2026-08-31', '2026-09-30', '2026-10-31'],
    );
    a.true(periods.every((p) => p.status === 'open'));
    a.like(res.body, { currentPeriodStart: '2026-10-31', currentPeriodEnd: '2026-11-30' });
    // Invoices open past their due date (30 days after each period start): the subscription is past_due at once.
    a.is(res.body.status, 'past_due');
    a.is((await eventsOf(t, 'subscription.past_due', 'subscriptionId', res.body.id)).length, 1);
  } finally {
    await t.close();
  }
});

test('pause and resume: periods that start while paused are not billed; billing resumes with the next period', async (a) => {
  const { t, admin, staff, h, move } = await setup();
  try {
    await wallet(t, staff.accessToken, h.parent.id, 100_000);
    const res = await subscribe(t, staff.accessToken, h, { interval: 'week' });
    const paused = await t.request('PATCH', `/v1/subscriptions/${res.body.id}`, { token: staff.accessToken, body: { status: 'paused' } });
    a.is(paused.status, 200, paused.text);
    a.is(paused.body.status, 'paused');
    await move(start + 10 * day); // 3 Dec: the 30 Nov period started while paused
    await runBilling(t, admin);
    a.is((await invoicesOf(t, res.body.id)).length, 1);
    const resumed = await t.request('PATCH', `/v1/subscriptions/${res.body.id}`, { token: staff.accessToken, body: { status: 'active' } });
    a.is(resumed.body.status, 'active');
    await runBilling(t, admin);
    a.is((await invoicesOf(t, res.body.id)).length, 1);
    await move(start + 14 * day); // 7 Dec
    await runBilling(t, admin);
    a.deepEqual(
      (await invoicesOf(t, res.body.id)).map((p) => p.period_start),
      ['2026-11-23', '2026-12-07'],
    );
  } finally {
    await t.close();
  }
});

test('cancel now, cancel at period end, and the forbidden moves (409 with the current status)', async (a) => {
  const { t, admin, staff, h, move } = await setup();
  try {
    await wallet(t, staff.accessToken, h.parent.id, 100_000);
    const now = await subscribe(t, staff.accessToken, h);
    const canceled = await t.request('POST', `/v1/subscriptions/${now.body.id}/cancel`, { token: staff.accessToken });
    a.is(canceled.status, 200, canceled.text);
    a.like(canceled.body, { status: 'canceled', canceledAt: new Date(start).toISOString() });
    a.deepEqual(
      (await eventsOf(t, 'subscription.canceled', 'subscriptionId', now.body.id)).map((e) => e.data.status),
      ['canceled'],
    );
    const again = await t.request('POST', `/v1/subscriptions/${now.body.id}/cancel`, { token: staff.accessToken });
    assertProblem(a, again, 409, 'invalid_state_transition');
    a.is(again.body.currentStatus, 'canceled');
    assertProblem(
      a,
      await t.request('PATCH', `/v1/subscriptions/${now.body.id}`, { token: staff.accessToken, body: { status: 'active' } }),
      409,
      'invalid_state_transition',
    );

    const later = await subscribe(t, staff.accessToken, h);
    const flagged = await t.request('POST', `/v1/subscriptions/${later.body.id}/cancel`, { token: staff.accessToken, body: { atPeriodEnd: true } });
    a.like(flagged.body, { status: 'active', cancelAtPeriodEnd: true });
    await move(Date.parse('2026-12-23T12:00:00Z'));
    await runBilling(t, admin);
    a.like((await t.request('GET', `/v1/subscriptions/${later.body.id}`, { token: staff.accessToken })).body, { status: 'canceled' });
    a.is((await invoicesOf(t, later.body.id)).length, 1, 'the next period is not billed');

    const trial = await subscribe(t, staff.accessToken, h, { trialDays: 7 });
    const pause = await t.request('PATCH', `/v1/subscriptions/${trial.body.id}`, { token: staff.accessToken, body: { status: 'paused' } });
    assertProblem(a, pause, 409, 'invalid_state_transition');
    a.is(pause.body.currentStatus, 'trialing');
    const due = await subscribe(t, staff.accessToken, { ...h, parent: await parentWithoutWallet(t, h, admin.token) });
    a.is(due.body.status, 'past_due');
    assertProblem(
      a,
      await t.request('PATCH', `/v1/subscriptions/${due.body.id}`, { token: staff.accessToken, body: { status: 'active' } }),
      409,
      'invalid_state_transition',
    );
    assertProblem(
      a,
      await t.request('PATCH', `/v1/subscriptions/${due.body.id}`, { token: staff.accessToken, body: { status: 'paused' } }),
      409,
      'invalid_state_transition',
    );
  } finally {
    await t.close();
  }
});

async function parentWithoutWallet(t: TestApp, h: Household, token: string) {
  const res = await t.request('POST', '/v1/pet-parents', { token, body: { name: 'No wallet', locationId: h.location.id } });
  return res.body as { id: string };
}

test('validation, auth, scoping, isolation and Idempotency-Key', async (a) => {
  const { t, staff, h } = await setup();
  try {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ amount: -1 }, 'amount'],
      [{ amount: 19.99 }, 'amount'],
      [{ amount: 1_000_000_000_001 }, 'amount'],
      [{ interval: 'day' }, 'interval'],
      [{ intervalCount: 0 }, 'intervalCount'],
      [{ trialDays: -1 }, 'trialDays'],
      [{ currency: 'XYZ' }, 'currency'],
      [{ collection: 'card' }, 'collection'],
      [{ startDate: '2026-02-30' }, 'startDate'],
      [{ startDate: '2020-01-01' }, 'startDate'],
      [{ description: ' ' }, 'description'],
    ];
    for (const [body, field] of cases) {
      const res = await subscribe(t, staff.accessToken, h, body);
      assertProblem(a, res, 400, 'validation_failed');
      a.true(
        (res.body.errors as Array<{ field: string }>).some((e) => e.field === field),
        `${JSON.stringify(body)} → ${res.text}`,
      );
    }
    a.is((await t.request('GET', '/v1/subscriptions', { token: staff.accessToken })).body.data.length, 0, 'nothing written');

    const created = await subscribe(t, staff.accessToken, h, { collection: 'send_invoice' }, 'sub-once');
    const replay = await subscribe(t, staff.accessToken, h, { collection: 'send_invoice' }, 'sub-once');
    a.is(replay.headers.get('idempotent-replayed'), 'true');
    a.deepEqual(replay.body, created.body);
    a.is((await invoicesOf(t, created.body.id)).length, 1);

    assertProblem(a, await t.request('GET', '/v1/subscriptions'), 401, 'unauthorized');
    const doctor = await t.client({ name: 'doctor', role: 'doctor', scopes: ['pets'] });
    assertProblem(a, await t.request('GET', '/v1/subscriptions', { token: doctor.accessToken }), 403, 'insufficient_scope');
    const reader = await t.client({ name: 'reader', role: 'staff', scopes: ['payments.read'] });
    assertProblem(a, await subscribe(t, reader.accessToken, h), 403, 'insufficient_scope');

    const other = await moneyHousehold(t, { name: 'Elsewhere' });
    const scoped = await t.client({ name: 'other only', role: 'staff', scopes: ['payments'], locationIds: [other.location.id] });
    for (const [method, path, body] of [
      ['GET', `/v1/subscriptions/${created.body.id}`, undefined],
      ['PATCH', `/v1/subscriptions/${created.body.id}`, { description: 'x' }],
      ['POST', `/v1/subscriptions/${created.body.id}/cancel`, {}],
    ] as const) {
      assertProblem(a, await t.request(method, path, { token: scoped.accessToken, ...(body ? { body } : {}) }), 404, 'not_found');
    }
    a.deepEqual((await t.request('GET', '/v1/subscriptions', { token: scoped.accessToken })).body.data, []);
    assertProblem(a, await subscribe(t, scoped.accessToken, h), 400, 'resource_missing');
    assertProblem(a, await t.request('GET', `/v1/subscriptions/${created.body.id}`, { token: await t.adminToken('sandbox') }), 404, 'not_found');
  } finally {
    await t.close();
  }
});
