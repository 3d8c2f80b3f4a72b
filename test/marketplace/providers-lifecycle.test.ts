import test from 'ava';
import { findBookableListing } from '../../src/modules/providers/index.js';
import { createLocation } from '../helpers/factories.js';
import { type TokenSet, useTestApp } from '../helpers/test-app.js';
import { createProvider, eventsWith, putSchedule } from '../appointments/scheduling-support.js';
import { approvedProvider, onboard, walkListing } from './marketplace-support.js';

/** Marketplace providers: onboarding, approval (onboarding_incomplete), suspension and back, listings, findBookableListing. */
let admin: string;
let loc: { id: string };
let other: { id: string };
let desk: TokenSet; // staff, bookings: may onboard staff providers, not marketplace ones
let scopedOther: TokenSet; // admin, marketplace + bookings, the other location only

const t = useTestApp(test);
test.before(async () => {
  admin = await t.adminToken();
  [loc, other] = await Promise.all([createLocation(t, { name: 'Market clinic', currency: 'EUR' }), createLocation(t, { name: 'Elsewhere' })]);
  [desk, scopedOther] = await Promise.all([
    t.client({ name: 'desk', role: 'staff', scopes: ['bookings'] }),
    t.client({ name: 'other admin', role: 'admin', scopes: ['marketplace', 'bookings'], locationIds: [other.id] }),
  ]);
});

const post = (path: string, token = admin, body?: unknown, idempotencyKey?: string) =>
  t.request('POST', path, { token, ...(body === undefined ? {} : { body }), ...(idempotencyKey ? { idempotencyKey } : {}) });

test('onboarding with marketplace creates a pending provider with lst_ listings and emits provider.onboarded', async (a) => {
  const res = await post('/v1/providers', admin, {
    name: 'Wanda Walker',
    kind: 'walker',
    locationIds: [loc.id],
    marketplace: {
      listings: [walkListing, { name: 'Drop-in visit', category: 'sitting', amount: 1800, durationMinutes: 30, currency: 'GBP' }],
      bio: 'Ten years of dogs.',
      serviceArea: 'North side',
      commissionBps: 1200,
    },
  });
  a.is(res.status, 201, res.text);
  a.like(res.body, {
    status: 'pending',
    rating: null,
    ratingCount: 0,
    marketplace: { bio: 'Ten years of dogs.', serviceArea: 'North side', commissionBps: 1200, approvedAt: null },
  });
  const [walk, visit] = res.body.marketplace.listings;
  a.regex(walk.id, /^lst_/);
  a.like(walk, { name: 'Dog walk, 60 min', category: 'walking', amount: 2500, currency: 'EUR', durationMinutes: 60, status: 'active' });
  a.like(visit, { category: 'sitting', currency: 'GBP' });
  const events = await eventsWith(t, 'provider.onboarded', 'providerId', res.body.id);
  a.is(events.length, 1);
  a.like(events[0]!.data, { status: 'pending', kind: 'walker' });
  const got = await t.request('GET', `/v1/providers/${res.body.id}`, { token: admin });
  a.deepEqual(got.body, res.body);
  // Pending providers are not in the default directory; the marketplace scope lists them by status.
  const listed = await t.request('GET', `/v1/providers?locationId=${loc.id}`, { token: admin });
  a.false(listed.body.data.some((p: { id: string }) => p.id === res.body.id));
  const pending = await t.request('GET', `/v1/providers?locationId=${loc.id}&status=pending`, { token: admin });
  a.true(pending.body.data.some((p: { id: string }) => p.id === res.body.id));
  a.is((await t.request('GET', `/v1/providers?status=pending`, { token: desk.accessToken })).status, 403);
});

test('onboarding validation: bad listings are 400 and create nothing; marketplace onboarding needs the marketplace scope', async (a) => {
  const quiet = await createLocation(t, { name: 'Validation clinic' });
  const base = { name: 'Bad walker', kind: 'walker', locationIds: [quiet.id] };
  const bad: Array<[unknown, string]> = [
    [{ listings: [{ ...walkListing, category: 'plumbing' }] }, 'marketplace.listings.0.category'],
    [{ listings: [{ ...walkListing, amount: -1 }] }, 'marketplace.listings.0.amount'],
    [{ listings: [{ ...walkListing, durationMinutes: 0 }] }, 'marketplace.listings.0.durationMinutes'],
    [{ listings: [{ ...walkListing, name: 'x'.repeat(201) }] }, 'marketplace.listings.0.name'],
    [{ listings: [], bio: 'x'.repeat(5001) }, 'marketplace.bio'],
    [{ listings: [], commissionBps: 10001 }, 'marketplace.commissionBps'],
    [{ listings: [{ ...walkListing, currency: 'XYZ' }] }, 'marketplace.listings[0].currency'],
  ];
  for (const [marketplace, field] of bad) {
    const res = await post('/v1/providers', admin, { ...base, marketplace });
    a.is(res.status, 400, `${JSON.stringify(marketplace)}: ${res.text}`);
    a.true(JSON.stringify(res.body.errors).includes(field.split('.').pop()!), `${field}: ${res.text}`);
  }
  a.deepEqual((await t.request('GET', `/v1/providers?status=pending&locationId=${quiet.id}`, { token: admin })).body.data, []);
  const denied = await post('/v1/providers', desk.accessToken, { ...base, marketplace: { listings: [walkListing] } });
  a.is(denied.status, 403);
  a.is(denied.body.code, 'insufficient_scope');
});

test('approve refuses 422 onboarding_incomplete without a weekly schedule or an active listing, then approves and emits provider.approved', async (a) => {
  const provider = await onboard(t, [loc.id]);
  const noSchedule = await post(`/v1/providers/${provider.id}/approve`);
  a.is(noSchedule.status, 422);
  a.is(noSchedule.body.code, 'onboarding_incomplete');
  a.is(noSchedule.body.missing.length, 1);
  a.regex(noSchedule.body.missing[0], /weekly schedule/);
  await putSchedule(t, provider.id, loc.id);
  const listingId = provider.marketplace.listings[0]!.id;
  const off = await t.request('PATCH', `/v1/providers/${provider.id}/listings/${listingId}`, { token: admin, body: { status: 'inactive' } });
  a.is(off.status, 200, off.text);
  a.is(off.body.status, 'inactive');
  const noListing = await post(`/v1/providers/${provider.id}/approve`);
  a.is(noListing.status, 422);
  a.deepEqual(noListing.body.missing, ['an active listing']);
  a.is((await eventsWith(t, 'provider.approved', 'providerId', provider.id)).length, 0);
  await t.request('PATCH', `/v1/providers/${provider.id}/listings/${listingId}`, { token: admin, body: { status: 'active', amount: 3000 } });
  const first = await post(`/v1/providers/${provider.id}/approve`, admin, undefined, `approve-${provider.id}`);
  const replay = await post(`/v1/providers/${provider.id}/approve`, admin, undefined, `approve-${provider.id}`);
  a.is(first.status, 200, first.text);
  a.is(first.body.status, 'approved');
  a.truthy(first.body.marketplace.approvedAt);
  a.is(first.body.marketplace.listings[0].amount, 3000);
  a.deepEqual(replay.body, first.body);
  const events = await eventsWith(t, 'provider.approved', 'providerId', provider.id);
  a.is(events.length, 1);
  a.like(events[0]!.data, { providerId: provider.id, name: provider.name });
  const again = await post(`/v1/providers/${provider.id}/approve`);
  a.is(again.status, 409);
  a.is(again.body.code, 'invalid_state_transition');
  a.is(again.body.currentStatus, 'approved');
});

test('suspend: approved only; a suspended provider leaves the directory and is not bookable; approve reinstates it', async (a) => {
  const pending = await onboard(t, [loc.id]);
  const early = await post(`/v1/providers/${pending.id}/suspend`);
  a.is(early.status, 409);
  a.is(early.body.currentStatus, 'pending');
  const provider = await approvedProvider(t, loc.id);
  const listingId = provider.marketplace.listings[0]!.id;
  const access = { tenantId: t.tenantId, locationIds: null };
  const db = t.stores.get('live').db;
  const bookable = await findBookableListing(db, access, provider.id, listingId);
  a.like(bookable, {
    provider: { id: provider.id, commissionBps: null, locationIds: [loc.id] },
    listing: { id: listingId, amount: 2500, currency: 'EUR', durationMinutes: 60, category: 'walking' },
  });
  const suspended = await post(`/v1/providers/${provider.id}/suspend`);
  a.is(suspended.status, 200, suspended.text);
  a.is(suspended.body.status, 'suspended');
  a.truthy(suspended.body.marketplace.suspendedAt);
  const listed = await t.request('GET', `/v1/providers?locationId=${loc.id}&limit=100`, { token: admin });
  a.false(listed.body.data.some((p: { id: string }) => p.id === provider.id));
  const bySuspended = await t.request('GET', `/v1/providers?locationId=${loc.id}&status=suspended`, { token: admin });
  a.deepEqual(
    bySuspended.body.data.map((p: { id: string }) => p.id),
    [provider.id],
  );
  const refused = await findBookableListing(db, access, provider.id, listingId).catch((err: { code: string }) => err);
  a.is((refused as { code: string }).code, 'provider_not_bookable');
  const twice = await post(`/v1/providers/${provider.id}/suspend`);
  a.is(twice.status, 409);
  a.is(twice.body.currentStatus, 'suspended');
  const back = await post(`/v1/providers/${provider.id}/approve`);
  a.is(back.status, 200, back.text);
  a.like(back.body, { status: 'approved', marketplace: { suspendedAt: null } });
  a.is((await eventsWith(t, 'provider.approved', 'providerId', provider.id)).length, 2);
  // Unknown and foreign listings are 404.
  const unknown = await findBookableListing(db, access, provider.id, 'lst_missing').catch((err: { code: string }) => err);
  a.is((unknown as { code: string }).code, 'not_found');
  const scoped = await findBookableListing(db, { tenantId: t.tenantId, locationIds: [other.id] }, provider.id, listingId).catch((err: { code: string }) => err);
  a.is((scoped as { code: string }).code, 'not_found');
});

test('staff providers keep active/inactive: no approve or suspend, no listings; marketplace status moves only through the lifecycle routes', async (a) => {
  const staff = await createProvider(t, { locationIds: [loc.id] });
  a.is((await post(`/v1/providers/${staff.id}/approve`)).body.currentStatus, 'active');
  a.is((await post(`/v1/providers/${staff.id}/suspend`)).status, 409);
  a.is((await post(`/v1/providers/${staff.id}/listings`, admin, walkListing)).status, 409);
  a.is((await t.request('PATCH', `/v1/providers/${staff.id}`, { token: admin, body: { bio: 'hello' } })).status, 400);
  const market = await onboard(t, [loc.id]);
  const patch = await t.request('PATCH', `/v1/providers/${market.id}`, { token: admin, body: { status: 'active' } });
  a.is(patch.status, 409);
  a.is(patch.body.currentStatus, 'pending');
  const profile = await t.request('PATCH', `/v1/providers/${market.id}`, { token: admin, body: { bio: 'New bio', commissionBps: 900 } });
  a.is(profile.status, 200, profile.text);
  a.like(profile.body.marketplace, { bio: 'New bio', commissionBps: 900 });
  a.is((await t.request('PATCH', `/v1/providers/${market.id}`, { token: desk.accessToken, body: { bio: 'x' } })).status, 403);
});

test('listings: add and change through the API, validated; scope, role and location rules', async (a) => {
  const provider = await onboard(t, [loc.id]);
  const added = await post(`/v1/providers/${provider.id}/listings`, admin, { name: 'Puppy training', category: 'training', amount: 4000, durationMinutes: 45 });
  a.is(added.status, 201, added.text);
  a.like(added.body, { category: 'training', currency: 'EUR', status: 'active' });
  a.is((await post(`/v1/providers/${provider.id}/listings`, admin, { ...walkListing, durationMinutes: 2000 })).status, 400);
  const badCurrency = await post(`/v1/providers/${provider.id}/listings`, admin, { ...walkListing, currency: 'XYZ' });
  a.is(badCurrency.status, 400);
  a.is(badCurrency.body.errors[0].field, 'currency');
  const renamed = await t.request('PATCH', `/v1/providers/${provider.id}/listings/${added.body.id}`, { token: admin, body: { name: 'Puppy class' } });
  a.like(renamed.body, { name: 'Puppy class', amount: 4000 });
  a.is((await t.request('PATCH', `/v1/providers/${provider.id}/listings/${added.body.id}`, { token: admin, body: {} })).status, 400);
  a.is((await t.request('PATCH', `/v1/providers/${provider.id}/listings/lst_missing`, { token: admin, body: { name: 'X' } })).status, 404);
  a.is((await post(`/v1/providers/${provider.id}/listings`, desk.accessToken, walkListing)).status, 403);
  a.is((await post(`/v1/providers/${provider.id}/approve`, desk.accessToken)).status, 403);
  a.is((await post(`/v1/providers/${provider.id}/listings`, scopedOther.accessToken, walkListing)).status, 404);
  a.is((await post(`/v1/providers/${provider.id}/approve`, scopedOther.accessToken)).status, 404);
  a.is((await post(`/v1/providers/${provider.id}/approve`, '')).status, 401);
  const got = await t.request('GET', `/v1/providers/${provider.id}`, { token: admin });
  a.deepEqual(
    got.body.marketplace.listings.map((l: { name: string }) => l.name),
    ['Dog walk, 60 min', 'Puppy class'],
  );
});
