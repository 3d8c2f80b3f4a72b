import test from 'ava';
import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import { TestClock, type TokenSet, useTestApp } from '../helpers/test-app.js';
import { eventsWith } from '../appointments/scheduling-support.js';
import {
  atTime,
  complete,
  createGroomer,
  createPackage,
  expectStatus,
  groom,
  movableClockConfig,
  moveTo,
  packageBody,
  salon,
  type Salon,
} from './grooming-support.js';

/**
 * Memberships (a §9 subscription; each PAID period grants sessionsPerPeriod credits) and prepaid
 * bundles (POST /v1/grooming/package-credits), and completion paid by either: one credit per
 * groom, race-free, 422 when none is left (the status stays).
 * The clock stands on Monday 2026-11-23 08:00 UTC.
 */
const now = Date.parse('2026-11-23T08:00:00.000Z');
const membershipKeys = [
  'id',
  'status',
  'parentId',
  'petId',
  'packageId',
  'locationId',
  'subscriptionId',
  'sessionsPerPeriod',
  'creditsRemaining',
  'currentPeriodEnd',
  'createdAt',
];

let admin: string;
let desk: TokenSet;
let reader: TokenSet;
let petsOnly: TokenSet;

const t = useTestApp(test, { clock: new TestClock(now), config: movableClockConfig });
test.before(async () => {
  admin = await t.adminToken();
  [desk, reader, petsOnly] = await Promise.all([
    t.client({ name: 'desk', role: 'staff', scopes: ['bookings', 'pets'] }),
    t.client({ name: 'reader', role: 'staff', scopes: ['bookings.read'] }),
    t.client({ name: 'pets only', role: 'staff', scopes: ['pets'] }),
  ]);
});

const join = (s: Salon, body: Record<string, unknown> = {}, token = desk.accessToken, idempotencyKey?: string) =>
  t.request('POST', '/v1/grooming/memberships', {
    token,
    body: {
      parentId: s.parent.id,
      packageId: s.pkg.id,
      locationId: s.location.id,
      sessionsPerPeriod: 2,
      price: 8_000,
      interval: 'month',
      collection: 'send_invoice',
      ...body,
    },
    ...(idempotencyKey ? { idempotencyKey } : {}),
  });

const membership = async (id: string) => (await t.request('GET', `/v1/grooming/memberships/${id}`, { token: reader.accessToken })).body;

/** Pays the membership's latest subscription invoice in cash (what a front desk does for send_invoice). */
async function payLatest(subscriptionId: string) {
  const sub = await t.request('GET', `/v1/subscriptions/${subscriptionId}`, { token: admin });
  const invoice = await t.request('GET', `/v1/invoices/${sub.body.latestInvoiceId}`, { token: admin });
  await expectStatus(
    await t.request('POST', '/v1/payments', {
      token: admin,
      body: { parentId: invoice.body.parentId, invoiceId: invoice.body.id, amount: invoice.body.amountDue, currency: invoice.body.currency, method: 'cash' },
    }),
    201,
    'payment',
  );
}

/** A groom of the salon's pet at `startsAt`, moved to in_progress. */
async function groomInProgress(s: Salon, startsAt: string, payWith: string, extra: Record<string, unknown> = {}, petId = s.pet.id) {
  const g = await expectStatus(await groom(t, { petId, packageId: s.pkg.id, locationId: s.location.id, startsAt, payWith, ...extra }), 201, 'groom');
  await expectStatus(await moveTo(t, g.body.id, 'checked_in'), 200, 'check in');
  await expectStatus(await moveTo(t, g.body.id, 'in_progress'), 200, 'start');
  return g.body as { id: string };
}

test('POST /v1/grooming/memberships starts a subscription; a paid period grants sessionsPerPeriod credits', async (a) => {
  const s = await salon(t);
  const res = await join(s, { petId: s.pet.id });
  a.is(res.status, 201, res.text);
  a.deepEqual(Object.keys(res.body), membershipKeys);
  a.regex(res.body.id, /^mbr_[a-z0-9]{26}$/);
  a.regex(res.body.subscriptionId, /^sub_/);
  a.deepEqual(res.body, {
    id: res.body.id,
    status: 'active',
    parentId: s.parent.id,
    petId: s.pet.id,
    packageId: s.pkg.id,
    locationId: s.location.id,
    subscriptionId: res.body.subscriptionId,
    sessionsPerPeriod: 2,
    creditsRemaining: 0,
    currentPeriodEnd: '2026-12-23',
    createdAt: new Date(now).toISOString(),
  });
  const sub = await t.request('GET', `/v1/subscriptions/${res.body.subscriptionId}`, { token: admin });
  a.like(sub.body, { parentId: s.parent.id, amount: 8_000, interval: 'month', collection: 'send_invoice', petId: s.pet.id });
  a.is((await eventsWith(t, 'subscription.created', 'subscriptionId', res.body.subscriptionId)).length, 1);
  // The first period's invoice is open: no credit until it is paid.
  await payLatest(res.body.subscriptionId);
  a.is((await membership(res.body.id)).creditsRemaining, 2);
  const got = await t.request('GET', `/v1/grooming/memberships/${res.body.id}`, { token: reader.accessToken });
  a.deepEqual(got.body, { ...res.body, creditsRemaining: 2 });
  const list = await t.request('GET', `/v1/grooming/memberships?parentId=${s.parent.id}`, { token: reader.accessToken });
  a.deepEqual(
    list.body.data.map((m: { id: string }) => m.id),
    [res.body.id],
  );
});

test('collection wallet: the subscription-billing job collects the period once the wallet holds it, and the period grants its credits', async (a) => {
  const s = await salon(t);
  const wallet = await expectStatus(await t.request('POST', '/v1/wallets', { token: admin, body: { parentId: s.parent.id, currency: 'USD' } }), 201, 'wallet');
  const res = await join(s, { collection: 'wallet', sessionsPerPeriod: 3 });
  a.is(res.status, 201, res.text);
  a.is(res.body.creditsRemaining, 0, 'an empty wallet pays nothing');
  await expectStatus(
    await t.request('POST', `/v1/wallets/${wallet.body.id}/top-ups`, { token: admin, body: { amount: 8_000, method: 'cash' } }),
    201,
    'top-up',
  );
  const run = await t.request('POST', '/v1/jobs/subscription-billing/run', { token: admin, body: { wait: true } });
  a.is(run.status, 200, run.text);
  a.is(run.body.status, 'succeeded');
  a.is((await membership(res.body.id)).creditsRemaining, 3);
  // Running again bills nothing more and grants nothing more.
  await t.request('POST', '/v1/jobs/subscription-billing/run', { token: admin, body: { wait: true } });
  a.is((await membership(res.body.id)).creditsRemaining, 3);
});

test.serial(
  'payWith membership spends one credit at completion, at any location of the group; none left is 422 no_membership_credit and the status stays',
  async (a) => {
    const s = await salon(t);
    const wide = await createPackage(t, packageBody({ name: 'Group groom' }));
    const m = await join(s, { packageId: wide.id, sessionsPerPeriod: 1 });
    await payLatest(m.body.subscriptionId);
    // A second location of the group, with its own stylist.
    const other = await createLocation(t, { currency: 'USD' });
    await createGroomer(t, [other.id]);
    const g = await expectStatus(
      await groom(t, { petId: s.pet.id, packageId: wide.id, locationId: other.id, startsAt: '2026-11-24T09:00:00Z', payWith: 'membership' }),
      201,
      'groom',
    );
    await moveTo(t, g.body.id, 'checked_in');
    await moveTo(t, g.body.id, 'in_progress');
    const done = await atTime(t, g.body.startsAt, () => moveTo(t, g.body.id, 'completed', desk.accessToken));
    a.is(done.status, 200, done.text);
    a.is(done.body.invoiceId, null);
    a.is(done.body.payWith, 'membership');
    a.is(done.body.membershipId, m.body.id, 'the groom names the membership that paid it');
    a.is((await membership(m.body.id)).creditsRemaining, 0);
    const g2 = await expectStatus(
      await groom(t, { petId: s.pet.id, packageId: wide.id, locationId: other.id, startsAt: '2026-11-25T09:00:00Z', payWith: 'membership' }),
      201,
      'groom',
    );
    await moveTo(t, g2.body.id, 'checked_in');
    await moveTo(t, g2.body.id, 'in_progress');
    const refused = await atTime(t, g2.body.startsAt, () => moveTo(t, g2.body.id, 'completed', desk.accessToken));
    a.is(refused.status, 422);
    a.is(refused.body.code, 'no_membership_credit');
    a.is((await t.request('GET', `/v1/grooming/appointments/${g2.body.id}`, { token: admin })).body.status, 'in_progress');
    a.is((await membership(m.body.id)).creditsRemaining, 0);
  },
);

test.serial('one membership credit completed twice in parallel is spent once', async (a) => {
  const s = await salon(t);
  const second = await createGroomer(t, [s.location.id]);
  const m = await join(s, { sessionsPerPeriod: 1 });
  await payLatest(m.body.subscriptionId);
  const otherPet = await createPet(t, s.parent.id, s.location.id, { size: 'small' });
  const g1 = await groomInProgress(s, '2026-11-26T09:00:00Z', 'membership', { stylistId: s.stylist.id });
  const g2 = await groomInProgress(s, '2026-11-26T09:00:00Z', 'membership', { stylistId: second.id }, otherPet.id);
  const results = await atTime(t, '2026-11-26T09:00:00Z', () => Promise.all([g1, g2].map((g) => moveTo(t, g.id, 'completed', desk.accessToken))));
  a.deepEqual(results.map((r) => r.status).sort(), [200, 422]);
  a.is(results.find((r) => r.status === 422)!.body.code, 'no_membership_credit');
  a.is((await membership(m.body.id)).creditsRemaining, 0);
  const uses = await t.stores.get('live').db.selectFrom('grooming_credit_uses').selectAll().where('membership_id', '=', m.body.id).execute();
  a.is(uses.length, 1);
});

test.serial('20 grooms completed in parallel against a membership with 3 credits: exactly 3 are paid by it, 17 answer 422 and stay in progress', async (a) => {
  const s = await salon(t);
  const m = await join(s, { sessionsPerPeriod: 3 });
  await payLatest(m.body.subscriptionId);
  // Small grooms (60 min) of the salon's stylist, Monday–Friday 09:00–17:00: 8 a day over three days.
  const days = ['2026-11-26', '2026-11-27', '2026-11-30'];
  const grooms: Array<{ id: string }> = [];
  for (let i = 0; i < 20; i++) {
    const pet = await createPet(t, s.parent.id, s.location.id, { size: 'small' });
    const startsAt = `${days[Math.floor(i / 8)]}T${String(9 + (i % 8)).padStart(2, '0')}:00:00Z`;
    grooms.push(await groomInProgress(s, startsAt, 'membership', { stylistId: s.stylist.id }, pet.id));
  }
  // From the last groom's start on, every one of them may be completed.
  const results = await atTime(t, '2026-11-30T12:00:00Z', () => Promise.all(grooms.map((g) => moveTo(t, g.id, 'completed', desk.accessToken))));
  a.is(results.filter((r) => r.status === 200).length, 3);
  const refused = results.filter((r) => r.status === 422);
  a.is(refused.length, 17);
  for (const r of refused) a.is(r.body.code, 'no_membership_credit');
  a.is((await membership(m.body.id)).creditsRemaining, 0);
  const uses = await t.stores.get('live').db.selectFrom('grooming_credit_uses').selectAll().where('membership_id', '=', m.body.id).execute();
  a.is(uses.length, 3);
  const statuses = await Promise.all(
    grooms.map(async (g) => (await t.request('GET', `/v1/grooming/appointments/${g.id}`, { token: desk.accessToken })).body.status as string),
  );
  a.is(statuses.filter((status) => status === 'completed').length, 3);
  a.is(statuses.filter((status) => status === 'in_progress').length, 17);
});

test.serial('a named membership is the one spent; membershipId needs payWith membership and the parent’s membership of that package', async (a) => {
  const s = await salon(t);
  const older = await join(s, { sessionsPerPeriod: 1 });
  const newer = await join(s, { sessionsPerPeriod: 1 });
  await payLatest(older.body.subscriptionId);
  await payLatest(newer.body.subscriptionId);
  const g = await groomInProgress(s, '2026-11-27T09:00:00Z', 'membership', { membershipId: newer.body.id });
  a.is((await atTime(t, '2026-11-27T09:00:00Z', () => moveTo(t, g.id, 'completed'))).status, 200);
  a.is((await membership(newer.body.id)).creditsRemaining, 0);
  a.is((await membership(older.body.id)).creditsRemaining, 1);
  const wrongPay = await groom(t, {
    petId: s.pet.id,
    packageId: s.pkg.id,
    locationId: s.location.id,
    startsAt: '2026-11-27T13:30:00Z',
    membershipId: older.body.id,
  });
  a.is(wrongPay.status, 400);
  a.is(wrongPay.body.errors[0].field, 'membershipId');
  const stranger = await createPetParent(t, s.location.id);
  const strangerPet = await createPet(t, stranger.id, s.location.id, { size: 'small' });
  const notTheirs = await groom(t, {
    petId: strangerPet.id,
    packageId: s.pkg.id,
    locationId: s.location.id,
    startsAt: '2026-11-27T13:30:00Z',
    payWith: 'membership',
    membershipId: older.body.id,
  });
  a.is(notTheirs.status, 400);
  a.is(notTheirs.body.errors[0].field, 'membershipId');
});

test.serial('cancel: the subscription is canceled, the membership answers cancelled, its credits are no longer spent, a second cancel is 409', async (a) => {
  const s = await salon(t);
  const m = await join(s);
  await payLatest(m.body.subscriptionId);
  const cancelled = await t.request('POST', `/v1/grooming/memberships/${m.body.id}/cancel`, { token: desk.accessToken });
  a.is(cancelled.status, 200, cancelled.text);
  a.is(cancelled.body.status, 'cancelled');
  a.is((await t.request('GET', `/v1/subscriptions/${m.body.subscriptionId}`, { token: admin })).body.status, 'canceled');
  a.is((await eventsWith(t, 'subscription.canceled', 'subscriptionId', m.body.subscriptionId)).length, 1);
  const again = await t.request('POST', `/v1/grooming/memberships/${m.body.id}/cancel`, { token: desk.accessToken });
  a.is(again.status, 409);
  a.is(again.body.code, 'invalid_state_transition');
  a.is(again.body.currentStatus, 'cancelled');
  const g = await groomInProgress(s, '2026-11-30T09:00:00Z', 'membership');
  a.is((await atTime(t, '2026-11-30T09:00:00Z', () => moveTo(t, g.id, 'completed'))).body.code, 'no_membership_credit');
  a.deepEqual(
    (await t.request('GET', `/v1/grooming/memberships?parentId=${s.parent.id}&status=cancelled`, { token: reader.accessToken })).body.data.map(
      (x: { id: string }) => x.id,
    ),
    [m.body.id],
  );
});

test('memberships: validation 400 naming the field, 401/403, another location’s client 404, idempotent replay', async (a) => {
  const s = await salon(t);
  const stranger = await createPetParent(t, s.location.id);
  const strangerPet = await createPet(t, stranger.id, s.location.id);
  for (const [body, field] of [
    [{ sessionsPerPeriod: 0 }, 'sessionsPerPeriod'],
    [{ interval: 'day' }, 'interval'],
    [{ collection: 'card' }, 'collection'],
    [{ price: 0 }, 'price'],
    [{ petId: strangerPet.id }, 'petId'],
    [{ packageId: 'pkg_none' }, 'packageId'],
    [{ parentId: 'usr_none' }, 'parentId'],
  ] as Array<[Record<string, unknown>, string]>) {
    const res = await join(s, body);
    a.is(res.status, 400, `${field}: ${res.text}`);
    a.is(res.body.errors[0].field, field);
  }
  a.deepEqual((await t.request('GET', `/v1/grooming/memberships?parentId=${s.parent.id}`, { token: admin })).body.data, []);
  a.deepEqual((await t.request('GET', `/v1/subscriptions?parentId=${s.parent.id}`, { token: admin })).body.data, []);
  a.is((await t.request('POST', '/v1/grooming/memberships', { body: {} })).status, 401);
  a.is((await join(s, {}, reader.accessToken)).status, 403);
  a.is((await join(s, {}, petsOnly.accessToken)).status, 403);
  const first = await join(s, {}, desk.accessToken, 'mbr-key-1');
  const replay = await join(s, {}, desk.accessToken, 'mbr-key-1');
  a.is(replay.status, 201);
  a.is(replay.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(replay.body, first.body);
  a.is((await t.request('GET', `/v1/subscriptions?parentId=${s.parent.id}`, { token: admin })).body.data.length, 1);
  const other = await createLocation(t);
  const outsider = await t.client({ name: 'mbr outsider', role: 'staff', scopes: ['bookings'], locationIds: [other.id] });
  a.is((await t.request('GET', `/v1/grooming/memberships/${first.body.id}`, { token: outsider.accessToken })).status, 404);
  a.is((await t.request('POST', `/v1/grooming/memberships/${first.body.id}/cancel`, { token: outsider.accessToken })).status, 404);
  a.deepEqual((await t.request('GET', '/v1/grooming/memberships', { token: outsider.accessToken })).body.data, []);
});

test.serial(
  'prepaid bundle: POST /v1/grooming/package-credits invoices sessions × price and grants the sessions; payWith package_credit spends one',
  async (a) => {
    const s = await salon(t);
    const bundle = await createPackage(t, packageBody({ locationId: s.location.id, name: 'Five grooms', sessions: 3, validDays: 90 }));
    const res = await t.request('POST', '/v1/grooming/package-credits', {
      token: desk.accessToken,
      body: { parentId: s.parent.id, packageId: bundle.id, locationId: s.location.id, size: 'medium' },
    });
    a.is(res.status, 201, res.text);
    a.deepEqual(Object.keys(res.body), ['id', 'parentId', 'packageId', 'locationId', 'invoiceId', 'sessions', 'creditsRemaining', 'expiresAt', 'createdAt']);
    a.regex(res.body.id, /^pcr_/);
    a.like(res.body, { parentId: s.parent.id, packageId: bundle.id, sessions: 3, creditsRemaining: 3, expiresAt: '2027-02-21T08:00:00.000Z' });
    const invoice = await t.request('GET', `/v1/invoices/${res.body.invoiceId}`, { token: admin });
    a.is(invoice.body.status, 'open');
    a.is(invoice.body.total, 3 * 5_500);
    a.is(invoice.body.lines[0].sourceId, res.body.id);
    a.is((await eventsWith(t, 'invoice.finalized', 'invoiceId', res.body.invoiceId)).length, 1);
    const g = await expectStatus(
      await groom(t, { petId: s.pet.id, packageId: bundle.id, locationId: s.location.id, startsAt: '2026-12-01T09:00:00Z', payWith: 'package_credit' }),
      201,
      'groom',
    );
    const done = await atTime(t, g.body.startsAt, () => complete(t, g.body.id, desk.accessToken));
    a.is(done.status, 200, done.text);
    a.is(done.body.invoiceId, null);
    a.is((await t.request('GET', `/v1/grooming/package-credits/${res.body.id}`, { token: reader.accessToken })).body.creditsRemaining, 2);
    // Another parent's pet has no bundle: 422 no_package_credit, the groom stays in progress.
    const stranger = await createPetParent(t, s.location.id);
    const strangerPet = await createPet(t, stranger.id, s.location.id, { size: 'small' });
    const g2 = await groomInProgress({ ...s, pkg: bundle }, '2026-12-02T09:00:00Z', 'package_credit', {}, strangerPet.id);
    const refused = await atTime(t, '2026-12-02T09:00:00Z', () => moveTo(t, g2.id, 'completed'));
    a.is(refused.status, 422);
    a.is(refused.body.code, 'no_package_credit');
    a.is((await t.request('GET', `/v1/grooming/appointments/${g2.id}`, { token: admin })).body.status, 'in_progress');
    const list = await t.request('GET', `/v1/grooming/package-credits?parentId=${s.parent.id}`, { token: reader.accessToken });
    a.deepEqual(
      list.body.data.map((b: { id: string }) => b.id),
      [res.body.id],
    );
  },
);

test('package-credits: a single-session package is no bundle (400 packageId); validation, auth and scoping', async (a) => {
  const s = await salon(t);
  const single = await t.request('POST', '/v1/grooming/package-credits', {
    token: desk.accessToken,
    body: { parentId: s.parent.id, packageId: s.pkg.id, locationId: s.location.id, size: 'small' },
  });
  a.is(single.status, 400);
  a.is(single.body.errors[0].field, 'packageId');
  const noSize = await t.request('POST', '/v1/grooming/package-credits', {
    token: desk.accessToken,
    body: { parentId: s.parent.id, packageId: s.pkg.id, locationId: s.location.id },
  });
  a.is(noSize.status, 400);
  a.is(noSize.body.errors[0].field, 'size');
  a.is((await t.request('POST', '/v1/grooming/package-credits', { body: {} })).status, 401);
  a.is((await t.request('POST', '/v1/grooming/package-credits', { token: reader.accessToken, body: {} })).status, 403);
  const bundle = await createPackage(t, packageBody({ locationId: s.location.id, sessions: 2 }));
  const bought = await t.request('POST', '/v1/grooming/package-credits', {
    token: desk.accessToken,
    body: { parentId: s.parent.id, packageId: bundle.id, locationId: s.location.id, size: 'small' },
    idempotencyKey: 'pcr-1',
  });
  const replay = await t.request('POST', '/v1/grooming/package-credits', {
    token: desk.accessToken,
    body: { parentId: s.parent.id, packageId: bundle.id, locationId: s.location.id, size: 'small' },
    idempotencyKey: 'pcr-1',
  });
  a.is(bought.status, 201);
  a.is(replay.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(replay.body, bought.body);
  const other = await createLocation(t);
  const outsider = await t.client({ name: 'pcr outsider', role: 'staff', scopes: ['bookings'], locationIds: [other.id] });
  a.is((await t.request('GET', `/v1/grooming/package-credits/${bought.body.id}`, { token: outsider.accessToken })).status, 404);
});
