import test from 'ava';
import { assertProblem, fieldsOf } from '../gateway/gateway-support.js';
import type { TestApp } from '../helpers/test-app.js';
import { boardingApp, room, scopedClient, site, type Site, type Tokens } from './boarding-support.js';

/** /v1/boarding/rooms: create, list with filters, get, patch; validation, auth, location scoping, idempotency. */
const roomKeys = ['id', 'locationId', 'name', 'roomType', 'capacity', 'species', 'nightlyRate', 'currency', 'active', 'createdAt', 'updatedAt'].sort();

let t: TestApp;
let tokens: Tokens;
let s: Site;

test.before(async () => {
  ({ t, tokens } = await boardingApp());
  s = await site(t, { currency: 'EUR' });
});
test.after.always(async () => {
  await t?.close();
});

test('POST creates a room with every field; GET reads it back; PATCH renames, re-prices, resizes and deactivates', async (a) => {
  const res = await t.request('POST', '/v1/boarding/rooms', {
    token: tokens.staff.accessToken,
    body: { locationId: s.location.id, name: ' Suite 1 ', roomType: 'suite', capacity: 2, species: ['dog', 'cat'], nightlyRate: 7_500 },
  });
  a.is(res.status, 201, res.text);
  a.deepEqual(Object.keys(res.body).sort(), roomKeys);
  a.regex(res.body.id, /^room_[a-z0-9]{26}$/);
  a.like(res.body, {
    locationId: s.location.id,
    name: 'Suite 1',
    roomType: 'suite',
    capacity: 2,
    species: ['dog', 'cat'],
    nightlyRate: 7_500,
    currency: 'EUR',
    active: true,
  });
  const read = await t.request('GET', `/v1/boarding/rooms/${res.body.id}`, { token: tokens.reader.accessToken });
  a.deepEqual(read.body, res.body);

  const patched = await t.request('PATCH', `/v1/boarding/rooms/${res.body.id}`, {
    token: tokens.staff.accessToken,
    body: { name: 'Suite One', nightlyRate: 8_000, capacity: 3, species: ['cat'], active: false },
  });
  a.is(patched.status, 200, patched.text);
  a.like(patched.body, { name: 'Suite One', nightlyRate: 8_000, capacity: 3, species: ['cat'], active: false, roomType: 'suite' });
  a.deepEqual((await t.request('GET', `/v1/boarding/rooms/${res.body.id}`, { token: tokens.reader.accessToken })).body, patched.body);
});

test('GET lists newest first with filters locationId, roomType and active', async (a) => {
  const other = await site(t);
  const std = await room(t, tokens.staff.accessToken, other.location.id, { roomType: 'standard' });
  const cattery = await room(t, tokens.staff.accessToken, other.location.id, { roomType: 'cattery', species: ['cat'] });
  const off = await room(t, tokens.staff.accessToken, other.location.id, { roomType: 'cattery', species: ['cat'] });
  await t.request('PATCH', `/v1/boarding/rooms/${off.id}`, { token: tokens.staff.accessToken, body: { active: false } });
  const ids = async (query: string) =>
    (
      (await t.request('GET', `/v1/boarding/rooms?locationId=${other.location.id}${query}`, { token: tokens.reader.accessToken })).body.data as Array<{
        id: string;
      }>
    ).map((r) => r.id);
  a.deepEqual(await ids(''), [off.id, cattery.id, std.id]);
  a.deepEqual(await ids('&roomType=cattery'), [off.id, cattery.id]);
  a.deepEqual(await ids('&active=true'), [cattery.id, std.id]);
  a.deepEqual(await ids('&active=false'), [off.id]);
  const bad = await t.request('GET', '/v1/boarding/rooms?active=maybe', { token: tokens.reader.accessToken });
  assertProblem(a, bad, 400, 'validation_failed');
});

test('validation: 400 naming the field, nothing written', async (a) => {
  const base = { locationId: s.location.id, name: 'Never', roomType: 'standard', capacity: 1, species: ['dog'], nightlyRate: 100 };
  for (const [body, field] of [
    [{ ...base, capacity: 0 }, 'capacity'],
    [{ ...base, nightlyRate: -1 }, 'nightlyRate'],
    [{ ...base, nightlyRate: 1.5 }, 'nightlyRate'],
    [{ ...base, species: [] }, 'species'],
    [{ ...base, species: ['dragon'] }, 'species[0]'],
    [{ ...base, roomType: 'Big Room' }, 'roomType'],
    [{ ...base, name: ' ' }, 'name'],
    [{ ...base, currency: 'USD' }, 'currency'],
    [{ ...base, extra: 1 }, 'extra'],
  ] as const) {
    const res = await t.request('POST', '/v1/boarding/rooms', { token: tokens.staff.accessToken, body });
    assertProblem(a, res, 400, 'validation_failed');
    a.deepEqual(fieldsOf(res), [field], JSON.stringify(body));
  }
  const missing = await t.request('POST', '/v1/boarding/rooms', { token: tokens.staff.accessToken, body: { ...base, locationId: 'loc_nowhere' } });
  assertProblem(a, missing, 400, 'resource_missing');
  const written = await t.stores.get('live').db.selectFrom('boarding_rooms').select('id').where('name', '=', 'Never').execute();
  a.is(written.length, 0);
  const patch = await t.request('PATCH', `/v1/boarding/rooms/${(await room(t, tokens.staff.accessToken, s.location.id)).id}`, {
    token: tokens.staff.accessToken,
    body: {},
  });
  assertProblem(a, patch, 400, 'validation_failed');
});

test('401 without a token, 403 without the bookings scope or with read only; another location’s client gets 404', async (a) => {
  const r = await room(t, tokens.staff.accessToken, s.location.id);
  assertProblem(a, await t.request('GET', '/v1/boarding/rooms', {}), 401, 'unauthorized');
  const petsOnly = await t.client({ role: 'staff', scopes: ['pets'] });
  assertProblem(a, await t.request('GET', '/v1/boarding/rooms', { token: petsOnly.accessToken }), 403, 'insufficient_scope');
  assertProblem(
    a,
    await t.request('PATCH', `/v1/boarding/rooms/${r.id}`, { token: tokens.reader.accessToken, body: { name: 'x' } }),
    403,
    'insufficient_scope',
  );

  const elsewhere = await site(t);
  const scoped = await scopedClient(t, [elsewhere.location.id]);
  assertProblem(a, await t.request('GET', `/v1/boarding/rooms/${r.id}`, { token: scoped.accessToken }), 404, 'not_found');
  assertProblem(a, await t.request('PATCH', `/v1/boarding/rooms/${r.id}`, { token: scoped.accessToken, body: { name: 'x' } }), 404, 'not_found');
  const list = await t.request('GET', '/v1/boarding/rooms', { token: scoped.accessToken });
  a.false((list.body.data as Array<{ id: string }>).some((x) => x.id === r.id));
  const create = await t.request('POST', '/v1/boarding/rooms', {
    token: scoped.accessToken,
    body: { locationId: s.location.id, name: 'R', roomType: 'standard', capacity: 1, species: ['dog'], nightlyRate: 100 },
  });
  assertProblem(a, create, 400, 'resource_missing');
});

test('Idempotency-Key replays the create and the patch', async (a) => {
  const body = { locationId: s.location.id, name: 'Replay', roomType: 'standard', capacity: 1, species: ['dog'], nightlyRate: 100 };
  const first = await t.request('POST', '/v1/boarding/rooms', { token: tokens.staff.accessToken, body, idempotencyKey: 'room-create-1' });
  const again = await t.request('POST', '/v1/boarding/rooms', { token: tokens.staff.accessToken, body, idempotencyKey: 'room-create-1' });
  a.is(again.status, 201);
  a.is(again.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(again.body, first.body);
  const rows = await t.stores.get('live').db.selectFrom('boarding_rooms').select('id').where('name', '=', 'Replay').execute();
  a.is(rows.length, 1);
  const p1 = await t.request('PATCH', `/v1/boarding/rooms/${first.body.id}`, {
    token: tokens.staff.accessToken,
    body: { capacity: 4 },
    idempotencyKey: 'room-patch-1',
  });
  const p2 = await t.request('PATCH', `/v1/boarding/rooms/${first.body.id}`, {
    token: tokens.staff.accessToken,
    body: { capacity: 4 },
    idempotencyKey: 'room-patch-1',
  });
  a.is(p2.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(p2.body, p1.body);
});
