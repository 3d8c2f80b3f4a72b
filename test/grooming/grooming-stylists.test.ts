import test from 'ava';
import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import { TestClock, type TokenSet, useTestApp } from '../helpers/test-app.js';
import { book, putSchedule, weekdays } from '../appointments/scheduling-support.js';
import { atTime, complete, createGroomer, createPackage, groom, movableClockConfig, packageBody, salon, type Salon } from './grooming-support.js';

/**
 * GET /v1/grooming/availability (the appointments slot engine, every busy time, reasons per day) and
 * stylist assignment (on create without a stylist, and POST /v1/grooming/stylists/assign).
 * The clock stands on Monday 2026-11-23 08:00 UTC (London is on GMT); notice is 60 minutes.
 * A medium groom takes 90 minutes: a 09:00–17:00 day holds 09:00, 10:30, 12:00, 13:30 and 15:00.
 */
const now = Date.parse('2026-11-23T08:00:00.000Z');

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

const availability = (s: Pick<Salon, 'location' | 'pkg'>, from: string, to: string, size = 'medium', token = reader.accessToken) =>
  t.request('GET', `/v1/grooming/availability?locationId=${s.location.id}&packageId=${s.pkg.id}&size=${size}&from=${from}&to=${to}`, { token });
const day = (res: { body: { days: Array<{ date: string }> } }, date: string) => res.body.days.find((d) => d.date === date);
const startsOn = (res: { body: { data: Array<{ startsAt: string }> } }, date: string) =>
  res.body.data.filter((s) => s.startsAt.startsWith(date)).map((s) => s.startsAt.slice(11, 16));

test('availability: slots of the size’s duration per stylist, and per day the count or why there is none', async (a) => {
  const s = await salon(t);
  const res = await availability(s, '2026-11-23', '2026-11-29');
  a.is(res.status, 200, res.text);
  a.deepEqual(Object.keys(res.body), ['data', 'days']);
  a.deepEqual(res.body.data[0], { stylistId: s.stylist.id, startsAt: '2026-11-23T09:00:00.000Z', endsAt: '2026-11-23T10:30:00.000Z' });
  a.deepEqual(startsOn(res, '2026-11-24'), ['09:00', '10:30', '12:00', '13:30', '15:00']);
  a.deepEqual(
    res.body.days.map((d: { date: string }) => d.date),
    ['2026-11-23', '2026-11-24', '2026-11-25', '2026-11-26', '2026-11-27', '2026-11-28', '2026-11-29'],
  );
  a.deepEqual(day(res, '2026-11-24'), { date: '2026-11-24', slots: 5, reasons: [] });
  a.deepEqual(day(res, '2026-11-28'), { date: '2026-11-28', slots: 0, reasons: ['no_stylist_working'] });
  // A small groom (60 minutes) steps by an hour: 8 slots a day.
  a.is(startsOn(await availability(s, '2026-11-24', '2026-11-24', 'small'), '2026-11-24').length, 8);
});

test('availability subtracts grooms and vet appointments of the stylist (one busy time); a full day is fully_booked, a past one outside_booking_window', async (a) => {
  const s = await salon(t);
  const both = await createGroomer(t, [s.location.id], []);
  a.is(
    (await groom(t, { petId: s.pet.id, packageId: s.pkg.id, locationId: s.location.id, startsAt: '2026-11-24T09:00:00Z', stylistId: s.stylist.id })).status,
    201,
  );
  a.is((await book(t, { petId: s.pet.id, providerId: both.id, type: 'vet_consultation', startsAt: '2026-11-24T12:00:00Z' })).status, 201);
  const res = await availability(s, '2026-11-24', '2026-11-24');
  const of = (id: string) => res.body.data.filter((x: { stylistId: string }) => x.stylistId === id).map((x: { startsAt: string }) => x.startsAt.slice(11, 16));
  a.deepEqual(of(s.stylist.id), ['10:30', '12:00', '13:30', '15:00']);
  // 12:00–12:40 (the consultation and its buffer) is taken: the next groom starts at 12:40.
  a.deepEqual(of(both.id), ['09:00', '10:30', '12:40', '14:10']);
  for (const start of ['09:00', '10:30', '12:00', '13:30', '15:00']) {
    const pet = await createPet(t, s.parent.id, s.location.id, { size: 'medium' });
    a.is(
      (await groom(t, { petId: pet.id, packageId: s.pkg.id, locationId: s.location.id, startsAt: `2026-11-25T${start}:00Z`, stylistId: s.stylist.id })).status,
      201,
    );
    const pet2 = await createPet(t, s.parent.id, s.location.id, { size: 'medium' });
    a.is(
      (await groom(t, { petId: pet2.id, packageId: s.pkg.id, locationId: s.location.id, startsAt: `2026-11-25T${start}:00Z`, stylistId: both.id })).status,
      201,
    );
  }
  const full = await availability(s, '2026-11-25', '2026-11-25');
  a.deepEqual(full.body, { data: [], days: [{ date: '2026-11-25', slots: 0, reasons: ['fully_booked'] }] });
  const past = await availability(s, '2026-11-20', '2026-11-22');
  a.deepEqual(
    past.body.days.map((d: { reasons: string[] }) => d.reasons),
    [['outside_booking_window'], ['outside_booking_window'], ['outside_booking_window']],
  );
});

test('availability: stylists who do not offer the package, lack hours there or are off are left out', async (a) => {
  const s = await salon(t);
  await createGroomer(t, [s.location.id], ['vet_consultation']);
  await createGroomer(t, [s.location.id], ['grooming'], false);
  const away = await createGroomer(t, [s.location.id], ['grooming'], false);
  await putSchedule(t, away.id, s.location.id, weekdays([1, 2, 3, 4, 5], '09:00', '17:00'), [{ from: '2026-11-24', to: '2026-11-24', reason: 'holiday' }]);
  const res = await availability(s, '2026-11-24', '2026-11-25');
  a.deepEqual(
    [...new Set(res.body.data.filter((x: { startsAt: string }) => x.startsAt.startsWith('2026-11-24')).map((x: { stylistId: string }) => x.stylistId))],
    [s.stylist.id],
  );
  a.true(
    res.body.data.some((x: { stylistId: string }) => x.stylistId === away.id),
    'back on Wednesday',
  );
});

test('availability validation, auth and scoping', async (a) => {
  const s = await salon(t);
  const tooLong = await availability(s, '2026-11-23', '2026-12-31');
  a.is(tooLong.status, 400);
  a.is(tooLong.body.errors[0].field, 'to');
  const noSize = await t.request('GET', `/v1/grooming/availability?locationId=${s.location.id}&packageId=${s.pkg.id}&from=2026-11-23&to=2026-11-24`, {
    token: reader.accessToken,
  });
  a.is(noSize.status, 400);
  a.is(noSize.body.errors[0].field, 'size');
  const badPackage = await t.request(
    'GET',
    `/v1/grooming/availability?locationId=${s.location.id}&packageId=pkg_nope&size=small&from=2026-11-23&to=2026-11-24`,
    { token: reader.accessToken },
  );
  a.is(badPackage.status, 400);
  a.is(badPackage.body.errors[0].field, 'packageId');
  a.is(
    (await t.request('GET', `/v1/grooming/availability?locationId=${s.location.id}&packageId=${s.pkg.id}&size=small&from=2026-11-23&to=2026-11-24`)).status,
    401,
  );
  a.is((await availability(s, '2026-11-23', '2026-11-24', 'small', petsOnly.accessToken)).status, 403);
  const other = await createLocation(t);
  const outsider = await t.client({ name: 'outsider', role: 'staff', scopes: ['bookings.read'], locationIds: [other.id] });
  a.is((await availability(s, '2026-11-23', '2026-11-24', 'small', outsider.accessToken)).status, 404);
});

test('without a stylist the groom goes to the pet’s last stylist when free, else the least booked free one that day', async (a) => {
  const s = await salon(t);
  const b = await createGroomer(t, [s.location.id]);
  const body = (petId: string, startsAt: string, extra: Record<string, unknown> = {}) => ({
    petId,
    packageId: s.pkg.id,
    locationId: s.location.id,
    startsAt,
    ...extra,
  });
  // The pet was groomed by B before: B again.
  a.is((await groom(t, body(s.pet.id, '2026-11-24T09:00:00Z', { stylistId: b.id }))).body.stylistId, b.id);
  const again = await groom(t, body(s.pet.id, '2026-11-25T09:00:00Z'), desk.accessToken);
  a.is(again.status, 201, again.text);
  a.is(again.body.stylistId, b.id);
  // A new pet at the same time: B is busy, so the other stylist.
  const newcomer = await createPet(t, s.parent.id, s.location.id, { size: 'medium' });
  a.is((await groom(t, body(newcomer.id, '2026-11-25T09:00:00Z'))).body.stylistId, s.stylist.id);
  // Least booked that day: the first stylist has a groom on Thursday, B none.
  const other = await createPet(t, s.parent.id, s.location.id, { size: 'medium' });
  a.is((await groom(t, body(other.id, '2026-11-26T13:30:00Z', { stylistId: s.stylist.id }))).status, 201);
  const fresh = await createPet(t, s.parent.id, s.location.id, { size: 'medium' });
  a.is((await groom(t, body(fresh.id, '2026-11-26T09:00:00Z'))).body.stylistId, b.id);
  // Both busy: 409 no_stylist_available, nothing written.
  const third = await createPet(t, s.parent.id, s.location.id, { size: 'medium' });
  const nobody = await groom(t, body(third.id, '2026-11-25T09:30:00Z'));
  a.is(nobody.status, 409);
  a.is(nobody.body.code, 'no_stylist_available');
});

test('POST /v1/grooming/stylists/assign: a named stylist is checked (409 stylist_unavailable); without one the rule picks; nobody free is 409 no_stylist_available', async (a) => {
  const s = await salon(t);
  const b = await createGroomer(t, [s.location.id]);
  const elsewhere = await createLocation(t);
  const foreign = await createGroomer(t, [elsewhere.id]);
  const g = await groom(t, { petId: s.pet.id, packageId: s.pkg.id, locationId: s.location.id, startsAt: '2026-11-27T09:00:00Z', stylistId: s.stylist.id });
  const moved = await t.request('POST', '/v1/grooming/stylists/assign', { token: desk.accessToken, body: { bookingId: g.body.id, stylistId: b.id } });
  a.is(moved.status, 200, moved.text);
  a.is(moved.body.stylistId, b.id);
  a.is(moved.body.id, g.body.id);
  // The stylist of the groom itself is free for it (its own time does not count).
  const same = await t.request('POST', '/v1/grooming/stylists/assign', { token: desk.accessToken, body: { bookingId: g.body.id, stylistId: b.id } });
  a.is(same.status, 200);
  // The first stylist takes another groom at that time: naming them is 409 stylist_unavailable.
  const pet2 = await createPet(t, s.parent.id, s.location.id, { size: 'medium' });
  a.is(
    (await groom(t, { petId: pet2.id, packageId: s.pkg.id, locationId: s.location.id, startsAt: '2026-11-27T09:30:00Z', stylistId: s.stylist.id })).status,
    201,
  );
  const busy = await t.request('POST', '/v1/grooming/stylists/assign', { token: desk.accessToken, body: { bookingId: g.body.id, stylistId: s.stylist.id } });
  a.is(busy.status, 409);
  a.is(busy.body.code, 'stylist_unavailable');
  const wrongPlace = await t.request('POST', '/v1/grooming/stylists/assign', { token: admin, body: { bookingId: g.body.id, stylistId: foreign.id } });
  a.is(wrongPlace.status, 409);
  a.is(wrongPlace.body.code, 'stylist_unavailable');
  // Without a stylist: B (the pet's last stylist is B now, and free).
  const auto = await t.request('POST', '/v1/grooming/stylists/assign', { token: desk.accessToken, body: { bookingId: g.body.id } });
  a.is(auto.status, 200);
  a.is(auto.body.stylistId, b.id);
  // pet2's groom cannot move: B holds 09:00–10:30 with the first groom.
  const g2 = (await t.request('GET', `/v1/grooming/appointments?petId=${pet2.id}`, { token: admin })).body.data[0];
  const none = await t.request('POST', '/v1/grooming/stylists/assign', { token: desk.accessToken, body: { bookingId: g2.id, stylistId: b.id } });
  a.is(none.body.code, 'stylist_unavailable');
  const lone = await createLocation(t);
  const loneParent = await createPetParent(t, lone.id);
  const lonePet = await createPet(t, loneParent.id, lone.id, { size: 'small' });
  const loneStylist = await createGroomer(t, [lone.id]);
  const lonePkg = await createPackage(t, packageBody({ locationId: lone.id }));
  const lg = await groom(t, { petId: lonePet.id, packageId: lonePkg.id, locationId: lone.id, startsAt: '2026-11-27T09:00:00Z', stylistId: loneStylist.id });
  await t.request('PATCH', `/v1/providers/${loneStylist.id}`, { token: admin, body: { status: 'inactive' } });
  const noStylist = await t.request('POST', '/v1/grooming/stylists/assign', { token: desk.accessToken, body: { bookingId: lg.body.id } });
  a.is(noStylist.status, 409);
  a.is(noStylist.body.code, 'no_stylist_available');
});

test.serial('assign: validation, auth, scoping, state and idempotent replay', async (a) => {
  const s = await salon(t);
  const b = await createGroomer(t, [s.location.id]);
  const g = await groom(t, { petId: s.pet.id, packageId: s.pkg.id, locationId: s.location.id, startsAt: '2026-11-30T09:00:00Z', stylistId: s.stylist.id });
  const bad = await t.request('POST', '/v1/grooming/stylists/assign', { token: desk.accessToken, body: { bookingId: 'nope' } });
  a.is(bad.status, 400);
  a.is(bad.body.errors[0].field, 'bookingId');
  const unknownStylist = await t.request('POST', '/v1/grooming/stylists/assign', {
    token: desk.accessToken,
    body: { bookingId: g.body.id, stylistId: 'prv_none' },
  });
  a.is(unknownStylist.status, 400);
  a.is(unknownStylist.body.errors[0].field, 'stylistId');
  a.is((await t.request('POST', '/v1/grooming/stylists/assign', { body: { bookingId: g.body.id } })).status, 401);
  a.is((await t.request('POST', '/v1/grooming/stylists/assign', { token: reader.accessToken, body: { bookingId: g.body.id } })).status, 403);
  const other = await createLocation(t);
  const outsider = await t.client({ name: 'assign outsider', role: 'staff', scopes: ['bookings'], locationIds: [other.id] });
  a.is((await t.request('POST', '/v1/grooming/stylists/assign', { token: outsider.accessToken, body: { bookingId: g.body.id } })).status, 404);
  const first = await t.request('POST', '/v1/grooming/stylists/assign', {
    token: desk.accessToken,
    body: { bookingId: g.body.id, stylistId: b.id },
    idempotencyKey: 'assign-1',
  });
  const replay = await t.request('POST', '/v1/grooming/stylists/assign', {
    token: desk.accessToken,
    body: { bookingId: g.body.id, stylistId: b.id },
    idempotencyKey: 'assign-1',
  });
  a.is(first.status, 200);
  a.is(replay.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(replay.body, first.body);
  a.is((await atTime(t, g.body.startsAt, () => complete(t, g.body.id))).status, 200);
  const done = await t.request('POST', '/v1/grooming/stylists/assign', { token: desk.accessToken, body: { bookingId: g.body.id, stylistId: s.stylist.id } });
  a.is(done.status, 409);
  a.is(done.body.code, 'invalid_state_transition');
});
