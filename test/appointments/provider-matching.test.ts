import test from 'ava';
import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import { TestClock, type TokenSet, useTestApp } from '../helpers/test-app.js';
import { book, createProvider, putSchedule, weekdays } from './scheduling-support.js';

/** POST /v1/providers/match: who can do the visit soonest at the pet's location, with reasons. */
const now = Date.parse('2026-11-23T08:00:00.000Z'); // Monday
let admin: string;
let reader: TokenSet; // staff, bookings.read

const t = useTestApp(test, { clock: new TestClock(now) });
test.before(async () => {
  admin = await t.adminToken();
  reader = await t.client({ name: 'reader', role: 'staff', scopes: ['bookings.read', 'pets.read'] });
});

async function household(timezone = 'Europe/London') {
  const location = await createLocation(t, { timezone, name: `Match clinic ${Math.random().toString(36).slice(2, 7)}` });
  const parent = await createPetParent(t, location.id);
  const pet = await createPet(t, parent.id, location.id);
  return { location, pet };
}

const match = (body: Record<string, unknown>, token = reader.accessToken, idempotencyKey?: string) =>
  t.request('POST', '/v1/providers/match', { token, body, ...(idempotencyKey ? { idempotencyKey } : {}) });

test('ranks by the soonest free slot, then rating, then name; explains each rank', async (a) => {
  const { location, pet } = await household();
  const tuesday = await createProvider(t, { name: 'Dr. Tuesday', locationIds: [location.id] });
  await putSchedule(t, tuesday.id, location.id, weekdays([2], '09:00', '17:00'));
  const monday = await createProvider(t, { name: 'Dr. Monday', locationIds: [location.id] });
  await putSchedule(t, monday.id, location.id, weekdays([1], '14:00', '17:00'));
  const noHours = await createProvider(t, { name: 'Dr. Nohours', locationIds: [location.id] });
  const groomer = await createProvider(t, { name: 'Groomer', kind: 'groomer', locationIds: [location.id], services: ['grooming'] });
  await putSchedule(t, groomer.id, location.id);
  const res = await match({ petId: pet.id, type: 'VET_CONSULTATION' });
  a.is(res.status, 200, res.text);
  a.is(res.headers.get('idempotent-replayed'), null);
  a.like(res.body, { petId: pet.id, type: 'vet_consultation', locationId: location.id, from: new Date(now).toISOString() });
  a.deepEqual(
    res.body.data.map((m: { providerId: string }) => m.providerId),
    [monday.id, tuesday.id, noHours.id],
  );
  const [first, second, third] = res.body.data;
  a.deepEqual(first.nextSlot, { providerId: monday.id, startsAt: '2026-11-23T14:00:00.000Z', endsAt: '2026-11-23T14:30:00.000Z' });
  a.deepEqual(first.provider, { id: monday.id, name: 'Dr. Monday', kind: 'vet' });
  a.is(first.rank, 1);
  a.true(first.reasons.some((r: string) => r.startsWith('next free vet_consultation slot 2026-11-23T14:00:00.000Z')));
  a.true(first.reasons.some((r: string) => r.includes('soonest available of 2')));
  a.is(second.nextSlot.startsAt, '2026-11-24T09:00:00.000Z');
  a.true(second.reasons.some((r: string) => r.includes('free later than')));
  a.is(third.nextSlot, null);
  a.true(third.reasons.some((r: string) => r.startsWith('no free slot between')));
  a.true(third.reasons.includes('not rated yet'));
  // Booking Monday's first slot moves Monday on to 14:40 (30 minutes + 10 buffer): still first.
  a.is((await book(t, { petId: pet.id, providerId: monday.id, type: 'vet_consultation', startsAt: '2026-11-23T14:00:00Z' })).status, 201);
  const again = await match({ petId: pet.id, type: 'vet_consultation' });
  a.is(again.body.data[0].nextSlot.startsAt, '2026-11-23T14:40:00.000Z');
});

test('equal slots are ordered by rating (unrated last), then by name', async (a) => {
  const { location, pet } = await household();
  const names = ['Dr. Zed', 'Dr. Amy', 'Dr. Bob'];
  const providers = [];
  for (const name of names) {
    const provider = await createProvider(t, { name, locationIds: [location.id] });
    await putSchedule(t, provider.id, location.id);
    providers.push(provider);
  }
  // Ratings arrive with the marketplace work; set one directly.
  await t.stores.get('live').db.updateTable('providers').set({ rating: 4.5, rating_count: 2 }).where('id', '=', providers[0]!.id).execute();
  const res = await match({ petId: pet.id, type: 'checkup', from: '2026-11-24', to: '2026-11-24' });
  a.deepEqual(
    res.body.data.map((m: { provider: { name: string } }) => m.provider.name),
    ['Dr. Zed', 'Dr. Amy', 'Dr. Bob'],
  );
  a.is(res.body.data[0].rating, 4.5);
  a.true(res.body.data[0].reasons.includes('rated 4.5 from 2 reviews'));
  a.true(res.body.data[1].reasons.some((r: string) => r.includes('ordered by rating, then name')));
  a.is(res.body.to, '2026-11-25T00:00:00.000Z');
});

test('locationId overrides the pet’s location; unknown pet/location/type are 400', async (a) => {
  const { pet } = await household();
  const { location: other } = await household();
  const there = await createProvider(t, { locationIds: [other.id] });
  await putSchedule(t, there.id, other.id);
  const res = await match({ petId: pet.id, type: 'checkup', locationId: other.id });
  a.is(res.status, 200);
  a.deepEqual(
    res.body.data.map((m: { providerId: string }) => m.providerId),
    [there.id],
  );
  a.is((await match({ petId: 'pet_ghost', type: 'checkup' })).body.code, 'resource_missing');
  a.is((await match({ petId: pet.id, type: 'checkup', locationId: 'loc_ghost' })).body.code, 'resource_missing');
  a.is((await match({ petId: pet.id, type: 'nap' })).body.errors[0].field, 'type');
  a.is((await match({ petId: pet.id, type: 'checkup', from: '2026-11-24', to: '2027-01-24' })).body.errors[0].field, 'to');
  a.is((await match({ petId: pet.id })).status, 400);
});

test('read-only POST: an Idempotency-Key is accepted, never stored, and each call ranks afresh', async (a) => {
  const { location, pet } = await household();
  const provider = await createProvider(t, { locationIds: [location.id] });
  await putSchedule(t, provider.id, location.id, weekdays([3], '09:00', '10:00'));
  const first = await match({ petId: pet.id, type: 'checkup' }, reader.accessToken, 'match-key-1');
  a.is(first.status, 200);
  a.is(first.body.data[0].nextSlot.startsAt, '2026-11-25T09:00:00.000Z');
  a.is((await book(t, { petId: pet.id, providerId: provider.id, type: 'checkup', startsAt: '2026-11-25T09:00:00Z' })).status, 201);
  const second = await match({ petId: pet.id, type: 'checkup' }, reader.accessToken, 'match-key-1');
  a.is(second.status, 200);
  a.is(second.headers.get('idempotent-replayed'), null);
  a.is(second.body.data[0].nextSlot.startsAt, '2026-12-02T09:00:00.000Z'); // 09:35–10:05 would end after closing
  const stored = await t.stores.get('live').db.selectFrom('idempotency_keys').select('key').where('key', '=', 'match-key-1').execute();
  a.deepEqual(stored, []);
});

test('auth and scoping', async (a) => {
  const { pet } = await household();
  a.is((await t.request('POST', '/v1/providers/match', { body: { petId: pet.id, type: 'checkup' } })).status, 401);
  const petsOnly = await t.client({ name: 'pets', role: 'staff', scopes: ['pets'] });
  a.is((await match({ petId: pet.id, type: 'checkup' }, petsOnly.accessToken)).status, 403);
  const { location: elsewhere } = await household();
  const scoped = await t.client({ name: 'elsewhere', role: 'staff', scopes: ['bookings.read'], locationIds: [elsewhere.id] });
  a.is((await match({ petId: pet.id, type: 'checkup' }, scoped.accessToken)).body.code, 'resource_missing');
  void admin;
});
