import test from 'ava';
import { assertProblem, fieldsOf } from '../gateway/gateway-support.js';
import type { TestApp } from '../helpers/test-app.js';
import { anotherPet, boardingApp, booked, checkedIn, dayAfter, room, scopedClient, site, today, type Tokens } from './boarding-support.js';

/** GET /v1/boarding/occupancy: exactly the DESIGN shape, counts per night and room type, validation and scoping. */
let t: TestApp;
let tokens: Tokens;

test.before(async () => {
  ({ t, tokens } = await boardingApp());
});
test.after.always(async () => {
  await t?.close();
});

test('per night and room type: capacity of active rooms, reserved, checked in, available; dates inclusive', async (a) => {
  const s = await site(t);
  await room(t, tokens.staff.accessToken, s.location.id, { capacity: 2 });
  await room(t, tokens.staff.accessToken, s.location.id, { capacity: 1 });
  await room(t, tokens.staff.accessToken, s.location.id, { roomType: 'cattery', capacity: 4, species: ['cat'] });
  const off = await room(t, tokens.staff.accessToken, s.location.id, { roomType: 'suite', capacity: 9 });
  await t.request('PATCH', `/v1/boarding/rooms/${off.id}`, { token: tokens.staff.accessToken, body: { active: false } });
  const inHouse = await booked(t, tokens.staff.accessToken, s, { checkInOn: today, checkOutOn: dayAfter(2) });
  await checkedIn(t, tokens.staff.accessToken, inHouse.id);
  await booked(t, tokens.staff.accessToken, { ...s, pet: await anotherPet(t, s) }, { checkInOn: dayAfter(1), checkOutOn: dayAfter(3) });
  await booked(
    t,
    tokens.staff.accessToken,
    { ...s, pet: await anotherPet(t, s, { species: 'cat' }) },
    { roomType: 'cattery', checkInOn: dayAfter(1), checkOutOn: dayAfter(2) },
  );
  const cancelled = await booked(t, tokens.staff.accessToken, { ...s, pet: await anotherPet(t, s) }, { checkInOn: today, checkOutOn: dayAfter(3) });
  await t.request('POST', `/v1/boarding/bookings/${cancelled.id}/cancel`, { token: tokens.staff.accessToken, body: {} });

  const res = await t.request('GET', `/v1/boarding/occupancy?locationId=${s.location.id}&from=${today}&to=${dayAfter(3)}`, {
    token: tokens.reader.accessToken,
  });
  a.is(res.status, 200, res.text);
  const type = (roomType: string, capacity: number, reserved: number, checkedIn: number) => ({
    roomType,
    capacity,
    reserved,
    checkedIn,
    available: capacity - reserved - checkedIn,
  });
  const night = (date: string, types: ReturnType<typeof type>[]) => ({
    date,
    capacity: types.reduce((n, x) => n + x.capacity, 0),
    reserved: types.reduce((n, x) => n + x.reserved, 0),
    checkedIn: types.reduce((n, x) => n + x.checkedIn, 0),
    available: types.reduce((n, x) => n + x.available, 0),
    byRoomType: types,
  });
  a.deepEqual(res.body, {
    locationId: s.location.id,
    from: today,
    to: dayAfter(3),
    nights: [
      night(today, [type('cattery', 4, 0, 0), type('standard', 3, 0, 1)]),
      night(dayAfter(1), [type('cattery', 4, 1, 0), type('standard', 3, 1, 1)]),
      night(dayAfter(2), [type('cattery', 4, 0, 0), type('standard', 3, 1, 0)]),
      night(dayAfter(3), [type('cattery', 4, 0, 0), type('standard', 3, 0, 0)]),
    ],
  });
  // The totals occupancy reads are the per-species counters summed.
  const db = t.stores.get('live').db;
  const totals = await db
    .selectFrom('boarding_night_totals')
    .select(['night', 'room_type', 'reserved', 'checked_in'])
    .where('location_id', '=', s.location.id)
    .orderBy('night')
    .orderBy('room_type')
    .execute();
  const summed = await db
    .selectFrom('boarding_nights')
    .select(['night', 'room_type', (eb) => eb.fn.sum<number>('reserved').as('reserved'), (eb) => eb.fn.sum<number>('checked_in').as('checked_in')])
    .where('location_id', '=', s.location.id)
    .groupBy(['night', 'room_type'])
    .orderBy('night')
    .orderBy('room_type')
    .execute();
  a.deepEqual(
    totals,
    summed.map((r) => ({ ...r, reserved: Number(r.reserved), checked_in: Number(r.checked_in) })),
  );
});

test('validation: to before from, more than 92 nights, missing fields: 400 on the field', async (a) => {
  const s = await site(t);
  for (const [query, field] of [
    [`locationId=${s.location.id}&from=${dayAfter(2)}&to=${today}`, 'to'],
    [`locationId=${s.location.id}&from=${today}&to=${dayAfter(92)}`, 'to'],
    [`locationId=${s.location.id}&from=${today}`, 'to'],
    [`locationId=${s.location.id}&from=2026-13-01&to=${today}`, 'from'],
    [`from=${today}&to=${today}`, 'locationId'],
  ] as const) {
    const res = await t.request('GET', `/v1/boarding/occupancy?${query}`, { token: tokens.reader.accessToken });
    assertProblem(a, res, 400, 'validation_failed');
    a.deepEqual(fieldsOf(res), [field], query);
  }
  const max = await t.request('GET', `/v1/boarding/occupancy?locationId=${s.location.id}&from=${today}&to=${dayAfter(91)}`, {
    token: tokens.reader.accessToken,
  });
  a.is(max.status, 200);
  a.is(max.body.nights.length, 92);
  a.deepEqual(max.body.nights[0], { date: today, capacity: 0, reserved: 0, checkedIn: 0, available: 0, byRoomType: [] });
});

test('401, 403, and another location’s client (or an unknown location) gets 404', async (a) => {
  const s = await site(t);
  const path = `/v1/boarding/occupancy?locationId=${s.location.id}&from=${today}&to=${today}`;
  assertProblem(a, await t.request('GET', path, {}), 401, 'unauthorized');
  const petsOnly = await t.client({ role: 'staff', scopes: ['pets'] });
  assertProblem(a, await t.request('GET', path, { token: petsOnly.accessToken }), 403, 'insufficient_scope');
  const elsewhere = await site(t);
  const scoped = await scopedClient(t, [elsewhere.location.id], ['bookings.read']);
  assertProblem(a, await t.request('GET', path, { token: scoped.accessToken }), 404, 'not_found');
  assertProblem(
    a,
    await t.request('GET', `/v1/boarding/occupancy?locationId=loc_unknown&from=${today}&to=${today}`, { token: tokens.reader.accessToken }),
    404,
    'not_found',
  );
});

test('a repeated read is answered from the cache only while nothing it reads changed: a booking, a check-in, a room change and a cancel each show at once', async (a) => {
  const s = await site(t);
  const kennel = await room(t, tokens.staff.accessToken, s.location.id, { capacity: 2 });
  const grid = async () => {
    const res = await t.request('GET', `/v1/boarding/occupancy?locationId=${s.location.id}&from=${today}&to=${today}`, { token: tokens.reader.accessToken });
    a.is(res.status, 200, res.text);
    const [night] = res.body.nights as Array<{ capacity: number; reserved: number; checkedIn: number; available: number }>;
    return { capacity: night!.capacity, reserved: night!.reserved, checkedIn: night!.checkedIn, available: night!.available };
  };
  a.deepEqual(await grid(), { capacity: 2, reserved: 0, checkedIn: 0, available: 2 });
  a.deepEqual(await grid(), { capacity: 2, reserved: 0, checkedIn: 0, available: 2 });
  const stay = await booked(t, tokens.staff.accessToken, s, { checkInOn: today, checkOutOn: dayAfter(1) });
  a.deepEqual(await grid(), { capacity: 2, reserved: 1, checkedIn: 0, available: 1 });
  await checkedIn(t, tokens.staff.accessToken, stay.id);
  a.deepEqual(await grid(), { capacity: 2, reserved: 0, checkedIn: 1, available: 1 });
  a.is((await t.request('PATCH', `/v1/boarding/rooms/${kennel.id}`, { token: tokens.staff.accessToken, body: { capacity: 3 } })).status, 200);
  a.deepEqual(await grid(), { capacity: 3, reserved: 0, checkedIn: 1, available: 2 });
  const other = await booked(t, tokens.staff.accessToken, { ...s, pet: await anotherPet(t, s) }, { checkInOn: today, checkOutOn: dayAfter(1) });
  a.deepEqual(await grid(), { capacity: 3, reserved: 1, checkedIn: 1, available: 1 });
  await t.request('POST', `/v1/boarding/bookings/${other.id}/cancel`, { token: tokens.staff.accessToken, body: {} });
  a.deepEqual(await grid(), { capacity: 3, reserved: 0, checkedIn: 1, available: 2 });
});
