import test from 'ava';
import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import { TestClock, type TokenSet, useTestApp } from '../helpers/test-app.js';
import { book, eventsWith } from '../appointments/scheduling-support.js';
import { atTime, complete, countRows, createGroomer, groom, groomKeys, movableClockConfig, moveTo, salon } from './grooming-support.js';

/**
 * POST/GET/PATCH /v1/grooming/appointments: the object, size and package rules, the one busy time
 * shared with vet appointments, the state machine, booking events, billing by invoice at completion,
 * idempotency, scoping and the double-booking race.
 * The clock stands on Monday 2026-11-23 08:00 UTC (London is on GMT); notice is 60 minutes.
 */
const now = Date.parse('2026-11-23T08:00:00.000Z');

let admin: string;
let desk: TokenSet; // staff, bookings + pets
let reader: TokenSet; // staff, bookings.read
let petsOnly: TokenSet; // staff, pets

const t = useTestApp(test, { clock: new TestClock(now), config: movableClockConfig });
test.before(async () => {
  admin = await t.adminToken();
  [desk, reader, petsOnly] = await Promise.all([
    t.client({ name: 'desk', role: 'staff', scopes: ['bookings', 'pets'] }),
    t.client({ name: 'reader', role: 'staff', scopes: ['bookings.read'] }),
    t.client({ name: 'pets only', role: 'staff', scopes: ['pets'] }),
  ]);
});

const bookingsOf = async (petId: string) => (await t.stores.get('live').db.selectFrom('bookings').select('id').where('pet_id', '=', petId).execute()).length;

test('POST /v1/grooming/appointments books a groom with every documented field and emits booking.created', async (a) => {
  const s = await salon(t);
  const res = await groom(
    t,
    { petId: s.pet.id, packageId: s.pkg.id, locationId: s.location.id, startsAt: '2026-11-24T10:00:00+01:00', stylistId: s.stylist.id, notes: 'Matted coat' },
    desk.accessToken,
  );
  a.is(res.status, 201, res.text);
  a.deepEqual(Object.keys(res.body), groomKeys);
  a.regex(res.body.id, /^bkg_[a-z0-9]{26}$/);
  a.deepEqual(res.body, {
    id: res.body.id,
    kind: 'grooming',
    status: 'confirmed',
    petId: s.pet.id,
    parentId: s.parent.id,
    packageId: s.pkg.id,
    stylistId: s.stylist.id,
    locationId: s.location.id,
    startsAt: '2026-11-24T09:00:00.000Z',
    endsAt: '2026-11-24T10:30:00.000Z',
    size: 'medium',
    durationMinutes: 90,
    amount: 5_500,
    currency: 'USD',
    payWith: 'invoice',
    membershipId: null,
    invoiceId: null,
    notes: 'Matted coat',
    createdAt: new Date(now).toISOString(),
    updatedAt: new Date(now).toISOString(),
  });
  const got = await t.request('GET', `/v1/grooming/appointments/${res.body.id}`, { token: reader.accessToken });
  a.is(got.status, 200);
  a.deepEqual(got.body, res.body);
  const events = await eventsWith(t, 'booking.created', 'bookingId', res.body.id);
  a.is(events.length, 1);
  a.deepEqual(events[0]!.data, {
    bookingId: res.body.id,
    petId: s.pet.id,
    service: 'grooming',
    amount: 5_500,
    currency: 'USD',
    kind: 'grooming',
    locationId: s.location.id,
    startsAt: '2026-11-24T09:00:00.000Z',
  });
  // The shared facts row carries the stylist as provider.
  const row = await t.stores.get('live').db.selectFrom('bookings').selectAll().where('id', '=', res.body.id).executeTakeFirstOrThrow();
  a.is(row.provider_id, s.stylist.id);
  a.is(row.kind, 'grooming');
});

test('size comes from the body before the pet; a pet without a size needs one in the body (400 on size, nothing written)', async (a) => {
  const s = await salon(t);
  const sized = await groom(t, {
    petId: s.pet.id,
    packageId: s.pkg.id,
    locationId: s.location.id,
    startsAt: '2026-11-24T13:00:00Z',
    stylistId: s.stylist.id,
    size: 'xlarge',
  });
  a.is(sized.status, 201, sized.text);
  a.is(sized.body.size, 'xlarge');
  a.is(sized.body.durationMinutes, 150);
  a.is(sized.body.amount, 9_000);
  a.is(sized.body.endsAt, '2026-11-24T15:30:00.000Z');
  const unsized = await createPet(t, s.parent.id, s.location.id);
  const res = await groom(t, { petId: unsized.id, packageId: s.pkg.id, locationId: s.location.id, startsAt: '2026-11-25T09:00:00Z', stylistId: s.stylist.id });
  a.is(res.status, 400);
  a.deepEqual(
    res.body.errors.map((e: { field: string }) => e.field),
    ['size'],
  );
  a.is(await bookingsOf(unsized.id), 0);
});

test('validation: 400 naming the field, nothing written', async (a) => {
  const s = await salon(t);
  const base = { petId: s.pet.id, packageId: s.pkg.id, locationId: s.location.id, startsAt: '2026-11-24T09:00:00Z', stylistId: s.stylist.id };
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ ...base, petId: undefined }, 'petId'],
    [{ ...base, startsAt: 'tomorrow at nine' }, 'startsAt'],
    [{ ...base, startsAt: '2026-11-20T09:00:00Z' }, 'startsAt'],
    [{ ...base, size: 'huge' }, 'size'],
    [{ ...base, payWith: 'cash' }, 'payWith'],
    [{ ...base, packageId: 'pkg_missing' }, 'packageId'],
    [{ ...base, petId: 'pet_missing' }, 'petId'],
    [{ ...base, stylistId: 'prv_missing' }, 'stylistId'],
    [{ ...base, colour: 'blue' }, 'colour'],
  ];
  for (const [body, field] of cases) {
    const res = await groom(t, body, desk.accessToken);
    a.is(res.status, 400, `${field}: ${res.text}`);
    a.true(
      res.body.errors.some((e: { field: string }) => e.field === field),
      `${field}: ${res.text}`,
    );
  }
  // A vet is not a stylist; a groomer of another location does not work here.
  const vet = await t.request('POST', '/v1/providers', { token: admin, body: { name: 'Dr. Vet', kind: 'vet', locationIds: [s.location.id] } });
  const notGroomer = await groom(t, { ...base, stylistId: vet.body.id });
  a.is(notGroomer.status, 400);
  a.is(notGroomer.body.errors[0].field, 'stylistId');
  a.regex(notGroomer.body.errors[0].message, /not a groomer/);
  // An inactive package takes no grooms.
  await t.request('PATCH', `/v1/grooming/packages/${s.pkg.id}`, { token: admin, body: { active: false } });
  const inactive = await groom(t, base);
  a.is(inactive.status, 400);
  a.is(inactive.body.errors[0].field, 'packageId');
  a.is(await bookingsOf(s.pet.id), 0);
  a.is(await countRows(t, 'grooming_appointments'), await countRows(t, 'bookings'));
});

test('401 without a token, 403 without the bookings scope or with bookings.read on a write', async (a) => {
  const s = await salon(t);
  const body = { petId: s.pet.id, packageId: s.pkg.id, locationId: s.location.id, startsAt: '2026-11-24T09:00:00Z' };
  a.is((await t.request('POST', '/v1/grooming/appointments', { body })).status, 401);
  a.is((await groom(t, body, petsOnly.accessToken)).status, 403);
  a.is((await groom(t, body, reader.accessToken)).status, 403);
  a.is((await t.request('GET', '/v1/grooming/appointments', { token: petsOnly.accessToken })).status, 403);
  a.is((await t.request('GET', '/v1/grooming/appointments')).status, 401);
});

test('another location’s client gets 404 on GET and PATCH and does not see the groom in lists', async (a) => {
  const s = await salon(t);
  const other = await createLocation(t);
  const outsider = await t.client({ name: 'elsewhere', role: 'staff', scopes: ['bookings'], locationIds: [other.id] });
  const insider = await t.client({ name: 'here', role: 'staff', scopes: ['bookings'], locationIds: [s.location.id] });
  const res = await groom(t, { petId: s.pet.id, packageId: s.pkg.id, locationId: s.location.id, startsAt: '2026-11-24T11:00:00Z' }, insider.accessToken);
  a.is(res.status, 201, res.text);
  a.is((await t.request('GET', `/v1/grooming/appointments/${res.body.id}`, { token: outsider.accessToken })).status, 404);
  a.is((await moveTo(t, res.body.id, 'cancelled', outsider.accessToken)).status, 404);
  const list = await t.request('GET', '/v1/grooming/appointments', { token: outsider.accessToken });
  a.is(list.status, 200);
  a.false(list.body.data.some((g: { id: string }) => g.id === res.body.id));
  // Booking at a location out of scope is a missing reference.
  const there = await groom(t, { petId: s.pet.id, packageId: s.pkg.id, locationId: s.location.id, startsAt: '2026-11-24T14:00:00Z' }, outsider.accessToken);
  a.is(there.status, 400);
  a.is((await t.request('GET', `/v1/grooming/appointments/${res.body.id}`, { token: insider.accessToken })).status, 200);
});

test('Idempotency-Key: a replay answers the first groom without booking twice', async (a) => {
  const s = await salon(t);
  const body = { petId: s.pet.id, packageId: s.pkg.id, locationId: s.location.id, startsAt: '2026-11-25T09:00:00Z', stylistId: s.stylist.id };
  const first = await groom(t, body, desk.accessToken, 'groom-once-1');
  a.is(first.status, 201, first.text);
  const again = await groom(t, body, desk.accessToken, 'groom-once-1');
  a.is(again.status, 201);
  a.is(again.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(again.body, first.body);
  const rows = await t.stores.get('live').db.selectFrom('bookings').select('id').where('pet_id', '=', s.pet.id).execute();
  a.is(rows.length, 1);
  const move = await t.request('PATCH', `/v1/grooming/appointments/${first.body.id}`, {
    token: desk.accessToken,
    body: { status: 'checked_in' },
    idempotencyKey: 'groom-move-1',
  });
  const moveAgain = await t.request('PATCH', `/v1/grooming/appointments/${first.body.id}`, {
    token: desk.accessToken,
    body: { status: 'checked_in' },
    idempotencyKey: 'groom-move-1',
  });
  a.is(move.status, 200);
  a.is(moveAgain.status, 200);
  a.is(moveAgain.headers.get('idempotent-replayed'), 'true');
});

test('a stylist is never double-booked: an overlapping groom is 409 slot_unavailable, so is time outside hours or within the notice', async (a) => {
  const s = await salon(t);
  const base = { petId: s.pet.id, packageId: s.pkg.id, locationId: s.location.id, stylistId: s.stylist.id };
  a.is((await groom(t, { ...base, startsAt: '2026-11-24T09:00:00Z' })).status, 201);
  const overlap = await groom(t, { ...base, startsAt: '2026-11-24T10:00:00Z' });
  a.is(overlap.status, 409);
  a.is(overlap.body.code, 'slot_unavailable');
  a.is((await groom(t, { ...base, startsAt: '2026-11-24T10:30:00Z' })).status, 201, 'back to back is fine');
  const late = await groom(t, { ...base, startsAt: '2026-11-24T16:00:00Z' });
  a.is(late.status, 409);
  a.regex(late.body.detail, /working hours/);
  const weekend = await groom(t, { ...base, startsAt: '2026-11-28T10:00:00Z' });
  a.is(weekend.body.code, 'slot_unavailable');
  const soon = await groom(t, { ...base, startsAt: '2026-11-23T08:30:00Z' });
  a.is(soon.body.code, 'slot_unavailable');
});

test('20 parallel bookings of one stylist and slot: exactly one wins', async (a) => {
  const s = await salon(t);
  const pets = await Promise.all(Array.from({ length: 20 }, () => createPet(t, s.parent.id, s.location.id, { size: 'small' })));
  const results = await Promise.all(
    pets.map((pet) =>
      groom(t, { petId: pet.id, packageId: s.pkg.id, locationId: s.location.id, startsAt: '2026-11-26T09:00:00Z', stylistId: s.stylist.id }, desk.accessToken),
    ),
  );
  a.deepEqual(results.map((r) => r.status).sort(), [201, ...Array<number>(19).fill(409)]);
  for (const r of results.filter((x) => x.status === 409)) a.is(r.body.code, 'slot_unavailable');
  const held = await t.stores
    .get('live')
    .db.selectFrom('bookings')
    .select('id')
    .where('provider_id', '=', s.stylist.id)
    .where('starts_at', '=', '2026-11-26T09:00:00.000Z')
    .execute();
  a.is(held.length, 1);
});

test('one busy time across modules: a vet appointment blocks a groom of the same provider and a groom blocks an appointment', async (a) => {
  const s = await salon(t);
  // A groomer who also sees appointment types (services [] = everything).
  const both = await createGroomer(t, [s.location.id], []);
  const apt = await book(t, { petId: s.pet.id, providerId: both.id, type: 'vet_consultation', startsAt: '2026-11-24T10:00:00Z' });
  a.is(apt.status, 201, apt.text);
  const blocked = await groom(t, { petId: s.pet.id, packageId: s.pkg.id, locationId: s.location.id, startsAt: '2026-11-24T09:00:00Z', stylistId: both.id });
  a.is(blocked.status, 409, blocked.text);
  a.is(blocked.body.code, 'slot_unavailable');

  // Availability (cached busy time) sees a new groom at once: the trigger bumps the shared counter.
  const slotsBefore = await t.request(
    'GET',
    `/v1/appointments/availability?locationId=${s.location.id}&type=vet_consultation&providerId=${both.id}&from=2026-11-24&to=2026-11-24`,
    { token: admin },
  );
  a.is(slotsBefore.status, 200, slotsBefore.text);
  const inGroom = (x: { startsAt: string; endsAt: string }) => x.startsAt < '2026-11-24T14:30:00.000Z' && x.endsAt > '2026-11-24T13:00:00.000Z';
  a.true(slotsBefore.body.data.some(inGroom));
  const g = await groom(t, { petId: s.pet.id, packageId: s.pkg.id, locationId: s.location.id, startsAt: '2026-11-24T13:00:00Z', stylistId: both.id });
  a.is(g.status, 201, g.text);
  const slotsAfter = await t.request(
    'GET',
    `/v1/appointments/availability?locationId=${s.location.id}&type=vet_consultation&providerId=${both.id}&from=2026-11-24&to=2026-11-24`,
    { token: admin },
  );
  a.false(slotsAfter.body.data.some(inGroom));
  a.true(slotsAfter.body.data.length > 0);
  const refused = await book(t, { petId: s.pet.id, providerId: both.id, type: 'vet_consultation', startsAt: '2026-11-24T13:30:00Z' });
  a.is(refused.status, 409, refused.text);
  a.is(refused.body.code, 'slot_unavailable');
  // A cancelled groom frees the time for appointments again.
  a.is((await moveTo(t, g.body.id, 'cancelled')).status, 200);
  a.is((await book(t, { petId: s.pet.id, providerId: both.id, type: 'vet_consultation', startsAt: '2026-11-24T13:30:00Z' })).status, 201);
});

test.serial('state moves: confirmed → checked_in → in_progress → completed; forbidden moves are 409 with currentStatus', async (a) => {
  const s = await salon(t);
  const g = await groom(t, { petId: s.pet.id, packageId: s.pkg.id, locationId: s.location.id, startsAt: '2026-11-27T09:00:00Z', stylistId: s.stylist.id });
  const skip = await moveTo(t, g.body.id, 'completed', desk.accessToken);
  a.is(skip.status, 409);
  a.is(skip.body.code, 'invalid_state_transition');
  a.is(skip.body.currentStatus, 'confirmed');
  a.is((await moveTo(t, g.body.id, 'checked_in', desk.accessToken)).body.status, 'checked_in');
  const cancelLate = await moveTo(t, g.body.id, 'cancelled', desk.accessToken);
  a.is(cancelLate.status, 409);
  a.is(cancelLate.body.currentStatus, 'checked_in');
  a.is((await moveTo(t, g.body.id, 'in_progress', desk.accessToken)).body.status, 'in_progress');
  const done = await atTime(t, g.body.startsAt, () => moveTo(t, g.body.id, 'completed', desk.accessToken));
  a.is(done.status, 200, done.text);
  a.is(done.body.status, 'completed');
  const again = await moveTo(t, g.body.id, 'cancelled', desk.accessToken);
  a.is(again.status, 409);
  a.is(again.body.currentStatus, 'completed');
  const bad = await moveTo(t, g.body.id, 'finished', desk.accessToken);
  a.is(bad.status, 400);
  a.is(bad.body.errors[0].field, 'status');
});

test.serial('a groom is completed from its startsAt on: before, 409 invalid_state_transition with startsAt, nothing billed and the status kept', async (a) => {
  const s = await salon(t);
  const g = await groom(t, {
    petId: s.pet.id,
    packageId: s.pkg.id,
    locationId: s.location.id,
    startsAt: '2026-11-26T10:00:00Z',
    stylistId: s.stylist.id,
    payWith: 'invoice',
  });
  a.is(g.status, 201, g.text);
  a.is((await moveTo(t, g.body.id, 'checked_in', desk.accessToken)).status, 200, 'an early arrival checks in');
  a.is((await moveTo(t, g.body.id, 'in_progress', desk.accessToken)).status, 200, 'and may be started');
  const invoices = await countRows(t, 'invoices');
  for (const when of [now, Date.parse('2026-11-26T09:59:59.999Z')]) {
    const early = await atTime(t, new Date(when).toISOString(), () => moveTo(t, g.body.id, 'completed', desk.accessToken));
    a.is(early.status, 409, early.text);
    a.is(early.body.code, 'invalid_state_transition');
    a.is(early.body.currentStatus, 'in_progress');
    a.is(early.body.startsAt, '2026-11-26T10:00:00.000Z');
  }
  const kept = await t.request('GET', `/v1/grooming/appointments/${g.body.id}`, { token: reader.accessToken });
  a.like(kept.body, { status: 'in_progress', invoiceId: null });
  a.is(await countRows(t, 'invoices'), invoices, 'nothing billed');
  const done = await atTime(t, '2026-11-26T10:00:00Z', () => moveTo(t, g.body.id, 'completed', desk.accessToken));
  a.is(done.status, 200, done.text);
  a.like(done.body, { status: 'completed' });
  a.regex(done.body.invoiceId, /^inv_/);
});

test('cancelled and no_show emit booking.cancelled through the bookings module; a cancelled groom frees the slot', async (a) => {
  const s = await salon(t);
  const body = { petId: s.pet.id, packageId: s.pkg.id, locationId: s.location.id, startsAt: '2026-11-27T13:00:00Z', stylistId: s.stylist.id };
  const g = await groom(t, body);
  const cancelled = await moveTo(t, g.body.id, 'cancelled', desk.accessToken, { reason: 'owner ill' });
  a.is(cancelled.status, 200, cancelled.text);
  a.is(cancelled.body.status, 'cancelled');
  const events = await eventsWith(t, 'booking.cancelled', 'bookingId', g.body.id);
  a.is(events.length, 1);
  a.like(events[0]!.data, {
    bookingId: g.body.id,
    petId: s.pet.id,
    service: 'grooming',
    kind: 'grooming',
    status: 'cancelled',
    reason: 'owner ill',
    amount: 5_500,
    currency: 'USD',
    locationId: s.location.id,
  });
  const rebooked = await groom(t, body);
  a.is(rebooked.status, 201, rebooked.text);
  const noShow = await moveTo(t, rebooked.body.id, 'no_show');
  a.is(noShow.body.status, 'no_show');
  const shows = await eventsWith(t, 'booking.cancelled', 'bookingId', rebooked.body.id);
  a.is(shows[0]!.data.status, 'no_show');
});

test.serial('completion with payWith invoice gives a finalized invoice whose line sourceId is the booking id; invoiceId lands on the groom', async (a) => {
  const s = await salon(t, { taxRateBps: 1_000 });
  const g = await groom(t, {
    petId: s.pet.id,
    packageId: s.pkg.id,
    locationId: s.location.id,
    startsAt: '2026-11-30T09:00:00Z',
    stylistId: s.stylist.id,
    payWith: 'invoice',
  });
  a.is(g.status, 201, g.text);
  const done = await atTime(t, g.body.startsAt, () => complete(t, g.body.id, desk.accessToken));
  a.is(done.status, 200, done.text);
  a.regex(done.body.invoiceId, /^inv_/);
  const invoice = await t.request('GET', `/v1/invoices/${done.body.invoiceId}`, { token: admin });
  a.is(invoice.status, 200);
  a.is(invoice.body.status, 'open');
  a.truthy(invoice.body.number);
  a.truthy(invoice.body.finalizedAt);
  a.is(invoice.body.parentId, s.parent.id);
  a.is(invoice.body.petId, s.pet.id);
  a.is(invoice.body.locationId, s.location.id);
  a.is(invoice.body.subtotal, 5_500);
  a.is(invoice.body.tax, 550);
  a.is(invoice.body.total, 6_050);
  a.is(invoice.body.lines.length, 1);
  a.is(invoice.body.lines[0].sourceId, g.body.id);
  const got = await t.request('GET', `/v1/grooming/appointments/${g.body.id}`, { token: reader.accessToken });
  a.is(got.body.invoiceId, done.body.invoiceId);
  a.is((await eventsWith(t, 'invoice.finalized', 'invoiceId', done.body.invoiceId)).length, 1);
});

test('GET /v1/grooming/appointments filters by locationId, stylistId, petId, status, from and to', async (a) => {
  const s = await salon(t);
  const second = await createGroomer(t, [s.location.id]);
  const otherPet = await createPet(t, s.parent.id, s.location.id, { size: 'small' });
  const g1 = await groom(t, { petId: s.pet.id, packageId: s.pkg.id, locationId: s.location.id, startsAt: '2026-12-01T09:00:00Z', stylistId: s.stylist.id });
  const g2 = await groom(t, { petId: otherPet.id, packageId: s.pkg.id, locationId: s.location.id, startsAt: '2026-12-02T09:00:00Z', stylistId: second.id });
  await moveTo(t, g2.body.id, 'cancelled');
  const ids = async (query: string) =>
    (await t.request('GET', `/v1/grooming/appointments?${query}`, { token: reader.accessToken })).body.data.map((g: { id: string }) => g.id);
  a.deepEqual(await ids(`locationId=${s.location.id}`), [g2.body.id, g1.body.id]);
  a.deepEqual(await ids(`stylistId=${second.id}`), [g2.body.id]);
  a.deepEqual(await ids(`petId=${s.pet.id}`), [g1.body.id]);
  a.deepEqual(await ids(`locationId=${s.location.id}&status=cancelled`), [g2.body.id]);
  a.deepEqual(await ids(`locationId=${s.location.id}&from=2026-12-02T00:00:00Z&to=2026-12-03T00:00:00Z`), [g2.body.id]);
  const bad = await t.request('GET', '/v1/grooming/appointments?from=yesterday-ish', { token: reader.accessToken });
  a.is(bad.status, 400);
  a.is(bad.body.errors[0].field, 'from');
});

test('a parent’s other location: the pet is billed to its parent wherever the groom is', async (a) => {
  const s = await salon(t);
  const parent2 = await createPetParent(t, s.location.id);
  const pet2 = await createPet(t, parent2.id, s.location.id, { size: 'large' });
  const g = await groom(t, { petId: pet2.id, packageId: s.pkg.id, locationId: s.location.id, startsAt: '2026-12-03T09:00:00Z', stylistId: s.stylist.id });
  a.is(g.body.parentId, parent2.id);
  a.is(g.body.amount, 7_000);
});
