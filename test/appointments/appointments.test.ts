import test from 'ava';
import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import { TestClock, type TokenSet, useTestApp } from '../helpers/test-app.js';
import { book, createProvider, eventsWith, putSchedule, weekdays } from './scheduling-support.js';

/**
 * POST/GET/PATCH /v1/appointments: the seed's object, the booking rules, the state machine,
 * events, idempotency, scoping and the double-booking race.
 * The clock stands on Monday 2026-11-23 08:00 UTC (London is on GMT then); notice is 60 minutes.
 */
const now = Date.parse('2026-11-23T08:00:00.000Z');
const appointmentKeys = [
  'id',
  'status',
  'petId',
  'providerId',
  'provider',
  'type',
  'startsAt',
  'endsAt',
  'locationId',
  'notes',
  'createdAt',
  'updatedAt',
  'calendarUrl',
  'externalId',
];

let admin: string;
let desk: TokenSet; // staff, bookings
let reader: TokenSet; // staff, bookings.read
let petsOnly: TokenSet; // staff, pets

const t = useTestApp(test, { clock: new TestClock(now) });
test.before(async () => {
  admin = await t.adminToken();
  [desk, reader, petsOnly] = await Promise.all([
    t.client({ name: 'desk', role: 'staff', scopes: ['bookings', 'pets'] }),
    t.client({ name: 'reader', role: 'staff', scopes: ['bookings.read'] }),
    t.client({ name: 'pets only', role: 'staff', scopes: ['pets'] }),
  ]);
});

/** A London clinic with a pet and a vet working Monday–Friday 09:00–17:00. */
async function clinic(timezone = 'Europe/London', services: string[] = []) {
  const location = await createLocation(t, { timezone });
  const parent = await createPetParent(t, location.id);
  const pet = await createPet(t, parent.id, location.id);
  const provider = await createProvider(t, { locationIds: [location.id], services });
  await putSchedule(t, provider.id, location.id);
  return { location, pet, provider };
}

// ---------------------------------------------------------------- the seed's request and object

test('POST /v1/appointments with the seed body answers 201 with both forms of the object', async (a) => {
  const { location, pet, provider } = await clinic();
  const res = await book(
    t,
    { petId: pet.id, providerId: provider.id, type: 'VET_CONSULTATION', startsAt: '2026-11-24T10:30:00+01:00', notes: 'Limping on the left hind leg' },
    desk.accessToken,
  );
  a.is(res.status, 201, res.text);
  a.deepEqual(Object.keys(res.body), appointmentKeys);
  a.regex(res.body.id, /^apt_[a-z0-9]{26}$/);
  a.deepEqual(res.body, {
    id: res.body.id,
    status: 'confirmed',
    petId: pet.id,
    providerId: provider.id,
    provider: { id: provider.id, name: provider.name },
    type: 'vet_consultation',
    startsAt: '2026-11-24T09:30:00.000Z',
    endsAt: '2026-11-24T10:00:00.000Z',
    locationId: location.id,
    notes: 'Limping on the left hind leg',
    createdAt: new Date(now).toISOString(),
    updatedAt: new Date(now).toISOString(),
    calendarUrl: res.body.calendarUrl,
    externalId: null,
  });
  a.regex(res.body.calendarUrl, new RegExp(`^${t.url}/v1/calendar/${res.body.id}\\.ics\\?token=ct_live_[A-Za-z0-9_-]{32}$`));
  const got = await t.request('GET', `/v1/appointments/${res.body.id}`, { token: reader.accessToken });
  a.is(got.status, 200);
  a.deepEqual(got.body, res.body);
});

test('notes are optional; type lower-case input works; Z input works', async (a) => {
  const { pet, provider } = await clinic();
  const res = await book(t, { petId: pet.id, providerId: provider.id, type: 'vaccination', startsAt: '2026-11-24T09:00:00Z' });
  a.is(res.status, 201, res.text);
  a.is(res.body.notes, null);
  a.is(res.body.endsAt, '2026-11-24T09:15:00.000Z');
});

test('appointment.created is emitted once in the same transaction, with the booking data', async (a) => {
  const { location, pet, provider } = await clinic();
  const res = await book(t, { petId: pet.id, providerId: provider.id, type: 'checkup', startsAt: '2026-11-25T11:00:00Z' });
  a.is(res.status, 201);
  const events = await eventsWith(t, 'appointment.created', 'appointmentId', res.body.id);
  a.is(events.length, 1);
  a.deepEqual(events[0]!.data, {
    appointmentId: res.body.id,
    petId: pet.id,
    providerId: provider.id,
    locationId: location.id,
    type: 'checkup',
    status: 'confirmed',
    startsAt: '2026-11-25T11:00:00.000Z',
    endsAt: '2026-11-25T11:30:00.000Z',
  });
  a.is(events[0]!.created_at, res.body.createdAt);
});

// ---------------------------------------------------------------- location defaulting

test("locationId defaults to the location whose schedule covers the time, else the pet's", async (a) => {
  const { location: home, pet, provider } = await clinic();
  const other = await createLocation(t, { timezone: 'Europe/London' });
  await t.request('PATCH', `/v1/providers/${provider.id}`, { token: admin, body: { locationIds: [home.id, other.id] } });
  await putSchedule(t, provider.id, other.id, weekdays([6], '09:00', '13:00'));
  const saturday = await book(t, { petId: pet.id, providerId: provider.id, type: 'checkup', startsAt: '2026-11-28T10:00:00Z' });
  a.is(saturday.status, 201, saturday.text);
  a.is(saturday.body.locationId, other.id);
  const tuesday = await book(t, { petId: pet.id, providerId: provider.id, type: 'checkup', startsAt: '2026-11-24T10:00:00Z' });
  a.is(tuesday.body.locationId, home.id);
  // A named location wins, and its schedule applies: Sunday at `other` is outside its hours.
  const sunday = await book(t, { petId: pet.id, providerId: provider.id, type: 'checkup', startsAt: '2026-11-29T10:00:00Z', locationId: other.id });
  a.is(sunday.status, 409);
  a.is(sunday.body.code, 'slot_unavailable');
});

test('a provider without a schedule at the location can be booked at any time', async (a) => {
  const location = await createLocation(t);
  const parent = await createPetParent(t, location.id);
  const pet = await createPet(t, parent.id, location.id);
  const provider = await createProvider(t, { locationIds: [location.id] });
  const res = await book(t, { petId: pet.id, providerId: provider.id, type: 'checkup', startsAt: '2026-11-29T22:00:00Z' });
  a.is(res.status, 201, res.text);
  a.is(res.body.locationId, location.id);
});

// ---------------------------------------------------------------- validation and references

test('validation: missing fields, unknown type, bad dates', async (a) => {
  const { pet, provider } = await clinic();
  const empty = await book(t, {});
  a.is(empty.status, 400);
  a.deepEqual((empty.body.errors as Array<{ field: string }>).map((e) => e.field).sort(), ['petId', 'providerId', 'startsAt', 'type']);
  const base = { petId: pet.id, providerId: provider.id, type: 'checkup', startsAt: '2026-11-24T10:00:00Z' };
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ type: 'teleportation' }, 'type'],
    [{ type: 'bad-type' }, 'type'],
    [{ startsAt: '2026-11-24 10:00' }, 'startsAt'],
    [{ startsAt: '2026-11-24T10:00:00' }, 'startsAt'],
    [{ startsAt: '2026-02-30T10:00:00Z' }, 'startsAt'],
    [{ startsAt: '2026-11-20T10:00:00Z' }, 'startsAt'],
    [{ startsAt: '2030-01-01T10:00:00Z' }, 'startsAt'],
    [{ notes: 'x'.repeat(2001) }, 'notes'],
    [{ status: 'confirmed' }, 'status'],
    [{ petId: 'dog_1' }, 'petId'],
  ];
  for (const [patch, field] of cases) {
    const res = await book(t, { ...base, ...patch });
    a.is(res.status, 400, `${JSON.stringify(patch)}: ${res.text}`);
    a.is(res.body.code, 'validation_failed');
    a.true(
      (res.body.errors as Array<{ field: string }>).some((e) => e.field === field),
      `${JSON.stringify(patch)} → ${JSON.stringify(res.body.errors)}`,
    );
  }
});

test('references the caller cannot see answer 400 resource_missing', async (a) => {
  const { pet, provider } = await clinic();
  const base = { petId: pet.id, providerId: provider.id, type: 'checkup', startsAt: '2026-11-24T10:00:00Z' };
  for (const [patch, field] of [
    [{ petId: 'pet_doesnotexist' }, 'petId'],
    [{ providerId: 'prv_doesnotexist' }, 'providerId'],
    [{ locationId: 'loc_doesnotexist' }, 'locationId'],
  ] as const) {
    const res = await book(t, { ...base, ...patch });
    a.is(res.status, 400);
    a.is(res.body.code, 'resource_missing');
    a.is(res.body.errors[0].field, field);
  }
});

test('a provider with a fixed list of services must offer the type; one at another location cannot be booked there', async (a) => {
  const { location, pet } = await clinic();
  const groomer = await createProvider(t, { kind: 'groomer', locationIds: [location.id], services: ['grooming'] });
  const res = await book(t, { petId: pet.id, providerId: groomer.id, type: 'surgery', startsAt: '2026-11-24T10:00:00Z' });
  a.is(res.status, 400);
  a.is(res.body.errors[0].field, 'type');
  a.is((await book(t, { petId: pet.id, providerId: groomer.id, type: 'Grooming', startsAt: '2026-11-24T10:00:00Z' })).status, 201);
  const elsewhere = await createLocation(t);
  const remote = await createProvider(t, { locationIds: [elsewhere.id] });
  const wrongPlace = await book(t, { petId: pet.id, providerId: remote.id, type: 'checkup', startsAt: '2026-11-24T10:00:00Z', locationId: location.id });
  a.is(wrongPlace.status, 400);
  a.is(wrongPlace.body.errors[0].field, 'providerId');
});

// ---------------------------------------------------------------- slot rules

test('outside working hours, in time off, or too soon → 409 slot_unavailable', async (a) => {
  const { location, pet, provider } = await clinic();
  await putSchedule(t, provider.id, location.id, weekdays([1, 2, 3, 4, 5], '09:00', '17:00'), [{ from: '2026-11-26', to: '2026-11-26', reason: 'Training' }]);
  const at = (startsAt: string, type = 'vet_consultation') => book(t, { petId: pet.id, providerId: provider.id, type, startsAt });
  for (const startsAt of [
    '2026-11-24T08:30:00Z', // before opening
    '2026-11-24T16:45:00Z', // ends after closing
    '2026-11-28T10:00:00Z', // Saturday
    '2026-11-26T12:00:00Z', // time off (the whole local day)
    '2026-11-23T08:30:00Z', // inside the 60-minute notice
  ]) {
    const res = await at(startsAt);
    a.is(res.status, 409, `${startsAt}: ${res.text}`);
    a.is(res.body.code, 'slot_unavailable');
  }
  a.is((await at('2026-11-24T16:30:00Z')).status, 201);
  a.is((await at('2026-11-27T09:00:00Z')).status, 201);
  a.is((await at('2026-11-23T09:00:00Z')).status, 201); // exactly the notice
});

test('overlaps with the provider’s other appointments, buffers included, are refused', async (a) => {
  const { pet, provider } = await clinic();
  const at = (startsAt: string, type: string) => book(t, { petId: pet.id, providerId: provider.id, type, startsAt });
  // dental: 60 minutes, 15 before and 15 after → blocks 09:45–11:15.
  a.is((await at('2026-11-24T10:00:00Z', 'dental')).status, 201);
  a.is((await at('2026-11-24T10:30:00Z', 'vaccination')).body.code, 'slot_unavailable'); // inside
  a.is((await at('2026-11-24T11:00:00Z', 'vaccination')).body.code, 'slot_unavailable'); // in the after-buffer
  a.is((await at('2026-11-24T09:30:00Z', 'vaccination')).body.code, 'slot_unavailable'); // 09:30–09:50 with its 5 after meets the before-buffer
  a.is((await at('2026-11-24T11:15:00Z', 'vaccination')).status, 201); // right after the buffer
  a.is((await at('2026-11-24T09:25:00Z', 'vaccination')).status, 201); // 09:25–09:40 + 5 = 09:45
  // Another provider is free at the same time.
  const { pet: otherPet, provider: other } = await clinic();
  a.is((await book(t, { petId: otherPet.id, providerId: other.id, type: 'dental', startsAt: '2026-11-24T10:00:00Z' })).status, 201);
});

test('an inactive provider takes no new bookings (409)', async (a) => {
  const { pet, provider } = await clinic();
  await t.request('PATCH', `/v1/providers/${provider.id}`, { token: admin, body: { status: 'inactive' } });
  const res = await book(t, { petId: pet.id, providerId: provider.id, type: 'checkup', startsAt: '2026-11-24T10:00:00Z' });
  a.is(res.status, 409);
  a.is(res.body.code, 'slot_unavailable');
});

test.serial('double booking is impossible: concurrent POSTs for one slot → exactly one 201, the rest 409', async (a) => {
  const { location, provider } = await clinic();
  const parent = await createPetParent(t, location.id);
  const pets = await Promise.all([1, 2, 3, 4, 5].map(() => createPet(t, parent.id, location.id)));
  const results = await Promise.all(
    pets.map((pet) => book(t, { petId: pet.id, providerId: provider.id, type: 'vet_consultation', startsAt: '2026-11-30T14:00:00Z' }, desk.accessToken)),
  );
  const statuses = results.map((r) => r.status).sort();
  a.deepEqual(statuses, [201, 409, 409, 409, 409]);
  for (const r of results.filter((x) => x.status === 409)) a.is(r.body.code, 'slot_unavailable');
  const rows = await t.stores.get('live').db.selectFrom('appointments').select('id').where('provider_id', '=', provider.id).execute();
  a.is(rows.length, 1);
  // Two overlapping but different times race the same way.
  const pair = await Promise.all([
    book(t, { petId: pets[0]!.id, providerId: provider.id, type: 'vet_consultation', startsAt: '2026-12-01T10:00:00Z' }),
    book(t, { petId: pets[1]!.id, providerId: provider.id, type: 'vet_consultation', startsAt: '2026-12-01T10:15:00Z' }),
  ]);
  a.deepEqual(pair.map((r) => r.status).sort(), [201, 409]);
});

// ---------------------------------------------------------------- idempotency

test('idempotent creation: the same key answers the same appointment, replayed, with one event', async (a) => {
  const { pet, provider } = await clinic();
  const body = { petId: pet.id, providerId: provider.id, type: 'VET_CONSULTATION', startsAt: '2026-11-24T13:00:00Z', notes: 'first' };
  const first = await book(t, body, desk.accessToken, `apt-key-${provider.id}`);
  const again = await book(t, body, desk.accessToken, `apt-key-${provider.id}`);
  a.is(first.status, 201);
  a.is(again.status, 201);
  a.is(again.body.id, first.body.id);
  a.deepEqual(again.body, first.body);
  a.is(again.headers.get('idempotent-replayed'), 'true');
  a.is(first.headers.get('idempotent-replayed'), null);
  a.is((await eventsWith(t, 'appointment.created', 'appointmentId', first.body.id)).length, 1);
  const other = await book(t, { ...body, notes: 'changed' }, desk.accessToken, `apt-key-${provider.id}`);
  a.is(other.status, 422);
  // A refused booking is not stored: the key can be reused for a corrected request.
  const refused = await book(t, { ...body, startsAt: '2026-11-24T13:15:00Z' }, desk.accessToken, `apt-key-2-${provider.id}`);
  a.is(refused.status, 409);
  const corrected = await book(t, { ...body, startsAt: '2026-11-24T14:00:00Z' }, desk.accessToken, `apt-key-2-${provider.id}`);
  a.is(corrected.status, 201);
});

// ---------------------------------------------------------------- state machine

test('status moves confirmed → checked_in → in_progress → completed; completing sets lastVisit (local date) and emits appointment.completed', async (a) => {
  // 17:30 in Los Angeles on Tuesday 24 November is 01:30 UTC on the 25th: lastVisit is the local date.
  const { location, pet, provider } = await clinic('America/Los_Angeles');
  await putSchedule(t, provider.id, location.id, weekdays([2], '12:00', '20:00'));
  const created = await book(t, { petId: pet.id, providerId: provider.id, type: 'checkup', startsAt: '2026-11-24T17:30:00-08:00' });
  a.is(created.status, 201, created.text);
  const move = (status: string) => t.request('PATCH', `/v1/appointments/${created.body.id}`, { token: desk.accessToken, body: { status } });
  const checkedIn = await move('CHECKED_IN');
  a.is(checkedIn.status, 200, checkedIn.text);
  a.is(checkedIn.body.status, 'checked_in');
  a.is((await move('completed')).body.code, 'invalid_state_transition');
  a.is((await move('in_progress')).body.status, 'in_progress');
  a.is((await eventsWith(t, 'appointment.completed', 'appointmentId', created.body.id)).length, 0);
  const done = await move('Completed');
  a.is(done.status, 200);
  a.is(done.body.status, 'completed');
  const petNow = await t.request('GET', `/v1/pets/${pet.id}`, { token: desk.accessToken });
  a.is(petNow.body.lastVisit, '2026-11-24');
  const events = await eventsWith(t, 'appointment.completed', 'appointmentId', created.body.id);
  a.is(events.length, 1);
  a.like(events[0]!.data, {
    appointmentId: created.body.id,
    petId: pet.id,
    providerId: provider.id,
    locationId: location.id,
    type: 'checkup',
    status: 'completed',
    startsAt: '2026-11-25T01:30:00.000Z',
    visitDate: '2026-11-24',
  });
  // Final state: nothing moves any more; the same status is a no-op.
  a.is((await move('cancelled')).status, 409);
  const same = await move('completed');
  a.is(same.status, 200);
  a.is((await eventsWith(t, 'appointment.completed', 'appointmentId', created.body.id)).length, 1);
});

test('forbidden moves answer 409 invalid_state_transition; unknown statuses 400', async (a) => {
  const { pet, provider } = await clinic();
  const created = await book(t, { petId: pet.id, providerId: provider.id, type: 'checkup', startsAt: '2026-11-24T15:00:00Z' });
  const move = (status: string) => t.request('PATCH', `/v1/appointments/${created.body.id}`, { token: desk.accessToken, body: { status } });
  for (const status of ['in_progress', 'completed']) {
    const res = await move(status);
    a.is(res.status, 409, status);
    a.is(res.body.code, 'invalid_state_transition');
  }
  const unknown = await move('sleeping');
  a.is(unknown.status, 400);
  a.is(unknown.body.errors[0].field, 'status');
  a.is((await move('NO_SHOW')).body.status, 'no_show');
  a.is((await move('checked_in')).status, 409);
  a.is((await move('cancelled')).status, 409);
});

test('cancelling frees the slot; a checked-in visit can still be cancelled', async (a) => {
  const { pet, provider } = await clinic();
  const body = { petId: pet.id, providerId: provider.id, type: 'checkup', startsAt: '2026-11-24T11:00:00Z' };
  const first = await book(t, body);
  a.is((await book(t, body)).status, 409);
  const cancelled = await t.request('PATCH', `/v1/appointments/${first.body.id}`, { token: desk.accessToken, body: { status: 'cancelled' } });
  a.is(cancelled.body.status, 'cancelled');
  const second = await book(t, body);
  a.is(second.status, 201);
  await t.request('PATCH', `/v1/appointments/${second.body.id}`, { token: desk.accessToken, body: { status: 'checked_in' } });
  a.is((await t.request('PATCH', `/v1/appointments/${second.body.id}`, { token: desk.accessToken, body: { status: 'cancelled' } })).body.status, 'cancelled');
});

// ---------------------------------------------------------------- reschedule and reassign

test('rescheduling re-runs the booking rules, excluding the appointment itself', async (a) => {
  const { location, pet, provider } = await clinic();
  const first = await book(t, { petId: pet.id, providerId: provider.id, type: 'vet_consultation', startsAt: '2026-11-24T10:00:00Z' });
  await book(t, { petId: pet.id, providerId: provider.id, type: 'vet_consultation', startsAt: '2026-11-24T12:00:00Z' });
  const patch = (body: Record<string, unknown>) => t.request('PATCH', `/v1/appointments/${first.body.id}`, { token: desk.accessToken, body });
  // Ten minutes later overlaps only its own old slot: allowed.
  const shifted = await patch({ startsAt: '2026-11-24T10:10:00Z' });
  a.is(shifted.status, 200, shifted.text);
  a.is(shifted.body.startsAt, '2026-11-24T10:10:00.000Z');
  a.is(shifted.body.endsAt, '2026-11-24T10:40:00.000Z');
  a.is((await patch({ startsAt: '2026-11-24T11:45:00Z' })).body.code, 'slot_unavailable'); // runs into 12:00 (its 10-minute buffer)
  a.is((await patch({ startsAt: '2026-11-24T18:00:00Z' })).body.code, 'slot_unavailable'); // after hours
  a.is((await patch({ startsAt: '2026-11-23T08:10:00Z' })).body.code, 'slot_unavailable'); // notice
  a.is((await patch({ startsAt: '2026-11-24T10:10:00Z', status: 'checked_in' })).status, 400);
  // Reassign to a colleague who is free; one at another location is refused; one busy then is 409.
  const colleague = await createProvider(t, { locationIds: [location.id] });
  const reassigned = await patch({ providerId: colleague.id, notes: 'Dr. away' });
  a.is(reassigned.status, 200, reassigned.text);
  a.deepEqual(reassigned.body.provider, { id: colleague.id, name: colleague.name });
  a.is(reassigned.body.notes, 'Dr. away');
  const outsider = await createProvider(t, { locationIds: [(await createLocation(t)).id] });
  a.is((await patch({ providerId: outsider.id })).status, 400);
  const busy = await createProvider(t, { locationIds: [location.id] });
  await book(t, { petId: pet.id, providerId: busy.id, type: 'checkup', startsAt: '2026-11-24T10:20:00Z' });
  a.is((await patch({ providerId: busy.id })).body.code, 'slot_unavailable');
  a.is((await patch({ providerId: 'prv_ghost' })).body.code, 'resource_missing');
  // Checked in: it may be reassigned but not rescheduled.
  await patch({ status: 'checked_in' });
  a.is((await patch({ startsAt: '2026-11-24T14:00:00Z' })).body.code, 'invalid_state_transition');
  a.is((await patch({ providerId: provider.id })).status, 200);
});

test('notes can change on any appointment; an empty PATCH is 400', async (a) => {
  const { pet, provider } = await clinic();
  const created = await book(t, { petId: pet.id, providerId: provider.id, type: 'checkup', startsAt: '2026-11-25T15:00:00Z', notes: 'a' });
  const res = await t.request('PATCH', `/v1/appointments/${created.body.id}`, { token: desk.accessToken, body: { notes: null } });
  a.is(res.status, 200);
  a.is(res.body.notes, null);
  a.is((await t.request('PATCH', `/v1/appointments/${created.body.id}`, { token: desk.accessToken, body: {} })).status, 400);
  a.is((await t.request('PATCH', `/v1/appointments/${created.body.id}`, { token: desk.accessToken, body: { type: 'dental' } })).status, 400);
  a.is((await t.request('PATCH', '/v1/appointments/apt_missing', { token: desk.accessToken, body: { notes: 'x' } })).status, 404);
});

// ---------------------------------------------------------------- lists

test('GET /v1/appointments filters by provider, pet, location, status and time; pages by cursor', async (a) => {
  const { location, pet, provider } = await clinic();
  const ids: string[] = [];
  for (const startsAt of ['2026-11-24T09:00:00Z', '2026-11-24T10:00:00Z', '2026-11-25T09:00:00Z']) {
    ids.push((await book(t, { petId: pet.id, providerId: provider.id, type: 'checkup', startsAt })).body.id);
  }
  await t.request('PATCH', `/v1/appointments/${ids[0]}`, { token: admin, body: { status: 'cancelled' } });
  const list = async (query: string) => {
    const res = await t.request('GET', `/v1/appointments?${query}`, { token: reader.accessToken });
    a.is(res.status, 200, res.text);
    return (res.body.data as Array<{ id: string }>).map((x) => x.id);
  };
  a.deepEqual(await list(`providerId=${provider.id}`), [...ids].reverse());
  a.deepEqual(await list(`petId=${pet.id}&status=CANCELLED`), [ids[0]]);
  a.deepEqual(await list(`locationId=${location.id}&status=confirmed`), [ids[2], ids[1]]);
  a.deepEqual(await list(`providerId=${provider.id}&from=2026-11-24T09:30:00Z&to=2026-11-25T00:00:00%2B01:00`), [ids[1]]);
  const page = await t.request('GET', `/v1/appointments?providerId=${provider.id}&limit=2`, { token: reader.accessToken });
  a.true(page.body.hasMore);
  const rest = await t.request('GET', `/v1/appointments?providerId=${provider.id}&limit=2&cursor=${page.body.nextCursor}`, { token: reader.accessToken });
  a.deepEqual(
    rest.body.data.map((x: { id: string }) => x.id),
    [ids[0]],
  );
  a.is((await t.request('GET', '/v1/appointments?status=asleep', { token: reader.accessToken })).status, 400);
  a.is((await t.request('GET', '/v1/appointments?from=yesterday', { token: reader.accessToken })).status, 400);
  a.is((await t.request('GET', '/v1/appointments?from=2026-11-25T00:00:00Z&to=2026-11-24T00:00:00Z', { token: reader.accessToken })).status, 400);
});

// ---------------------------------------------------------------- auth and scoping

test('auth: 401 without a token; 403 without bookings, or with bookings.read on writes', async (a) => {
  const { pet, provider } = await clinic();
  const body = { petId: pet.id, providerId: provider.id, type: 'checkup', startsAt: '2026-11-26T10:00:00Z' };
  const anonymous = await t.request('POST', '/v1/appointments', { body });
  a.is(anonymous.status, 401);
  a.truthy(anonymous.headers.get('www-authenticate'));
  a.is((await book(t, body, reader.accessToken)).body.code, 'insufficient_scope');
  a.is((await book(t, body, petsOnly.accessToken)).status, 403);
  a.is((await t.request('GET', '/v1/appointments', { token: petsOnly.accessToken })).status, 403);
  a.is((await t.request('GET', '/v1/appointments/apt_x')).status, 401);
});

test('location scoping: other locations answer 404 for reads and writes, and stay out of lists', async (a) => {
  const one = await clinic();
  const two = await clinic();
  const scoped = await t.client({ name: 'one only', role: 'staff', scopes: ['bookings', 'pets'], locationIds: [one.location.id] });
  const mine = await book(t, { petId: one.pet.id, providerId: one.provider.id, type: 'checkup', startsAt: '2026-11-24T10:00:00Z' });
  const theirs = await book(t, { petId: two.pet.id, providerId: two.provider.id, type: 'checkup', startsAt: '2026-11-24T10:00:00Z' });
  a.is((await t.request('GET', `/v1/appointments/${mine.body.id}`, { token: scoped.accessToken })).status, 200);
  const hidden = await t.request('GET', `/v1/appointments/${theirs.body.id}`, { token: scoped.accessToken });
  a.is(hidden.status, 404);
  a.is(hidden.body.code, 'not_found');
  a.is((await t.request('PATCH', `/v1/appointments/${theirs.body.id}`, { token: scoped.accessToken, body: { status: 'cancelled' } })).status, 404);
  const listed = await t.request('GET', '/v1/appointments?limit=100', { token: scoped.accessToken });
  const ids = (listed.body.data as Array<{ id: string }>).map((x) => x.id);
  a.true(ids.includes(mine.body.id));
  a.false(ids.includes(theirs.body.id));
  // Booking the other location's pet or provider: references it cannot see.
  const foreignPet = await book(t, { petId: two.pet.id, providerId: one.provider.id, type: 'checkup', startsAt: '2026-11-24T11:00:00Z' }, scoped.accessToken);
  a.is(foreignPet.body.code, 'resource_missing');
  const foreignProvider = await book(
    t,
    { petId: one.pet.id, providerId: two.provider.id, type: 'checkup', startsAt: '2026-11-24T11:00:00Z' },
    scoped.accessToken,
  );
  a.is(foreignProvider.body.code, 'resource_missing');
});
