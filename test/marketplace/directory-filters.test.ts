import test from 'ava';
import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import { type TokenSet, useTestApp } from '../helpers/test-app.js';
import { createProvider, weekdays } from '../appointments/scheduling-support.js';
import { approvedProvider, insertMarketplaceBooking, nextWeekday, onboard } from './marketplace-support.js';

/** The directory GET /v1/providers: bookable by default, filters category, minRating, q, availableOn, status, location; ratings shown. */
let admin: string;
let loc: { id: string };
let other: { id: string };
let reader: TokenSet; // staff, bookings.read
let scopedOther: TokenSet; // staff, bookings.read, the other location only
let walker: { id: string };
let sitter: { id: string };
let weekender: { id: string };
let staff: { id: string };
let pending: { id: string };
let suspended: { id: string };

const t = useTestApp(test);
test.before(async () => {
  admin = await t.adminToken();
  [loc, other] = await Promise.all([createLocation(t, { name: 'Directory clinic' }), createLocation(t, { name: 'Directory elsewhere' })]);
  [reader, scopedOther] = await Promise.all([
    t.client({ name: 'reader', role: 'staff', scopes: ['bookings.read'] }),
    t.client({ name: 'other reader', role: 'staff', scopes: ['bookings.read'], locationIds: [other.id] }),
  ]);
  const parent = await createPetParent(t, loc.id);
  const pet = await createPet(t, parent.id, loc.id);
  walker = await approvedProvider(
    t,
    loc.id,
    { bio: 'Long walks in the 100% organic park', listings: [{ name: 'Walk', category: 'walking', amount: 2000, durationMinutes: 60 }] },
    weekdays([1, 2, 3, 4, 5], '09:00', '17:00'),
  );
  sitter = await approvedProvider(
    t,
    loc.id,
    { bio: 'Cat sitter', listings: [{ name: 'Sit', category: 'sitting', amount: 3000, durationMinutes: 120 }] },
    weekdays([1, 2, 3, 4, 5], '09:00', '17:00'),
  );
  weekender = await approvedProvider(
    t,
    loc.id,
    { listings: [{ name: 'Weekend walk', category: 'walking', amount: 2500, durationMinutes: 60 }] },
    weekdays([6, 7], '10:00', '12:00'),
  );
  staff = await createProvider(t, { locationIds: [loc.id], name: 'Dr. Staff Walkerman' });
  pending = await onboard(t, [loc.id]);
  suspended = await approvedProvider(t, loc.id);
  await t.request('POST', `/v1/providers/${suspended.id}/suspend`, { token: admin });
  // Ratings: walker 5 and 4 (4.5), sitter 3, weekender unrated.
  for (const [providerId, stars] of [
    [walker.id, 5],
    [walker.id, 4],
    [sitter.id, 3],
  ] as const) {
    const bookingId = await insertMarketplaceBooking(t, { providerId, parentId: parent.id, petId: pet.id, locationId: loc.id });
    const res = await t.request('POST', '/v1/providers/ratings', { token: admin, body: { bookingId, parentId: parent.id, stars } });
    if (res.status !== 201) throw new Error(res.text);
  }
});

const ids = async (query: string, token = reader.accessToken) => {
  const res = await t.request('GET', `/v1/providers?locationId=${loc.id}&${query}`, { token });
  if (res.status !== 200) throw new Error(`${query}: ${res.status} ${res.text}`);
  return (res.body.data as Array<{ id: string }>).map((p) => p.id);
};

test('by default the approved marketplace providers and active staff, newest first, with rating, ratingCount and profile', async (a) => {
  a.deepEqual(await ids(''), [staff.id, weekender.id, sitter.id, walker.id]);
  const res = await t.request('GET', `/v1/providers?locationId=${loc.id}`, { token: reader.accessToken });
  const byId = new Map(res.body.data.map((p: { id: string }) => [p.id, p]));
  a.like(byId.get(walker.id), { rating: 4.5, ratingCount: 2, status: 'approved', marketplace: { bio: 'Long walks in the 100% organic park' } });
  a.like(byId.get(sitter.id), { rating: 3, ratingCount: 1 });
  a.like(byId.get(weekender.id), { rating: null, ratingCount: 0 });
  a.false('marketplace' in (byId.get(staff.id) as object));
  a.deepEqual(await ids('status=pending', admin), [pending.id]);
  a.deepEqual(await ids('status=suspended', admin), [suspended.id]);
  a.is((await t.request('GET', '/v1/providers?status=suspended', { token: reader.accessToken })).status, 403);
});

test('category keeps providers with an active listing of it; minRating drops lower and unrated ones', async (a) => {
  a.deepEqual(await ids('category=walking'), [weekender.id, walker.id]);
  a.deepEqual(await ids('category=sitting'), [sitter.id]);
  a.deepEqual(await ids('category=grooming'), []);
  a.deepEqual(await ids('minRating=3'), [sitter.id, walker.id]);
  a.deepEqual(await ids('minRating=4.5'), [walker.id]);
  a.deepEqual(await ids('minRating=4.6'), []);
  a.deepEqual(await ids('category=walking&minRating=4'), [walker.id]);
  a.is((await t.request('GET', '/v1/providers?minRating=6', { token: reader.accessToken })).status, 400);
  a.is((await t.request('GET', '/v1/providers?category=plumbing', { token: reader.accessToken })).status, 400);
});

test('q matches the name or the bio, case-insensitively, with % and _ taken literally', async (a) => {
  a.deepEqual(await ids('q=walkerman'), [staff.id]);
  a.deepEqual(await ids('q=CAT'), [sitter.id]);
  a.deepEqual(await ids(`q=${encodeURIComponent('100%')}`), [walker.id]);
  a.deepEqual(await ids(`q=${encodeURIComponent('%')}`), [walker.id]);
  a.deepEqual(await ids('q=_'), []);
  a.is((await t.request('GET', `/v1/providers?q=${'x'.repeat(101)}`, { token: reader.accessToken })).status, 400);
});

test('availableOn keeps providers with an open slot that local day, and pages on through the filter', async (a) => {
  const saturday = nextWeekday(t.clock.now(), 6);
  const tuesday = nextWeekday(t.clock.now(), 2);
  a.deepEqual(await ids(`availableOn=${saturday}`), [weekender.id]);
  // Staff providers without a schedule have no slots.
  a.deepEqual(await ids(`availableOn=${tuesday}`), [sitter.id, walker.id]);
  a.deepEqual(await ids(`availableOn=${tuesday}&category=walking`), [walker.id]);
  const page1 = await t.request('GET', `/v1/providers?locationId=${loc.id}&availableOn=${tuesday}&limit=1`, { token: reader.accessToken });
  a.deepEqual(
    page1.body.data.map((p: { id: string }) => p.id),
    [sitter.id],
  );
  a.true(page1.body.hasMore);
  const page2 = await t.request('GET', `/v1/providers?locationId=${loc.id}&availableOn=${tuesday}&limit=1&cursor=${page1.body.nextCursor}`, {
    token: reader.accessToken,
  });
  a.deepEqual(
    page2.body.data.map((p: { id: string }) => p.id),
    [walker.id],
  );
  a.false(page2.body.hasMore);
  a.is((await t.request('GET', '/v1/providers?availableOn=2026-02-30', { token: reader.accessToken })).status, 400);
  a.is((await t.request('GET', '/v1/providers?availableOn=tomorrow', { token: reader.accessToken })).status, 400);
});

test('availableOn: a day of time off or one taken by busy time drops the provider', async (a) => {
  const place = await createLocation(t, { name: 'Busy clinic' });
  const parent = await createPetParent(t, place.id);
  const pet = await createPet(t, parent.id, place.id);
  const wednesday = nextWeekday(t.clock.now(), 3);
  const thursday = nextWeekday(t.clock.now(), 4);
  const busy = await approvedProvider(t, place.id, {}, weekdays([3, 4], '09:00', '11:00'));
  // Wednesday 09:00–11:00 London (GMT or BST) is taken by a booking holding the provider; Thursday is time off.
  const offset = new Date(`${wednesday}T12:00:00Z`).toLocaleString('en-GB', { timeZone: 'Europe/London', hour: '2-digit', hour12: false }) === '13' ? 1 : 0;
  const startsAt = new Date(Date.parse(`${wednesday}T09:00:00Z`) - offset * 3_600_000).toISOString();
  await insertMarketplaceBooking(t, {
    providerId: busy.id,
    parentId: parent.id,
    petId: pet.id,
    locationId: place.id,
    status: 'confirmed',
    startsAt,
    minutes: 120,
    kind: 'grooming',
  });
  const put = await t.request('PUT', `/v1/appointments/schedules/${busy.id}`, {
    token: admin,
    body: { locationId: place.id, weekly: weekdays([3, 4], '09:00', '11:00'), timeOff: [{ from: thursday, to: thursday }] },
  });
  a.is(put.status, 200, put.text);
  const at = async (date: string) =>
    (await t.request('GET', `/v1/providers?locationId=${place.id}&availableOn=${date}`, { token: reader.accessToken })).body.data.map(
      (p: { id: string }) => p.id,
    );
  a.deepEqual(await at(wednesday), []);
  a.deepEqual(await at(thursday), []);
  a.deepEqual(await at(nextWeekday(t.clock.now(), 3, 14)), [busy.id]);
});

test('location scoping: a client of another location sees none of these providers and learns nothing by filtering', async (a) => {
  const res = await t.request('GET', `/v1/providers?locationId=${loc.id}`, { token: scopedOther.accessToken });
  a.deepEqual(res.body.data, []);
  const all = await t.request('GET', '/v1/providers?category=walking&limit=100', { token: scopedOther.accessToken });
  a.false(all.body.data.some((p: { id: string }) => p.id === walker.id));
  a.is((await t.request('GET', `/v1/providers/${walker.id}`, { token: scopedOther.accessToken })).status, 404);
  a.is((await t.request('GET', '/v1/providers', {})).status, 401);
});

test('a page read again shows at once a new review, a listing change, a rename and a suspension (the reuse follows every write)', async (a) => {
  const place = await createLocation(t, { name: 'Fresh clinic' });
  const parent = await createPetParent(t, place.id);
  const pet = await createPet(t, parent.id, place.id);
  const provider = await approvedProvider(t, place.id, { listings: [{ name: 'Board', category: 'boarding', amount: 9000, durationMinutes: 60 }] });
  const page = async (query = '') =>
    (await t.request('GET', `/v1/providers?locationId=${place.id}${query}`, { token: reader.accessToken })).body.data as Array<Record<string, any>>;
  a.like((await page())[0], { id: provider.id, rating: null, ratingCount: 0 });
  a.like((await page())[0], { id: provider.id, rating: null });
  const bookingId = await insertMarketplaceBooking(t, { providerId: provider.id, parentId: parent.id, petId: pet.id, locationId: place.id });
  await t.request('POST', '/v1/providers/ratings', { token: admin, body: { bookingId, parentId: parent.id, stars: 4 } });
  a.like((await page())[0], { id: provider.id, rating: 4, ratingCount: 1 });
  a.is((await page('&category=boarding')).length, 1);
  const listingId = (await page())[0]!.marketplace.listings[0].id;
  await t.request('PATCH', `/v1/providers/${provider.id}/listings/${listingId}`, { token: admin, body: { status: 'inactive' } });
  a.deepEqual(await page('&category=boarding'), []);
  await t.request('PATCH', `/v1/providers/${provider.id}`, { token: admin, body: { name: 'Renamed boarder' } });
  a.is((await page())[0]!.name, 'Renamed boarder');
  await t.request('POST', `/v1/providers/${provider.id}/suspend`, { token: admin });
  a.deepEqual(await page(), []);
});
