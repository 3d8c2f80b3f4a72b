import test from 'ava';
import { TestClock, useTestApp } from '../helpers/test-app.js';
import { assertProblem } from '../gateway/gateway-support.js';

/** POST/GET /v1/sandbox/clock: the sandbox's business clock moves billing, closes and money dates; tokens keep real time. */
const real = Date.parse('2026-11-23T15:00:00.000Z');
const day = 86_400_000;
let sandbox: string;

const t = useTestApp(test, { clock: new TestClock(real) });
test.before(async () => {
  sandbox = await t.adminToken('sandbox');
});

const clock = () => t.request('GET', '/v1/sandbox/clock', { token: sandbox });
const advance = (advanceTo: string, token = sandbox, idempotencyKey?: string) =>
  t.request('POST', '/v1/sandbox/clock', { token, body: { advanceTo }, ...(idempotencyKey ? { idempotencyKey } : {}) });
async function run(job: string) {
  const res = await t.request('POST', `/v1/jobs/${job}/run`, { token: sandbox, body: { wait: true } });
  if (res.status !== 200 || res.body.status !== 'succeeded') throw new Error(`${job}: ${res.status} ${res.text}`);
  return res.body.result;
}

test.serial('a month of wallet billing in a minute: advance the clock, the job bills the next period, tokens keep working', async (a) => {
  const start = await clock();
  a.is(start.status, 200, start.text);
  a.deepEqual(start.body, { now: new Date(real).toISOString(), realNow: new Date(real).toISOString(), advancedBySeconds: 0 });

  const wallet = await t.request('POST', '/v1/wallets', { token: sandbox, body: { parentId: 'usr_demo_alex', currency: 'USD' } });
  await t.request('POST', `/v1/wallets/${wallet.body.id}/top-ups`, { token: sandbox, body: { amount: 10_000, method: 'cash' } });
  const sub = await t.request('POST', '/v1/subscriptions', {
    token: sandbox,
    body: { parentId: 'usr_demo_alex', locationId: 'loc_demo_downtown', description: 'Puppy plan', amount: 1_000, interval: 'month', collection: 'wallet' },
  });
  a.is(sub.status, 201, sub.text);
  // Downtown charges 8.25 %: 1,000 + 83 = 1,083 a month.
  a.like(sub.body, { status: 'active', currentPeriodStart: '2026-11-23', currentPeriodEnd: '2026-12-23' });

  const moved = await advance('2026-12-23T15:00:00Z');
  a.is(moved.status, 200, moved.text);
  a.deepEqual(moved.body, { now: '2026-12-23T15:00:00.000Z', realNow: new Date(real).toISOString(), advancedBySeconds: 30 * 86_400 });
  a.deepEqual((await clock()).body, moved.body);
  await run('subscription-billing');
  const after = await t.request('GET', `/v1/subscriptions/${sub.body.id}`, { token: sandbox });
  a.like(after.body, { status: 'active', currentPeriodStart: '2026-12-23', currentPeriodEnd: '2027-01-23' });
  const invoice = await t.request('GET', `/v1/invoices/${after.body.latestInvoiceId}`, { token: sandbox });
  a.like(invoice.body, { status: 'paid', total: 1_083, createdAt: '2026-12-23T15:00:00.000Z' });
  a.like((await t.request('GET', `/v1/wallets/${wallet.body.id}`, { token: sandbox })).body, { balance: 10_000 - 2 * 1_083 });

  // The clock keeps running from where it was set, and live never moved.
  t.clock.advance(60_000);
  a.like((await clock()).body, { now: '2026-12-23T15:01:00.000Z', advancedBySeconds: 30 * 86_400 });
  const live = await t.request('POST', '/v1/locations', { token: await t.adminToken('live'), body: { name: 'Live now', timezone: 'UTC' } });
  a.is(live.body.createdAt, new Date(real + 60_000).toISOString());

  // The days that went by close in the sandbox (the move queued a settlement run too; either closes each day once).
  await run('settlement');
  const all = await t.request('GET', '/v1/settlements?locationId=loc_demo_downtown&from=2026-11-23&to=2026-12-22&limit=100', { token: sandbox });
  a.is(all.body.data.length, 30, 'one USD close per local day from 23 Nov to 22 Dec');
  const closes = await t.request('GET', '/v1/settlements?locationId=loc_demo_downtown&from=2026-11-23&to=2026-11-23', { token: sandbox });
  a.like(closes.body.data[0], { kind: 'daily_close', periodStart: '2026-11-23', currency: 'USD' });
});

test.serial('never backwards: a time before now is 422 clock_backwards and the clock stays', async (a) => {
  const before = (await clock()).body;
  const back = await advance('2026-11-24T00:00:00Z');
  assertProblem(a, back, 422, 'clock_backwards');
  a.is(back.body.now, before.now);
  a.deepEqual((await clock()).body, before);
  assertProblem(a, await advance('tomorrow'), 400, 'validation_failed');
  assertProblem(a, await t.request('POST', '/v1/sandbox/clock', { token: sandbox, body: {} }), 400, 'validation_failed');
  // The same instant is not backwards.
  const same = await advance(before.now);
  a.is(same.status, 200, same.text);
});

test.serial('Idempotency-Key: a replayed move answers the first', async (a) => {
  const target = new Date(Date.parse((await clock()).body.now) + day).toISOString();
  const first = await advance(target, sandbox, 'clock-once');
  const again = await advance(target, sandbox, 'clock-once');
  a.is(again.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(again.body, first.body);
});

test.serial('live clients get 404; non-admin clients 403; no token 401', async (a) => {
  const liveAdmin = await t.adminToken('live');
  assertProblem(a, await t.request('GET', '/v1/sandbox/clock', { token: liveAdmin }), 404, 'not_found');
  assertProblem(a, await advance('2030-01-01T00:00:00Z', liveAdmin), 404, 'not_found');
  const staff = await t.client({ environment: 'sandbox', role: 'staff', scopes: ['payments'] });
  assertProblem(a, await t.request('GET', '/v1/sandbox/clock', { token: staff.accessToken }), 403, 'insufficient_scope');
  assertProblem(a, await t.request('GET', '/v1/sandbox/clock'), 401, 'unauthorized');
});

test.serial('sandbox reset returns the clock to real time and erases the money records', async (a) => {
  const invoices = await t.request('GET', '/v1/invoices?limit=1', { token: sandbox });
  const someInvoice = invoices.body.data[0].id as string;
  const reset = await t.request('POST', '/v1/sandbox/reset', { token: sandbox });
  a.is(reset.status, 200, reset.text);
  a.like((await clock()).body, { advancedBySeconds: 0, now: new Date(t.clock.now()).toISOString() });
  assertProblem(a, await t.request('GET', `/v1/invoices/${someInvoice}`, { token: sandbox }), 404, 'not_found');
  const entries = (await t.request('GET', '/v1/ledger/entries?limit=100', { token: sandbox })).body.data as Array<{ sourceId: string }>;
  a.true(entries.length > 0, "the demo practice's journal");
  a.false(entries.some((e) => e.sourceId === someInvoice));
  a.deepEqual((await t.request('GET', '/v1/settlements', { token: sandbox })).body.data, []);
  // And money works again, numbering on from the demo practice's invoices.
  const again = await t.request('POST', '/v1/invoices', {
    token: sandbox,
    body: { parentId: 'usr_demo_alex', locationId: 'loc_demo_downtown', lines: [{ description: 'Checkup', quantity: 1, unitAmount: 5_000 }], finalize: true },
  });
  a.is(again.status, 201, again.text);
  a.regex(again.body.number, /^DVC-\d{6}$/);
  a.not(again.body.number, 'DVC-000001');
});
