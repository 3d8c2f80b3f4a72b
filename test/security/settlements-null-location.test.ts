import test from 'ava';
import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import { accessPolicyOf } from '../../src/db/access-policy.js';
import { useTestApp } from '../helpers/test-app.js';
import { assertProblem } from '../gateway/gateway-support.js';
import { putSchedule } from '../appointments/scheduling-support.js';
import { complete, expectStatus, market, mondayAt, order, payOrder, settle, today } from '../marketplace/orders-support.js';

/**
 * Settlements with no location (provider payouts: a provider's sales at every location it serves)
 * are the whole tenant's: a client confined to some locations sees only its locations' daily closes,
 * never a payout, which may sum another location's payments (the settlements policy in the payments
 * manifest). A tenant-wide client sees both.
 */
const t = useTestApp(test);

test('a provider payout (no location) is tenant-wide: a location-confined client neither lists nor reads it', async (a) => {
  const admin = await t.adminToken();
  const m = await market(t, { amount: 4_000, commissionBps: 1000 });
  // A second location whose pet books the same walker: the payout then sums both locations' sales.
  const elsewhere = await createLocation(t, { timezone: 'Europe/London', currency: 'USD' });
  const parent = await createPetParent(t, elsewhere.id);
  const pet = await createPet(t, parent.id, elsewhere.id);
  const serves = await t.request('PATCH', `/v1/providers/${m.walker.id}`, { token: admin, body: { locationIds: [m.location.id, elsewhere.id] } });
  expectStatus(serves, 200, 'walker serves both locations');
  await putSchedule(t, m.walker.id, elsewhere.id);
  const here = expectStatus(await order(t, m, mondayAt(t, 10)), 201, 'order here').body;
  const there = expectStatus(await order(t, { ...m, location: elsewhere, parent, pet }, mondayAt(t, 12)), 201, 'order elsewhere').body;
  for (const o of [here, there]) {
    await payOrder(t, o);
    expectStatus(await complete(t, o.lines[0].bookingId), 200, 'complete');
  }
  const statements = expectStatus(await settle(t, { periodStart: today(t), periodEnd: today(t), providerId: m.walker.id }), 201, 'settle').body.data;
  const payout = statements.find((s: { providerId: string }) => s.providerId === m.walker.id);
  a.like(payout, { gross: 8_000 }); // both locations' sales

  const confined = await t.client({ name: 'one location', role: 'admin', scopes: ['payments.read'], locationIds: [m.location.id] });
  const token = confined.accessToken;
  assertProblem(a, await t.request('GET', `/v1/settlements/${payout.id}`, { token }), 404, 'not_found');
  for (const query of ['', '&kind=provider_payout', `&providerId=${m.walker.id}`]) {
    const list = await t.request('GET', `/v1/settlements?limit=100${query}`, { token });
    a.is(list.status, 200, query);
    a.true(
      list.body.data.every((s: { locationId: string | null; kind: string }) => s.kind === 'daily_close' && s.locationId === m.location.id),
      query,
    );
  }
  // The tenant-wide admin reads it and finds it in the list.
  const read = await t.request('GET', `/v1/settlements/${payout.id}`, { token: admin });
  a.like(read.body, { kind: 'provider_payout', locationId: null, gross: 8_000 });
  const all = await t.request('GET', `/v1/settlements?limit=100&kind=provider_payout`, { token: admin });
  a.true(all.body.data.some((s: { id: string }) => s.id === payout.id));
});

test('the settlements policy says why a row with no location is tenant-wide, and never makes it group-wide', (a) => {
  const policy = accessPolicyOf('settlements');
  a.true('location' in policy && policy.location === 'location_id');
  a.false('nullIsGroupWide' in policy && policy.nullIsGroupWide !== undefined, 'a payout would then reach every location-scoped caller');
  a.regex('why' in policy ? (policy.why ?? '') : '', /provider payout.*tenant-wide/);
});
