import test from 'ava';
import { assertProblem, fieldsOf } from '../gateway/gateway-support.js';
import type { TestApp } from '../helpers/test-app.js';
import { anotherPet, boardingApp, bookStay, booked, dayAfter, eventsOf, room, scopedClient, site, today, type Site, type Tokens } from './boarding-support.js';

/** /v1/boarding/bookings: nights, amount, capacity per night and species (race-free), cancel and no-show, lists, scoping, idempotency, events. */
const stayKeys = [
  'id',
  'kind',
  'status',
  'petId',
  'parentId',
  'locationId',
  'roomType',
  'roomId',
  'checkInOn',
  'checkOutOn',
  'nights',
  'amount',
  'currency',
  'invoiceId',
  'notes',
  'vaccinationOverride',
  'createdAt',
  'checkedInAt',
  'checkedOutAt',
].sort();

let t: TestApp;
let tokens: Tokens;

test.before(async () => {
  ({ t, tokens } = await boardingApp());
});
test.after.always(async () => {
  await t?.close();
});

test('POST books a stay: nights check-in inclusive, check-out exclusive; amount at the lowest rate of the type’s rooms for the species; booking.created', async (a) => {
  const s = await site(t);
  await room(t, tokens.staff.accessToken, s.location.id, { nightlyRate: 6_000 });
  await room(t, tokens.staff.accessToken, s.location.id, { nightlyRate: 4_500 });
  await room(t, tokens.staff.accessToken, s.location.id, { nightlyRate: 1_000, species: ['cat'] });
  const res = await bookStay(t, tokens.staff.accessToken, s, { checkInOn: dayAfter(2), checkOutOn: dayAfter(5), notes: 'Shy with other dogs' });
  a.is(res.status, 201, res.text);
  a.deepEqual(Object.keys(res.body).sort(), stayKeys);
  a.regex(res.body.id, /^bkg_[a-z0-9]{26}$/);
  a.like(res.body, {
    kind: 'boarding',
    status: 'reserved',
    petId: s.pet.id,
    parentId: s.parent.id,
    locationId: s.location.id,
    roomType: 'standard',
    roomId: null,
    checkInOn: dayAfter(2),
    checkOutOn: dayAfter(5),
    nights: 3,
    amount: 13_500,
    currency: 'USD',
    invoiceId: null,
    notes: 'Shy with other dogs',
    vaccinationOverride: null,
    checkedInAt: null,
    checkedOutAt: null,
  });
  a.deepEqual((await t.request('GET', `/v1/boarding/bookings/${res.body.id}`, { token: tokens.reader.accessToken })).body, res.body);

  const facts = await t.stores.get('live').db.selectFrom('bookings').selectAll().where('id', '=', res.body.id).executeTakeFirstOrThrow();
  a.like(facts, {
    kind: 'boarding',
    status: 'reserved',
    provider_id: null,
    starts_at: `${dayAfter(2)}T00:00:00.000Z`,
    ends_at: `${dayAfter(5)}T00:00:00.000Z`,
    amount: 13_500,
  });
  const events = await eventsOf(t, 'booking.created', 'bookingId', res.body.id);
  a.is(events.length, 1);
  a.deepEqual(events[0]!.data, {
    bookingId: res.body.id,
    petId: s.pet.id,
    service: 'boarding',
    amount: 13_500,
    currency: 'USD',
    kind: 'boarding',
    locationId: s.location.id,
    startsAt: `${dayAfter(2)}T00:00:00.000Z`,
  });
});

test('starts_at is the start of the local check-in day at the location', async (a) => {
  const s = await site(t, { timezone: 'America/New_York' });
  await room(t, tokens.staff.accessToken, s.location.id);
  const b = await booked(t, tokens.staff.accessToken, s, { checkInOn: dayAfter(1), checkOutOn: dayAfter(2) });
  const facts = await t.stores.get('live').db.selectFrom('bookings').selectAll().where('id', '=', b.id).executeTakeFirstOrThrow();
  a.is(facts.starts_at, `${dayAfter(1)}T05:00:00.000Z`);
  a.is(facts.ends_at, `${dayAfter(2)}T05:00:00.000Z`);
});

test('validation: checkOutOn not after checkInOn, more than 60 nights, a past check-in, bad dates: 400 on the field and nothing written', async (a) => {
  const s = await site(t);
  await room(t, tokens.staff.accessToken, s.location.id);
  for (const [body, field] of [
    [{ checkOutOn: today }, 'checkOutOn'],
    [{ checkInOn: dayAfter(3), checkOutOn: dayAfter(2) }, 'checkOutOn'],
    [{ checkOutOn: dayAfter(61) }, 'checkOutOn'],
    [{ checkInOn: dayAfter(-1) }, 'checkInOn'],
    [{ checkInOn: '2026-02-30' }, 'checkInOn'],
    [{ roomType: 'Not A Type' }, 'roomType'],
    [{ petId: 'nope' }, 'petId'],
    [{ extra: true }, 'extra'],
  ] as const) {
    const res = await bookStay(t, tokens.staff.accessToken, s, body);
    assertProblem(a, res, 400, 'validation_failed');
    a.deepEqual(fieldsOf(res), [field], JSON.stringify(body));
  }
  const sixty = await bookStay(t, tokens.staff.accessToken, s, { checkOutOn: dayAfter(60) });
  a.is(sixty.status, 201, '60 nights is the limit, allowed');
  assertProblem(a, await bookStay(t, tokens.staff.accessToken, s, { petId: 'pet_unknown' }), 400, 'resource_missing');
  const rows = await t.stores.get('live').db.selectFrom('bookings').select('id').where('location_id', '=', s.location.id).execute();
  a.is(rows.length, 1);
});

test('no_vacancy: full on a night (with the nights), a room type the location lacks, a species no room takes; capacity counts species and inactive rooms', async (a) => {
  const s = await site(t);
  const r = await room(t, tokens.staff.accessToken, s.location.id, { capacity: 1 });
  await booked(t, tokens.staff.accessToken, s, { checkInOn: dayAfter(2), checkOutOn: dayAfter(3) });
  const second = await anotherPet(t, s);
  const full = await bookStay(t, tokens.staff.accessToken, { ...s, pet: second }, { checkInOn: today, checkOutOn: dayAfter(4) });
  assertProblem(a, full, 409, 'no_vacancy');
  a.is(full.body.reason, 'full');
  a.deepEqual(full.body.nights, [dayAfter(2)]);
  a.is(
    (await bookStay(t, tokens.staff.accessToken, { ...s, pet: second }, { checkInOn: today, checkOutOn: dayAfter(2) })).status,
    201,
    'the nights before are free',
  );
  a.is(
    (await bookStay(t, tokens.staff.accessToken, { ...s, pet: second }, { checkInOn: dayAfter(3), checkOutOn: dayAfter(4) })).status,
    201,
    'the check-out day is free',
  );

  const noType = await bookStay(t, tokens.staff.accessToken, s, { roomType: 'suite' });
  assertProblem(a, noType, 409, 'no_vacancy');
  a.is(noType.body.reason, 'room_type_not_offered');
  const cat = await anotherPet(t, s, { species: 'cat' });
  const noCats = await bookStay(t, tokens.staff.accessToken, { ...s, pet: cat }, { checkInOn: dayAfter(10), checkOutOn: dayAfter(11) });
  assertProblem(a, noCats, 409, 'no_vacancy');
  a.is(noCats.body.reason, 'species_not_accepted');

  await t.request('PATCH', `/v1/boarding/rooms/${r.id}`, { token: tokens.staff.accessToken, body: { active: false } });
  const inactive = await bookStay(t, tokens.staff.accessToken, s, { checkInOn: dayAfter(10), checkOutOn: dayAfter(11) });
  assertProblem(a, inactive, 409, 'no_vacancy');
  a.is(inactive.body.reason, 'room_type_not_offered');
});

test('a pet cannot have two reserved or in-house stays over the same nights (409 conflict); back to back, or after a cancellation, is fine', async (a) => {
  const s = await site(t);
  await room(t, tokens.staff.accessToken, s.location.id, { capacity: 5 });
  const first = await booked(t, tokens.staff.accessToken, s, { checkInOn: dayAfter(2), checkOutOn: dayAfter(5) });
  const overlap = await bookStay(t, tokens.staff.accessToken, s, { checkInOn: dayAfter(4), checkOutOn: dayAfter(6) });
  assertProblem(a, overlap, 409, 'conflict');
  a.is(overlap.body.bookingId, first.id);
  a.is(
    (await bookStay(t, tokens.staff.accessToken, s, { checkInOn: dayAfter(5), checkOutOn: dayAfter(6) })).status,
    201,
    'arriving on the day the first stay leaves',
  );
  await t.request('POST', `/v1/boarding/bookings/${first.id}/cancel`, { token: tokens.staff.accessToken, body: {} });
  a.is((await bookStay(t, tokens.staff.accessToken, s, { checkInOn: dayAfter(4), checkOutOn: dayAfter(5) })).status, 201);
});

test('a room shared by dogs and cats: the dogs that fill it leave no place for a cat', async (a) => {
  const s = await site(t);
  await room(t, tokens.staff.accessToken, s.location.id, { capacity: 1, species: ['dog'] });
  await room(t, tokens.staff.accessToken, s.location.id, { capacity: 1, species: ['dog', 'cat'] });
  await booked(t, tokens.staff.accessToken, s, { checkOutOn: dayAfter(1) });
  await booked(t, tokens.staff.accessToken, { ...s, pet: await anotherPet(t, s) }, { checkOutOn: dayAfter(1) });
  const cat = await anotherPet(t, s, { species: 'cat' });
  const res = await bookStay(t, tokens.staff.accessToken, { ...s, pet: cat }, { checkOutOn: dayAfter(1) });
  assertProblem(a, res, 409, 'no_vacancy');
  a.is(res.body.reason, 'full');
});

test('race: 30 parallel bookings for the last 3 places of a night: exactly 3 × 201, the rest 409 no_vacancy', async (a) => {
  const s = await site(t);
  await room(t, tokens.staff.accessToken, s.location.id, { capacity: 3 });
  await room(t, tokens.staff.accessToken, s.location.id, { capacity: 2 });
  await booked(t, tokens.staff.accessToken, s, { checkInOn: dayAfter(5), checkOutOn: dayAfter(6) });
  await booked(t, tokens.staff.accessToken, { ...s, pet: await anotherPet(t, s) }, { checkInOn: dayAfter(4), checkOutOn: dayAfter(7) });
  const pets = await Promise.all(Array.from({ length: 30 }, () => anotherPet(t, s)));
  const results = await Promise.all(
    pets.map((pet) => bookStay(t, tokens.staff.accessToken, { ...s, pet }, { checkInOn: dayAfter(5), checkOutOn: dayAfter(6) })),
  );
  a.is(results.filter((r) => r.status === 201).length, 3);
  a.is(results.filter((r) => r.status === 409 && r.body.code === 'no_vacancy').length, 27);
  const occupancy = await t.request('GET', `/v1/boarding/occupancy?locationId=${s.location.id}&from=${dayAfter(5)}&to=${dayAfter(5)}`, {
    token: tokens.reader.accessToken,
  });
  a.like(occupancy.body.nights[0], { capacity: 5, reserved: 5, checkedIn: 0, available: 0 });
});

test('cancel and no-show free the nights and emit booking.cancelled; other moves are 409 invalid_state_transition', async (a) => {
  const s = await site(t);
  await room(t, tokens.staff.accessToken, s.location.id, { capacity: 1 });
  const b = await booked(t, tokens.staff.accessToken, s, { checkInOn: dayAfter(1), checkOutOn: dayAfter(3) });
  const early = await t.request('POST', `/v1/boarding/bookings/${b.id}/no-show`, { token: tokens.staff.accessToken, body: {} });
  assertProblem(a, early, 409, 'conflict');
  const cancelled = await t.request('POST', `/v1/boarding/bookings/${b.id}/cancel`, {
    token: tokens.staff.accessToken,
    body: { reason: 'Owner changed plans' },
  });
  a.is(cancelled.status, 200, cancelled.text);
  a.like(cancelled.body, { id: b.id, status: 'cancelled' });
  const events = await eventsOf(t, 'booking.cancelled', 'bookingId', b.id);
  a.deepEqual(
    events.map((e) => e.data),
    [
      {
        bookingId: b.id,
        petId: s.pet.id,
        service: 'boarding',
        reason: 'Owner changed plans',
        kind: 'boarding',
        status: 'cancelled',
        amount: b.amount,
        currency: 'USD',
        locationId: s.location.id,
      },
    ],
  );
  const again = await t.request('POST', `/v1/boarding/bookings/${b.id}/cancel`, { token: tokens.staff.accessToken, body: {} });
  assertProblem(a, again, 409, 'invalid_state_transition');
  a.is(again.body.currentStatus, 'cancelled');
  const checkIn = await t.request('POST', '/v1/boarding/check-in', { token: tokens.staff.accessToken, body: { bookingId: b.id } });
  assertProblem(a, checkIn, 409, 'invalid_state_transition');

  // The place is free again; a stay starting today can be marked no_show, and frees its place too.
  const today1 = await booked(t, tokens.staff.accessToken, s, { checkInOn: today, checkOutOn: dayAfter(3) });
  const noShow = await t.request('POST', `/v1/boarding/bookings/${today1.id}/no-show`, { token: tokens.staff.accessToken, body: {} });
  a.is(noShow.status, 200, noShow.text);
  a.is(noShow.body.status, 'no_show');
  a.like((await eventsOf(t, 'booking.cancelled', 'bookingId', today1.id))[0]!.data, { status: 'no_show', reason: null });
  a.is((await bookStay(t, tokens.staff.accessToken, s, { checkInOn: today, checkOutOn: dayAfter(3) })).status, 201);
  assertProblem(
    a,
    await t.request('POST', `/v1/boarding/bookings/${today1.id}/cancel`, { token: tokens.staff.accessToken, body: {} }),
    409,
    'invalid_state_transition',
  );
});

test('GET lists newest first with filters locationId, petId, status, from, to', async (a) => {
  const s = await site(t);
  await room(t, tokens.staff.accessToken, s.location.id, { capacity: 5 });
  const dog2 = await anotherPet(t, s);
  const b1 = await booked(t, tokens.staff.accessToken, s, { checkInOn: dayAfter(1), checkOutOn: dayAfter(3) });
  const b2 = await booked(t, tokens.staff.accessToken, { ...s, pet: dog2 }, { checkInOn: dayAfter(5), checkOutOn: dayAfter(8) });
  const b3 = await booked(t, tokens.staff.accessToken, s, { checkInOn: dayAfter(10), checkOutOn: dayAfter(12) });
  await t.request('POST', `/v1/boarding/bookings/${b3.id}/cancel`, { token: tokens.staff.accessToken, body: {} });
  const ids = async (query: string) =>
    (
      (await t.request('GET', `/v1/boarding/bookings?locationId=${s.location.id}${query}`, { token: tokens.reader.accessToken })).body.data as Array<{
        id: string;
      }>
    ).map((r) => r.id);
  a.deepEqual(await ids(''), [b3.id, b2.id, b1.id]);
  a.deepEqual(await ids(`&petId=${dog2.id}`), [b2.id]);
  a.deepEqual(await ids('&status=cancelled'), [b3.id]);
  a.deepEqual(await ids('&status=reserved'), [b2.id, b1.id]);
  a.deepEqual(await ids(`&from=${dayAfter(3)}&to=${dayAfter(5)}`), [b2.id], 'b1 leaves on day 3: no night in range');
  a.deepEqual(await ids(`&from=${dayAfter(2)}&to=${dayAfter(2)}`), [b1.id]);
  a.deepEqual(await ids(`&to=${dayAfter(4)}`), [b1.id]);
  const page = await t.request('GET', `/v1/boarding/bookings?locationId=${s.location.id}&limit=2`, { token: tokens.reader.accessToken });
  a.true(page.body.hasMore);
  const next = await t.request('GET', `/v1/boarding/bookings?locationId=${s.location.id}&limit=2&cursor=${page.body.nextCursor}`, {
    token: tokens.reader.accessToken,
  });
  a.deepEqual(
    next.body.data.map((r: { id: string }) => r.id),
    [b1.id],
  );
  assertProblem(a, await t.request('GET', '/v1/boarding/bookings?status=gone', { token: tokens.reader.accessToken }), 400, 'validation_failed');
});

test('401, 403 (read-only writes, no scope), and another location’s client gets 404 on every route', async (a) => {
  const s = await site(t);
  await room(t, tokens.staff.accessToken, s.location.id);
  const b = await booked(t, tokens.staff.accessToken, s, { checkInOn: dayAfter(1), checkOutOn: dayAfter(2) });
  assertProblem(a, await t.request('GET', `/v1/boarding/bookings/${b.id}`, {}), 401, 'unauthorized');
  assertProblem(a, await bookStay(t, tokens.reader.accessToken, s), 403, 'insufficient_scope');
  const petsOnly = await t.client({ role: 'staff', scopes: ['pets'] });
  assertProblem(a, await t.request('GET', '/v1/boarding/bookings', { token: petsOnly.accessToken }), 403, 'insufficient_scope');

  const elsewhere = await site(t);
  const scoped = await scopedClient(t, [elsewhere.location.id], ['bookings', 'pets']);
  assertProblem(a, await t.request('GET', `/v1/boarding/bookings/${b.id}`, { token: scoped.accessToken }), 404, 'not_found');
  assertProblem(a, await t.request('POST', `/v1/boarding/bookings/${b.id}/cancel`, { token: scoped.accessToken, body: {} }), 404, 'not_found');
  assertProblem(a, await t.request('POST', `/v1/boarding/bookings/${b.id}/no-show`, { token: scoped.accessToken, body: {} }), 404, 'not_found');
  assertProblem(a, await t.request('POST', '/v1/boarding/check-in', { token: scoped.accessToken, body: { bookingId: b.id } }), 404, 'not_found');
  assertProblem(a, await t.request('POST', '/v1/boarding/check-out', { token: scoped.accessToken, body: { bookingId: b.id } }), 404, 'not_found');
  const list = await t.request('GET', '/v1/boarding/bookings', { token: scoped.accessToken });
  a.deepEqual(list.body.data, []);
  assertProblem(a, await bookStay(t, scoped.accessToken, s), 400, 'resource_missing');
});

test('Idempotency-Key: a replayed booking answers the same 201 and books once (one event); the same key with another body is 422', async (a) => {
  const s = await site(t);
  await room(t, tokens.staff.accessToken, s.location.id, { capacity: 1 });
  const first = await bookStay(t, tokens.staff.accessToken, s, {}, 'stay-1');
  const again = await bookStay(t, tokens.staff.accessToken, s, {}, 'stay-1');
  a.is(first.status, 201);
  a.is(again.status, 201);
  a.is(again.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(again.body, first.body);
  a.is((await eventsOf(t, 'booking.created', 'bookingId', first.body.id)).length, 1);
  const other = await bookStay(t, tokens.staff.accessToken, s, { checkOutOn: dayAfter(2) }, 'stay-1');
  assertProblem(a, other, 422, 'idempotency_key_mismatch');
  const cancel1 = await t.request('POST', `/v1/boarding/bookings/${first.body.id}/cancel`, {
    token: tokens.staff.accessToken,
    body: {},
    idempotencyKey: 'cancel-1',
  });
  const cancel2 = await t.request('POST', `/v1/boarding/bookings/${first.body.id}/cancel`, {
    token: tokens.staff.accessToken,
    body: {},
    idempotencyKey: 'cancel-1',
  });
  a.is(cancel2.status, 200);
  a.deepEqual(cancel2.body, cancel1.body);
  a.is((await eventsOf(t, 'booking.cancelled', 'bookingId', first.body.id)).length, 1);
});
