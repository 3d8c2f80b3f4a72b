import test from 'ava';
import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import { type TokenSet, useTestApp } from '../helpers/test-app.js';
import { weekdays } from '../appointments/scheduling-support.js';
import { approvedProvider, insertMarketplaceBooking, nextWeekday, onboard } from './marketplace-support.js';

/** GET /v1/providers/availability: open slots across bookable providers by category or ids; suspension hides them. */
let admin: string;
let loc: { id: string };
let tokyo: { id: string };
let reader: TokenSet; // staff, bookings.read
let scopedTokyo: TokenSet; // staff, bookings.read, Tokyo only
let monday: string;

const t = useTestApp(test);
test.before(async () => {
  admin = await t.adminToken();
  [loc, tokyo] = await Promise.all([createLocation(t, { name: 'Slots London' }), createLocation(t, { name: 'Slots Tokyo', timezone: 'Asia/Tokyo' })]);
  [reader, scopedTokyo] = await Promise.all([
    t.client({ name: 'reader', role: 'staff', scopes: ['bookings.read'] }),
    t.client({ name: 'tokyo reader', role: 'staff', scopes: ['bookings.read'], locationIds: [tokyo.id] }),
  ]);
  monday = nextWeekday(t.clock.now(), 1);
});

type Slot = { providerId: string; startsAt: string; endsAt: string };
const slots = async (query: string, token = reader.accessToken) => {
  const res = await t.request('GET', `/v1/providers/availability?${query}`, { token });
  if (res.status !== 200) throw new Error(`${query}: ${res.status} ${res.text}`);
  return res.body as { data: Slot[]; hasMore: boolean; nextFrom: string | null };
};

test("slots by category across providers and locations, earliest first, in each location's zone; listing length unless durationMinutes", async (a) => {
  const london = await approvedProvider(
    t,
    loc.id,
    { listings: [{ name: 'Train', category: 'training', amount: 5000, durationMinutes: 60 }] },
    weekdays([1], '09:00', '12:00'),
  );
  const japan = await approvedProvider(
    t,
    tokyo.id,
    { listings: [{ name: 'Train JP', category: 'training', amount: 5000, durationMinutes: 90 }] },
    weekdays([1], '09:00', '12:00'),
  );
  await onboard(t, [loc.id], { listings: [{ name: 'Pending train', category: 'training', amount: 1, durationMinutes: 60 }] });
  const res = await slots(`category=training&from=${monday}&to=${monday}`);
  const londonSlots = res.data.filter((s) => s.providerId === london.id);
  const japanSlots = res.data.filter((s) => s.providerId === japan.id);
  a.is(londonSlots.length, 3);
  a.is(japanSlots.length, 2);
  a.deepEqual([...new Set(res.data.map((s) => s.providerId))].sort(), [london.id, japan.id].sort());
  // Tokyo (UTC+9, no DST) 09:00 is 00:00 UTC; slots step by the 90-minute listing.
  a.deepEqual(japanSlots[0], { providerId: japan.id, startsAt: `${monday}T00:00:00.000Z`, endsAt: `${monday}T01:30:00.000Z` });
  a.deepEqual(
    res.data.map((s) => s.startsAt),
    [...res.data.map((s) => s.startsAt)].sort(),
  );
  const half = await slots(`category=training&from=${monday}&to=${monday}&durationMinutes=30&locationId=${loc.id}`);
  a.is(half.data.length, 6);
  a.true(half.data.every((s) => s.providerId === london.id));
  const limited = await slots(`category=training&from=${monday}&to=${monday}&limit=2`);
  a.is(limited.data.length, 2);
  a.true(limited.hasMore);
  a.is(limited.nextFrom, res.data[2]!.startsAt);
});

test("a suspended provider's open slots disappear while its existing bookings stay; approval brings them back", async (a) => {
  const provider = await approvedProvider(
    t,
    loc.id,
    { listings: [{ name: 'Groom', category: 'grooming', amount: 5000, durationMinutes: 60 }] },
    weekdays([1], '09:00', '11:00'),
  );
  const parent = await createPetParent(t, loc.id);
  const pet = await createPet(t, parent.id, loc.id);
  const bookingId = await insertMarketplaceBooking(t, { providerId: provider.id, parentId: parent.id, petId: pet.id, locationId: loc.id, status: 'confirmed' });
  const query = `providerIds=${provider.id}&from=${monday}&to=${monday}`;
  a.is((await slots(query)).data.length, 2);
  a.is((await t.request('POST', `/v1/providers/${provider.id}/suspend`, { token: admin })).status, 200);
  a.deepEqual((await slots(query)).data, []);
  a.deepEqual(
    (await slots(`category=grooming&from=${monday}&to=${monday}`)).data.filter((s) => s.providerId === provider.id),
    [],
  );
  const booking = await t.stores.get('live').db.selectFrom('bookings').select(['status', 'provider_id']).where('id', '=', bookingId).executeTakeFirstOrThrow();
  a.deepEqual(booking, { status: 'confirmed', provider_id: provider.id });
  a.is((await t.request('POST', `/v1/providers/${provider.id}/approve`, { token: admin })).status, 200);
  a.is((await slots(query)).data.length, 2);
});

test('busy time and time off take slots away', async (a) => {
  const provider = await approvedProvider(
    t,
    tokyo.id,
    { listings: [{ name: 'Sit', category: 'daycare', amount: 100, durationMinutes: 60 }] },
    weekdays([1], '09:00', '13:00'),
  );
  const parent = await createPetParent(t, tokyo.id);
  const pet = await createPet(t, parent.id, tokyo.id);
  // 10:00–11:00 Tokyo is 01:00–02:00 UTC.
  await insertMarketplaceBooking(t, {
    providerId: provider.id,
    parentId: parent.id,
    petId: pet.id,
    locationId: tokyo.id,
    status: 'confirmed',
    startsAt: `${monday}T01:00:00.000Z`,
    kind: 'grooming',
  });
  const put = await t.request('PUT', `/v1/appointments/schedules/${provider.id}`, {
    token: admin,
    body: { locationId: tokyo.id, weekly: weekdays([1], '09:00', '13:00'), timeOff: [{ from: `${monday}T12:00`, to: `${monday}T13:00` }] },
  });
  a.is(put.status, 200, put.text);
  const res = await slots(`providerIds=${provider.id}&from=${monday}&to=${monday}`);
  a.deepEqual(
    res.data.map((s) => s.startsAt),
    [`${monday}T00:00:00.000Z`, `${monday}T02:00:00.000Z`],
  );
});

test('validation: category or providerIds needed, ids checked, window at most 31 days; location scoping', async (a) => {
  const provider = await approvedProvider(
    t,
    loc.id,
    { listings: [{ name: 'Taxi', category: 'transport', amount: 100, durationMinutes: 30 }] },
    weekdays([1], '09:00', '10:00'),
  );
  const bad = async (query: string, token = reader.accessToken) => (await t.request('GET', `/v1/providers/availability?${query}`, { token })).status;
  a.is(await bad(`from=${monday}`), 400);
  a.is(await bad('providerIds=nope'), 400);
  a.is(await bad('providerIds=prv_missing'), 400);
  a.is(await bad('category=plumbing'), 400);
  a.is(await bad(`category=transport&from=${monday}&to=2099-01-01`), 400);
  a.is(await bad('category=transport&durationMinutes=0'), 400);
  a.is(await bad(`category=transport&extra=1`), 400);
  a.is(await bad(`providerIds=${provider.id}`, scopedTokyo.accessToken), 400);
  a.deepEqual((await slots(`category=transport&from=${monday}&to=${monday}`, scopedTokyo.accessToken)).data, []);
  a.is((await slots(`category=transport&from=${monday}&to=${monday}`)).data.length, 2);
  a.is((await t.request('GET', '/v1/providers/availability?category=transport', {})).status, 401);
});
