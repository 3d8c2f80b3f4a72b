import test from 'ava';
import { assertFieldErrors, assertProblem, fieldsOf, walk } from '../gateway/gateway-support.js';
import { createLocation, createPetParent } from '../helpers/factories.js';
import { adminCredentials, TestClock, type TokenSet, useTestApp } from '../helpers/test-app.js';
import { expectStatus } from '../payments/payments-support.js';

/**
 * GET /v1/analytics/summary and the money metric revenue_net: local-day windows per location,
 * reconciliation with the journal to the cent, the records behind the value, location scoping,
 * currencies, and every refusal of bad input.
 */
const start = Date.parse('2026-10-30T12:00:00.000Z');
let admin: string;
let scopedNy: TokenSet;
let doctor: TokenSet;
let staff: TokenSet;
const ny = { location: { id: '' }, parent: { id: '' } };
const london = { location: { id: '' }, parent: { id: '' } };

const november = 'from=2026-11-01&to=2026-11-30';

/** Moves the clock (payments are dated by it) and takes fresh tokens: the old ones expire an hour after they were issued. */
async function setClock(at: string): Promise<void> {
  t.clock.set(Date.parse(at));
  const fresh = async (clientId: string, clientSecret: string) =>
    (await expectStatus(await t.token(clientId, clientSecret), 200, 'token')).body.access_token as string;
  admin = await fresh(adminCredentials.live.clientId, adminCredentials.live.clientSecret);
  for (const client of [scopedNy, doctor, staff]) client.accessToken = await fresh(client.clientId, client.clientSecret);
}

async function payAt(at: string, body: Record<string, unknown>): Promise<{ id: string }> {
  await setClock(at);
  const res = await t.request('POST', '/v1/payments', { token: admin, body: { method: 'cash', currency: 'USD', ...body } });
  return (await expectStatus(res, 201, `payment at ${at}`)).body;
}

async function refundAt(at: string, paymentId: string, amount: number): Promise<void> {
  await setClock(at);
  await expectStatus(await t.request('POST', '/v1/refunds', { token: admin, body: { paymentId, amount } }), 201, `refund at ${at}`);
}

const summary = (query: string, token = admin) => t.request('GET', `/v1/analytics/summary?${query}`, { token });
const metricOf = (body: { metrics: Array<{ name: string; currency?: string; value: number }> }, name: string, currency = 'USD') =>
  body.metrics.find((m) => m.name === name && (m.currency === undefined || m.currency === currency));

const t = useTestApp(test, { clock: new TestClock(start) });
test.before(async () => {
  admin = await t.adminToken();
  ny.location = await createLocation(t, { timezone: 'America/New_York', currency: 'USD', taxRateBps: 0 });
  ny.parent = await createPetParent(t, ny.location.id);
  london.location = await createLocation(t, { timezone: 'Europe/London', currency: 'USD', taxRateBps: 0 });
  london.parent = await createPetParent(t, london.location.id);
  [scopedNy, doctor, staff] = await Promise.all([
    t.client({ name: 'NY admin', role: 'admin', scopes: ['analytics', 'payments'], locationIds: [ny.location.id] }),
    t.client({ name: 'doctor', role: 'doctor', scopes: ['analytics.read'] }),
    t.client({ name: 'front desk', role: 'staff', scopes: ['payments', 'pets'] }),
  ]);

  // New York: 22:00 on 31 October local (03:00 UTC on 1 November) is outside November there.
  const early = await payAt('2026-11-01T03:00:00.000Z', { parentId: ny.parent.id, amount: 1_000 });
  const card = await payAt('2026-11-05T15:00:00.000Z', { parentId: ny.parent.id, amount: 10_000, method: 'card_terminal' });
  // A wallet payment counts (its top-up does not: no payment).
  await setClock('2026-11-06T10:00:00.000Z');
  const wallet = (
    await expectStatus(await t.request('POST', '/v1/wallets', { token: admin, body: { parentId: ny.parent.id, currency: 'USD' } }), 201, 'wallet')
  ).body;
  await expectStatus(await t.request('POST', `/v1/wallets/${wallet.id}/top-ups`, { token: admin, body: { amount: 9_999, method: 'cash' } }), 201, 'top-up');
  await payAt('2026-11-06T11:00:00.000Z', { parentId: ny.parent.id, amount: 2_500, method: 'wallet' });
  await refundAt('2026-11-07T12:00:00.000Z', card.id, 3_000);
  // A refund in the window of a payment before it counts (refunds created in the window).
  await refundAt('2026-11-08T12:00:00.000Z', early.id, 500);
  // An invoice paid in part: the payment counts, not the invoice.
  await setClock('2026-11-09T12:00:00.000Z');
  const invoice = (
    await expectStatus(
      await t.request('POST', '/v1/invoices', {
        token: admin,
        body: {
          parentId: ny.parent.id,
          locationId: ny.location.id,
          lines: [{ description: 'Exam', quantity: 1, unitAmount: 12_345, taxRateBps: 825 }],
          finalize: true,
        },
      }),
      201,
      'invoice',
    )
  ).body;
  await payAt('2026-11-10T12:00:00.000Z', { parentId: ny.parent.id, invoiceId: invoice.id, amount: 5_432 });
  // 21:00 on 30 November in New York is 02:00 UTC on 1 December: inside November there.
  await payAt('2026-12-01T02:00:00.000Z', { parentId: ny.parent.id, amount: 7_001 });
  // After the window.
  await payAt('2026-12-01T06:00:00.000Z', { parentId: ny.parent.id, amount: 40_000 });
  // London: 4,000 on 20 November; 00:30 on 1 December local is outside.
  await payAt('2026-11-20T09:00:00.000Z', { parentId: london.parent.id, amount: 4_000 });
  await payAt('2026-12-01T00:30:00.000Z', { parentId: london.parent.id, amount: 99 });
  await setClock('2026-12-02T12:00:00.000Z');
});

// 10,000 + 2,500 − 3,000 − 500 + 5,432 + 7,001 in New York's November.
const nyNovember = 10_000 + 2_500 - 3_000 - 500 + 5_432 + 7_001;

test('summary answers every metric with its basis; revenue_net counts each location in its own time zone', async (a) => {
  const res = await summary(november);
  a.is(res.status, 200, res.text);
  const names = res.body.metrics.map((m: { name: string }) => m.name);
  for (const name of [
    'revenue_net',
    'invoices_open',
    'appointments_by_status',
    'no_show_rate',
    'boarding_occupancy_rate',
    'grooming_completed',
    'vaccination_compliance_rate',
    'new_pets',
    'active_pets',
    'marketplace_gmv',
    'commission_earned',
  ]) {
    a.true(names.includes(name), name);
  }
  for (const metric of res.body.metrics) {
    a.is(metric.from, '2026-11-01');
    a.is(metric.to, '2026-11-30');
    a.is(metric.asOf, '2026-12-02T12:00:00.000Z');
    a.true(metric.basis.date.length > 10 && metric.basis.formula.length > 10, metric.name);
    a.true(['count', 'ratio', 'minor'].includes(metric.unit));
    a.is(metric.currency !== undefined, metric.unit === 'minor', metric.name);
    if (metric.unit === 'ratio') a.true(metric.value >= 0 && metric.value <= 1);
  }
  const revenue = metricOf(res.body, 'revenue_net');
  a.like(revenue, { value: nyNovember + 4_000, unit: 'minor', currency: 'USD' });
  const covered = (revenue as unknown as { locationIds: string[] }).locationIds;
  a.true(covered.includes(ny.location.id) && covered.includes(london.location.id));
  a.regex((revenue as unknown as { basis: { date: string } }).basis.date, /time zone/);
  a.like(metricOf(res.body, 'invoices_open'), { value: 1 });
  const gmv = metricOf(res.body, 'marketplace_gmv') as unknown as { value: number; basis: { formula: string } };
  a.is(gmv.value, 0);

  const one = await summary(`${november}&locationId=${ny.location.id}`);
  a.is(one.status, 200, one.text);
  a.like(metricOf(one.body, 'revenue_net'), { value: nyNovember, locationIds: [ny.location.id] });
});

test('revenue_net equals the negated receivable lines of the payment and refund journal entries, to the cent', async (a) => {
  const res = await summary(november, scopedNy.accessToken);
  a.is(res.status, 200, res.text);
  const revenue = metricOf(res.body, 'revenue_net');
  a.is(revenue?.value, nyNovember, 'a location-scoped caller counts only its location');
  // New York's November: 04:00 UTC on 1 November to 05:00 UTC on 1 December (EST).
  const entries = await walk<{ sourceType: string; lines: Array<{ account: string; amount: number }> }>(
    t,
    '/v1/ledger/entries?from=2026-11-01T04:00:00Z&to=2026-12-01T05:00:00Z',
    scopedNy.accessToken,
  );
  const receivable = entries
    .filter((e) => e.sourceType === 'payment' || e.sourceType === 'refund')
    .flatMap((e) => e.lines)
    .filter((l) => l.account.startsWith('receivable:'))
    .reduce((sum, l) => sum + l.amount, 0);
  a.true(entries.some((e) => e.sourceType === 'invoice') && entries.some((e) => e.sourceType === 'wallet_transaction'), 'other entries exist and are left out');
  a.is(revenue?.value, -receivable);
});

test('the records behind revenue_net: payments positive, refunds negative, summing to the value across pages', async (a) => {
  const all = await walk<{ sourceType: string; sourceId: string; amount: number; counted: string; locationId: string; occurredAt: string; currency: string }>(
    t,
    `/v1/analytics/metrics/revenue_net/records?${november}&locationId=${ny.location.id}`,
    admin,
    2,
  );
  a.is(all.length, 6);
  a.is(
    all.reduce((sum, r) => sum + r.amount, 0),
    nyNovember,
  );
  a.deepEqual(
    all
      .filter((r) => r.sourceType === 'refund')
      .map((r) => r.amount)
      .sort(),
    [-3_000, -500],
  );
  a.true(all.every((r) => r.counted === 'numerator' && r.locationId === ny.location.id && r.currency === 'USD'));
  a.deepEqual(
    all.map((r) => r.sourceId),
    [...all.map((r) => r.sourceId)].sort().reverse(),
    'by source id, newest first',
  );
  a.true(all.every((r) => r.occurredAt >= '2026-11-01T04:00:00.000Z' && r.occurredAt < '2026-12-01T05:00:00.000Z'));
  const tenant = await walk<{ amount: number }>(t, `/v1/analytics/metrics/revenue_net/records?${november}&currency=USD`, admin);
  a.is(
    tenant.reduce((sum, r) => sum + r.amount, 0),
    nyNovember + 4_000,
  );
});

test("a location outside the caller's answers 404 on every analytics route, and scoped records stay in scope", async (a) => {
  for (const path of [
    `/v1/analytics/summary?${november}&locationId=${london.location.id}`,
    `/v1/analytics/metrics/revenue_net?${november}&locationId=${london.location.id}`,
    `/v1/analytics/metrics/revenue_net/records?${november}&locationId=${london.location.id}`,
    `/v1/analytics/summary?${november}&locationId=loc_doesnotexist`,
  ]) {
    const res = await t.request('GET', path, { token: path.includes('doesnotexist') ? admin : scopedNy.accessToken });
    assertProblem(a, res, 404, 'not_found');
  }
  const records = await walk<{ locationId: string }>(t, `/v1/analytics/metrics/revenue_net/records?${november}`, scopedNy.accessToken);
  a.true(records.length > 0 && records.every((r) => r.locationId === ny.location.id));
});

test('bad input is 400 with the field: from after to, over 2 years, no calendar date, unknown metric or interval, unknown parameter', async (a) => {
  const cases: Array<[string, string]> = [
    ['/v1/analytics/summary?from=2026-11-30&to=2026-11-01', 'to'],
    ['/v1/analytics/summary?from=2024-11-01&to=2026-11-01', 'to'],
    ['/v1/analytics/metrics/new_pets?from=2024-01-01&to=2026-01-01', 'to'],
    ['/v1/analytics/summary?from=2026-02-30&to=2026-03-01', 'from'],
    ['/v1/analytics/summary?from=2026-11-01', 'to'],
    ['/v1/analytics/summary?from=11/01/2026&to=2026-11-30', 'from'],
    [`/v1/analytics/metrics/revenue_gross?${november}`, 'name'],
    [`/v1/analytics/metrics/revenue_gross/records?${november}`, 'name'],
    [`/v1/analytics/metrics/revenue_net?${november}&interval=hour`, 'interval'],
    [`/v1/analytics/metrics/revenue_net?${november}&format=xml`, 'format'],
    [`/v1/analytics/summary?${november}&bogus=1`, 'bogus'],
    [`/v1/analytics/metrics/revenue_net/records?${november}&limit=101`, 'limit'],
  ];
  for (const [path, field] of cases) {
    const res = await t.request('GET', path, { token: admin });
    assertProblem(a, res, 400, 'validation_failed');
    assertFieldErrors(a, res);
    a.true(
      fieldsOf(res).some((f) => f === field || f.endsWith(`/${field}`) || f.includes(field)),
      `${path}: ${JSON.stringify(res.body.errors)}`,
    );
  }
  // Exactly 2 years less a day is the longest range.
  a.is((await t.request('GET', '/v1/analytics/summary?from=2024-11-01&to=2026-10-31', { token: admin })).status, 200);
});

test('401 without a token, 403 without analytics scope; a doctor reads (analytics.read)', async (a) => {
  const none = await t.request('GET', `/v1/analytics/summary?${november}`);
  assertProblem(a, none, 401, 'unauthorized');
  const desk = await summary(november, staff.accessToken);
  assertProblem(a, desk, 403, 'insufficient_scope');
  const read = await summary(november, doctor.accessToken);
  a.is(read.status, 200, read.text);
});

// Serial: it adds a EUR location and moves the clock, so it runs before the others (ava runs serial tests first).
test.serial('a money metric answers once per currency; a series or records over several currencies needs currency', async (a) => {
  const paris = (
    await expectStatus(
      await t.request('POST', '/v1/locations', { token: admin, body: { name: 'Paris', timezone: 'Europe/Paris', currency: 'EUR', taxRateBps: 0 } }),
      201,
      'location',
    )
  ).body;
  const parent = await createPetParent(t, paris.id, {}, admin);
  await payAt('2026-11-15T10:00:00.000Z', { parentId: parent.id, amount: 777, currency: 'EUR' });
  await setClock('2026-12-02T12:00:00.000Z');
  const res = await summary(november);
  a.is(res.status, 200, res.text);
  const revenue = res.body.metrics.filter((m: { name: string }) => m.name === 'revenue_net');
  a.deepEqual(
    revenue.map((m: { currency: string; value: number }) => [m.currency, m.value]),
    [
      ['EUR', 777],
      ['USD', nyNovember + 4_000],
    ],
  );
  const ambiguous = await t.request('GET', `/v1/analytics/metrics/revenue_net?${november}`, { token: admin });
  assertProblem(a, ambiguous, 400, 'validation_failed');
  a.deepEqual(fieldsOf(ambiguous), ['currency']);
  const eur = await t.request('GET', `/v1/analytics/metrics/revenue_net?${november}&currency=EUR&interval=month`, { token: admin });
  a.is(eur.status, 200, eur.text);
  a.like(eur.body, { currency: 'EUR', points: [{ bucket: '2026-11-01', value: 777 }] });
  const records = await walk<{ amount: number }>(t, `/v1/analytics/metrics/revenue_net/records?${november}&currency=USD`, admin);
  a.is(
    records.reduce((sum, r) => sum + r.amount, 0),
    nyNovember + 4_000,
  );
});

// Serial: it adds a location and records in December (outside the November figures of the other tests).
test.serial('figures are reused only while nothing they read changed: a payment, a refund or a new pet shows at once', async (a) => {
  await setClock('2026-12-02T12:00:00.000Z');
  const location = (
    await expectStatus(
      await t.request('POST', '/v1/locations', { token: admin, body: { name: 'Cache check', timezone: 'Europe/London', currency: 'USD', taxRateBps: 0 } }),
      201,
      'location',
    )
  ).body;
  const parent = await createPetParent(t, location.id, {}, admin);
  const query = `from=2026-12-01&to=2026-12-31&locationId=${location.id}`;
  const read = async () => {
    const res = await summary(query);
    a.is(res.status, 200, res.text);
    return { revenue: metricOf(res.body, 'revenue_net')?.value, pets: metricOf(res.body, 'new_pets')?.value };
  };
  a.deepEqual(await read(), { revenue: 0, pets: 0 });
  a.deepEqual(await read(), { revenue: 0, pets: 0 });
  const payment = await payAt('2026-12-02T12:01:00.000Z', { parentId: parent.id, amount: 1_234 });
  a.deepEqual(await read(), { revenue: 1_234, pets: 0 });
  await refundAt('2026-12-02T12:02:00.000Z', payment.id, 234);
  a.deepEqual(await read(), { revenue: 1_000, pets: 0 });
  await expectStatus(
    await t.request('POST', '/v1/pets', {
      token: admin,
      body: { name: 'Newcomer', breed: 'Beagle', species: 'dog', ownerId: parent.id, locationId: location.id },
    }),
    201,
    'pet',
  );
  a.deepEqual(await read(), { revenue: 1_000, pets: 1 });
  const compliance = async () => metricOf((await summary(query)).body, 'vaccination_compliance_rate') as unknown as { numerator: number; denominator: number };
  a.like(await compliance(), { numerator: 0, denominator: 0 });
  const pet = (await t.request('GET', `/v1/pets?limit=100`, { token: admin })).body.data.find((p: { name: string }) => p.name === 'Newcomer');
  await expectStatus(
    await t.request('POST', `/v1/pets/${pet.id}/vaccinations`, {
      token: admin,
      body: { vaccine: 'Rabies', administeredOn: '2026-12-01', dueOn: '2027-12-01' },
    }),
    201,
    'vaccination',
  );
  a.like(await compliance(), { numerator: 1, denominator: 1 });
  const series = await t.request('GET', `/v1/analytics/metrics/revenue_net?${query}&interval=month`, { token: admin });
  a.deepEqual(
    series.body.points.map((p: { value: number }) => p.value),
    [1_000],
  );
  await setClock('2026-12-02T12:00:00.000Z');
});

test('a cursor the API did not issue is 400 invalid_cursor; the sandbox counts its own records only', async (a) => {
  const bad = await t.request('GET', `/v1/analytics/metrics/revenue_net/records?${november}&currency=USD&cursor=bm90LWEtY3Vyc29y`, { token: admin });
  assertProblem(a, bad, 400, 'invalid_cursor');
  const live = await walk<{ sourceId: string }>(t, `/v1/analytics/metrics/revenue_net/records?${november}&currency=USD`, admin);
  const sandboxToken = (await expectStatus(await t.token(adminCredentials.sandbox.clientId, adminCredentials.sandbox.clientSecret), 200, 'sandbox token')).body
    .access_token;
  const sandbox = await t.request('GET', `/v1/analytics/summary?${november}`, { token: sandboxToken });
  a.is(sandbox.status, 200, sandbox.text);
  a.false(sandbox.body.metrics[0].locationIds.some((id: string) => id === ny.location.id || id === london.location.id));
  const sandboxRecords = await walk<{ sourceId: string }>(t, `/v1/analytics/metrics/new_pets/records?${november}`, sandboxToken);
  const liveIds = new Set(live.map((r) => r.sourceId));
  a.false(sandboxRecords.some((r) => liveIds.has(r.sourceId)));
  a.true(live.length > 0);
});
