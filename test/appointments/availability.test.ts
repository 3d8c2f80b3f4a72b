import test from 'ava';
import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import { TestClock, type TokenSet, useTestApp } from '../helpers/test-app.js';
import { book, createProvider, putSchedule, weekdays } from './scheduling-support.js';

/**
 * GET /v1/appointments/availability: working hours minus time off, appointments (with buffers) and
 * notice, stepped by the type's duration, in the location's zone across daylight-saving changes.
 * The clock stands on Monday 2026-03-02 08:00 UTC; notice is 60 minutes.
 */
const now = Date.parse('2026-03-02T08:00:00.000Z');
let reader: TokenSet; // staff, bookings.read
let petsOnly: TokenSet;

const t = useTestApp(test, { clock: new TestClock(now) });
test.before(async () => {
  [reader, petsOnly] = await Promise.all([
    t.client({ name: 'reader', role: 'staff', scopes: ['bookings.read'] }),
    t.client({ name: 'pets only', role: 'staff', scopes: ['pets'] }),
  ]);
});

async function availability(query: Record<string, string>, token = reader.accessToken) {
  return t.request('GET', `/v1/appointments/availability?${new URLSearchParams(query).toString()}`, { token });
}
const starts = (res: { body: { data: Array<{ startsAt: string }> } }) => res.body.data.map((s) => s.startsAt);

async function clinic(timezone: string, weekly = weekdays([1, 2, 3, 4, 5], '09:00', '12:00')) {
  const location = await createLocation(t, { timezone });
  const provider = await createProvider(t, { locationIds: [location.id] });
  await putSchedule(t, provider.id, location.id, weekly);
  return { location, provider };
}

test('slots step by the duration inside working hours; bookings and their buffers are taken out', async (a) => {
  const { location, provider } = await clinic('Europe/London');
  const day = { locationId: location.id, type: 'VET_CONSULTATION', from: '2026-03-03', to: '2026-03-03' };
  const free = await availability(day);
  a.is(free.status, 200, free.text);
  a.deepEqual(free.body.data[0], { providerId: provider.id, startsAt: '2026-03-03T09:00:00.000Z', endsAt: '2026-03-03T09:30:00.000Z' });
  a.deepEqual(
    starts(free),
    ['09:00', '09:30', '10:00', '10:30', '11:00', '11:30'].map((h) => `2026-03-03T${h}:00.000Z`),
  );
  a.false(free.body.hasMore);
  a.is(free.body.nextFrom, null);
  const parent = await createPetParent(t, location.id);
  const pet = await createPet(t, parent.id, location.id);
  // 10:00–10:30 plus its 10-minute buffer after blocks until 10:40; the next slot starts there.
  a.is((await book(t, { petId: pet.id, providerId: provider.id, type: 'vet_consultation', startsAt: '2026-03-03T10:00:00Z' })).status, 201);
  const after = await availability(day);
  a.deepEqual(
    starts(after),
    ['09:00', '10:40', '11:10'].map((h) => `2026-03-03T${h}:00.000Z`),
  );
  // Every offered slot is bookable.
  const slot = after.body.data[1];
  a.is((await book(t, { petId: pet.id, providerId: provider.id, type: 'vet_consultation', startsAt: slot.startsAt })).status, 201);
});

test('changes written by anyone (another module, another process) show at once: the busy-time cache follows a trigger-kept counter', async (a) => {
  const { location, provider } = await clinic('Europe/London');
  const parent = await createPetParent(t, location.id);
  const pet = await createPet(t, parent.id, location.id);
  const day = { locationId: location.id, type: 'checkup', from: '2026-03-06', to: '2026-03-06' };
  a.true(starts(await availability(day)).includes('2026-03-06T10:00:00.000Z'));
  const db = t.stores.get('live').db;
  await db
    .insertInto('appointments')
    .values({
      id: 'apt_directinsert00000000000000',
      tenant_id: t.tenantId,
      location_id: location.id,
      pet_id: pet.id,
      provider_id: provider.id,
      type: 'checkup',
      status: 'confirmed',
      starts_at: '2026-03-06T10:00:00.000Z',
      ends_at: '2026-03-06T10:30:00.000Z',
      notes: null,
      created_at: '2026-03-02T08:00:00.000Z',
      updated_at: '2026-03-02T08:00:00.000Z',
      blocked_from: '2026-03-06T10:00:00.000Z',
      blocked_until: '2026-03-06T10:35:00.000Z',
      calendar_token: 'ct_live_direct',
      sequence: 0,
    })
    .execute();
  a.false(starts(await availability(day)).includes('2026-03-06T10:00:00.000Z'));
  await db.updateTable('appointments').set({ status: 'cancelled' }).where('id', '=', 'apt_directinsert00000000000000').execute();
  a.true(starts(await availability(day)).includes('2026-03-06T10:00:00.000Z'));
});

test('time off, the minimum notice and other locations of the provider are respected', async (a) => {
  const { location, provider } = await clinic('Europe/London');
  await putSchedule(t, provider.id, location.id, weekdays([1, 2, 3, 4, 5], '09:00', '12:00'), [{ from: '2026-03-04T10:00', to: '2026-03-04T11:00' }]);
  const wed = await availability({ locationId: location.id, type: 'checkup', from: '2026-03-04', to: '2026-03-04' });
  a.deepEqual(
    starts(wed),
    ['09:00', '09:30', '11:00', '11:30'].map((h) => `2026-03-04T${h}:00.000Z`),
  );
  // Today (Monday) at 08:00 UTC with 60 minutes' notice: the first slot is 09:00.
  const today = await availability({ locationId: location.id, type: 'checkup', from: '2026-03-02', to: '2026-03-02' });
  a.is(starts(today)[0], '2026-03-02T09:00:00.000Z');
  const soon = await availability({ locationId: location.id, type: 'checkup', from: '2026-03-02T08:00:00Z', to: '2026-03-02T09:45:00Z' });
  a.deepEqual(starts(soon), ['2026-03-02T09:00:00.000Z', '2026-03-02T09:30:00.000Z']);
  // The provider also works elsewhere: a visit there blocks the same time here.
  const other = await createLocation(t, { timezone: 'Europe/London' });
  await t.request('PATCH', `/v1/providers/${provider.id}`, { token: await t.adminToken(), body: { locationIds: [location.id, other.id] } });
  const parent = await createPetParent(t, other.id);
  const pet = await createPet(t, parent.id, other.id);
  a.is((await book(t, { petId: pet.id, providerId: provider.id, type: 'checkup', startsAt: '2026-03-05T10:00:00Z', locationId: other.id })).status, 201);
  const thu = await availability({ locationId: location.id, type: 'checkup', from: '2026-03-05', to: '2026-03-05' });
  // 10:00–10:30 and its 5-minute buffer block 09:30 (09:30–10:05 with buffer) and 10:00; 10:35 is next.
  a.deepEqual(
    starts(thu),
    ['09:00', '10:35', '11:05'].map((h) => `2026-03-05T${h}:00.000Z`),
  );
});

test('only active providers who work there and offer the type; providerId narrows', async (a) => {
  const { location, provider } = await clinic('Europe/London');
  const groomer = await createProvider(t, { kind: 'groomer', locationIds: [location.id], services: ['grooming'] });
  await putSchedule(t, groomer.id, location.id);
  const resting = await createProvider(t, { locationIds: [location.id] });
  await putSchedule(t, resting.id, location.id);
  await t.request('PATCH', `/v1/providers/${resting.id}`, { token: await t.adminToken(), body: { status: 'inactive' } });
  const noHours = await createProvider(t, { locationIds: [location.id] });
  const window = { from: '2026-03-03', to: '2026-03-03' };
  const checkup = await availability({ locationId: location.id, type: 'checkup', ...window });
  a.deepEqual([...new Set(checkup.body.data.map((s: { providerId: string }) => s.providerId))], [provider.id]);
  const grooming = await availability({ locationId: location.id, type: 'grooming', ...window });
  a.deepEqual([...new Set(grooming.body.data.map((s: { providerId: string }) => s.providerId))].sort(), [groomer.id, provider.id].sort());
  const narrowed = await availability({ locationId: location.id, type: 'grooming', providerId: groomer.id, ...window });
  a.true(narrowed.body.data.every((s: { providerId: string }) => s.providerId === groomer.id));
  a.is(narrowed.body.data.length, 8); // 09:00–17:00 in 60-minute steps
  a.deepEqual((await availability({ locationId: location.id, type: 'checkup', providerId: noHours.id, ...window })).body.data, []);
  a.is((await availability({ locationId: location.id, type: 'checkup', providerId: 'prv_ghost', ...window })).body.code, 'resource_missing');
});

test('Europe/London spring forward (2026-03-29): 09:00 local is 08:00Z, and a night window loses its missing hour', async (a) => {
  const { location } = await clinic('Europe/London', [...weekdays([6, 7], '09:00', '11:00'), ...weekdays([7], '00:00', '04:00')]);
  const res = await availability({ locationId: location.id, type: 'dental', from: '2026-03-28', to: '2026-03-29' });
  a.is(res.status, 200, res.text);
  a.deepEqual(starts(res), [
    '2026-03-28T09:00:00.000Z', // Saturday, GMT
    '2026-03-28T10:00:00.000Z',
    '2026-03-29T00:00:00.000Z', // Sunday 00:00 GMT
    '2026-03-29T01:00:00.000Z', // 02:00 BST (01:00–02:00 local does not exist)
    '2026-03-29T02:00:00.000Z', // 03:00 BST, ends at 04:00 BST
    '2026-03-29T08:00:00.000Z', // 09:00 BST
    '2026-03-29T09:00:00.000Z',
  ]);
  // Booking follows the same local hours: 08:00Z is 09:00 BST (open), 08:30Z on Saturday is 08:30 GMT (closed).
  const parent = await createPetParent(t, location.id);
  const pet = await createPet(t, parent.id, location.id);
  const provider = res.body.data[0].providerId as string;
  a.is((await book(t, { petId: pet.id, providerId: provider, type: 'dental', startsAt: '2026-03-29T08:00:00Z' })).status, 201);
  a.is((await book(t, { petId: pet.id, providerId: provider, type: 'dental', startsAt: '2026-03-28T08:30:00Z' })).status, 409);
  a.is((await book(t, { petId: pet.id, providerId: provider, type: 'dental', startsAt: '2026-03-29T02:00:00+01:00' })).status, 201);
});

test('Europe/London fall back (2026-10-25): a 00:00–03:00 window lasts four real hours', async (a) => {
  const { location } = await clinic('Europe/London', weekdays([7], '00:00', '03:00'));
  const res = await availability({ locationId: location.id, type: 'dental', from: '2026-10-25', to: '2026-10-25' });
  a.deepEqual(starts(res), ['2026-10-24T23:00:00.000Z', '2026-10-25T00:00:00.000Z', '2026-10-25T01:00:00.000Z', '2026-10-25T02:00:00.000Z']);
});

test('America/New_York spring forward (2026-03-08): the same local hours move an hour earlier in UTC', async (a) => {
  const { location } = await clinic('America/New_York', weekdays([6, 7, 1], '09:00', '10:00'));
  const res = await availability({ locationId: location.id, type: 'vet_consultation', from: '2026-03-07', to: '2026-03-09' });
  a.deepEqual(starts(res), [
    '2026-03-07T14:00:00.000Z', // Saturday 09:00 EST
    '2026-03-07T14:30:00.000Z',
    '2026-03-08T13:00:00.000Z', // Sunday 09:00 EDT
    '2026-03-08T13:30:00.000Z',
    '2026-03-09T13:00:00.000Z',
    '2026-03-09T13:30:00.000Z',
  ]);
  // The date window itself is local: 2026-03-08 runs from 05:00Z to 04:00Z the next day (23 hours).
  const sunday = await availability({ locationId: location.id, type: 'vet_consultation', from: '2026-03-08', to: '2026-03-08' });
  a.deepEqual(starts(sunday), ['2026-03-08T13:00:00.000Z', '2026-03-08T13:30:00.000Z']);
});

test('limit cuts the list earliest-first and says where to continue', async (a) => {
  const { location } = await clinic('Europe/London');
  const res = await availability({ locationId: location.id, type: 'vaccination', from: '2026-03-03', to: '2026-03-04', limit: '5' });
  a.is(res.body.data.length, 5);
  a.true(res.body.hasMore);
  a.is(res.body.nextFrom, '2026-03-03T10:15:00.000Z');
  const next = await availability({ locationId: location.id, type: 'vaccination', from: res.body.nextFrom, to: '2026-03-04', limit: '5' });
  a.is(next.body.data[0].startsAt, '2026-03-03T10:15:00.000Z');
});

test('validation: window, dates, type, location', async (a) => {
  const { location } = await clinic('Europe/London');
  const cases: Array<[Record<string, string>, string, string]> = [
    [{ from: '2026-03-01', to: '2026-04-02' }, 'to', 'validation_failed'],
    [{ from: '2026-03-05', to: '2026-03-04' }, 'to', 'validation_failed'],
    [{ from: '2026-03-05T10:00:00Z', to: '2026-03-05T10:00:00Z' }, 'to', 'validation_failed'],
    [{ from: 'tomorrow' }, 'from', 'validation_failed'],
    [{ from: '2026-02-30' }, 'from', 'validation_failed'],
    [{ type: 'massage' }, 'type', 'validation_failed'],
    [{ locationId: 'loc_ghost' }, 'locationId', 'resource_missing'],
    [{ limit: '0' }, 'limit', 'validation_failed'],
    [{ extra: '1' }, 'extra', 'validation_failed'],
  ];
  for (const [patch, field, code] of cases) {
    const res = await availability({ locationId: location.id, type: 'checkup', ...patch });
    a.is(res.status, 400, `${JSON.stringify(patch)}: ${res.text}`);
    a.is(res.body.code, code);
    a.true(
      (res.body.errors as Array<{ field: string }>).some((e) => e.field === field),
      `${JSON.stringify(patch)} → ${JSON.stringify(res.body.errors)}`,
    );
  }
  const missing = await t.request('GET', '/v1/appointments/availability?type=checkup', { token: reader.accessToken });
  a.is(missing.status, 400);
  // Defaults: from now, seven days.
  const defaults = await availability({ locationId: location.id, type: 'checkup' });
  a.is(defaults.status, 200);
  a.is(starts(defaults)[0], '2026-03-02T09:00:00.000Z');
  a.true(starts(defaults).every((s: string) => s < '2026-03-09T08:00:00.000Z'));
});

test('auth and scoping: 401, 403, and an invisible location is resource_missing', async (a) => {
  const { location } = await clinic('Europe/London');
  a.is((await t.request('GET', `/v1/appointments/availability?locationId=${location.id}&type=checkup`)).status, 401);
  a.is((await availability({ locationId: location.id, type: 'checkup' }, petsOnly.accessToken)).status, 403);
  const other = await createLocation(t);
  const scoped = await t.client({ name: 'other', role: 'staff', scopes: ['bookings.read'], locationIds: [other.id] });
  const res = await availability({ locationId: location.id, type: 'checkup' }, scoped.accessToken);
  a.is(res.status, 400);
  a.is(res.body.code, 'resource_missing');
});

test('a reused answer follows every input: hours, time off, services, status, the location list, the type, the zone, bookings and the clock', async (a) => {
  const admin = await t.adminToken();
  // Its own appointment type, so changing it touches no other test.
  const code = 'reuse_check';
  a.is((await t.request('POST', '/v1/appointment-types', { token: admin, body: { code, name: 'Reuse check', durationMinutes: 30 } })).status, 201);
  const { location, provider } = await clinic('Europe/London');
  const query = { locationId: location.id, type: code, from: '2026-03-10', to: '2026-03-10' };
  const first = await availability(query);
  const again = await availability(query);
  a.is(again.text, first.text, 'the same answer, byte for byte');
  a.deepEqual(
    starts(first),
    ['09:00', '09:30', '10:00', '10:30', '11:00', '11:30'].map((h) => `2026-03-10T${h}:00.000Z`),
  );

  await putSchedule(t, provider.id, location.id, weekdays([1, 2, 3, 4, 5], '09:00', '10:00'));
  a.deepEqual(starts(await availability(query)), ['2026-03-10T09:00:00.000Z', '2026-03-10T09:30:00.000Z'], 'new hours');
  await putSchedule(t, provider.id, location.id, weekdays([1, 2, 3, 4, 5], '09:00', '10:00'), [{ from: '2026-03-10T09:30', to: '2026-03-10T10:00' }]);
  a.deepEqual(starts(await availability(query)), ['2026-03-10T09:00:00.000Z'], 'time off');
  await putSchedule(t, provider.id, location.id, weekdays([1, 2, 3, 4, 5], '09:00', '10:00'));

  a.is((await t.request('PATCH', `/v1/appointment-types/${code}`, { token: admin, body: { durationMinutes: 60 } })).status, 200);
  a.deepEqual(starts(await availability(query)), ['2026-03-10T09:00:00.000Z'], 'a longer type');
  a.is((await t.request('PATCH', `/v1/appointment-types/${code}`, { token: admin, body: { durationMinutes: 30 } })).status, 200);
  a.is(starts(await availability(query)).length, 2);

  a.is((await t.request('PATCH', `/v1/providers/${provider.id}`, { token: admin, body: { services: ['grooming'] } })).status, 200);
  a.deepEqual((await availability(query)).body.data, [], 'no longer offers the type');
  a.is((await t.request('PATCH', `/v1/providers/${provider.id}`, { token: admin, body: { services: [] } })).status, 200);
  a.is((await t.request('PATCH', `/v1/providers/${provider.id}`, { token: admin, body: { status: 'inactive' } })).status, 200);
  a.deepEqual((await availability(query)).body.data, [], 'inactive');
  a.is((await t.request('PATCH', `/v1/providers/${provider.id}`, { token: admin, body: { status: 'active' } })).status, 200);
  a.is(starts(await availability(query)).length, 2);

  a.is((await t.request('PATCH', `/v1/locations/${location.id}`, { token: admin, body: { timezone: 'America/New_York' } })).status, 200);
  a.deepEqual(starts(await availability(query)), ['2026-03-10T13:00:00.000Z', '2026-03-10T13:30:00.000Z'], 'the same hours in another zone');
  a.is((await t.request('PATCH', `/v1/locations/${location.id}`, { token: admin, body: { timezone: 'Europe/London' } })).status, 200);

  const parent = await createPetParent(t, location.id);
  const pet = await createPet(t, parent.id, location.id);
  a.is((await book(t, { petId: pet.id, providerId: provider.id, type: code, startsAt: '2026-03-10T09:00:00Z' })).status, 201);
  a.false(starts(await availability(query)).includes('2026-03-10T09:00:00.000Z'), 'a booking');

  const elsewhere = await createLocation(t, { timezone: 'Europe/London' });
  a.is((await t.request('PATCH', `/v1/providers/${provider.id}`, { token: admin, body: { locationIds: [elsewhere.id] } })).status, 200);
  a.deepEqual((await availability(query)).body.data, [], 'no longer works there');
});

test.serial('a window that the notice reaches into is computed at each call, so slots leave as the clock moves', async (a) => {
  const { location } = await clinic('Europe/London');
  const query = { locationId: location.id, type: 'checkup', from: '2026-03-02', to: '2026-03-02' };
  a.is(starts(await availability(query))[0], '2026-03-02T09:00:00.000Z');
  t.clock.advance(30 * 60_000); // 08:30: with 60 minutes' notice the 09:00 slot is gone
  try {
    a.is(starts(await availability(query))[0], '2026-03-02T09:30:00.000Z');
  } finally {
    t.clock.advance(-30 * 60_000);
  }
});
