import test from 'ava';
import { createLocation } from '../helpers/factories.js';
import { type TokenSet, useTestApp } from '../helpers/test-app.js';

const locationKeys = ['id', 'name', 'timezone', 'currency', 'taxRateBps', 'boardingRequiredVaccines', 'createdAt', 'updatedAt'].sort();

// Tests that compare table-wide counts or move the clock run serially (AVA runs them before concurrent ones).
let admin: string;
let adminReader: TokenSet; // admin role, admin.read only
let staff: TokenSet; // staff with pets
let doctor: TokenSet;
let locA: { id: string; name: string };
let locB: { id: string; name: string };
let scopedAdmin: TokenSet; // admin role, all admin scope, location A only

const t = useTestApp(test);
test.before(async () => {
  admin = await t.adminToken();
  locA = await createLocation(t, { name: 'Alpha Clinic', timezone: 'Europe/London' });
  locB = await createLocation(t, { name: 'Beta Clinic', timezone: 'America/New_York' });
  [adminReader, staff, doctor, scopedAdmin] = await Promise.all([
    t.client({ name: 'auditor', role: 'admin', scopes: ['admin.read'] }),
    t.client({ name: 'staff', role: 'staff', scopes: ['pets', 'bookings'] }),
    t.client({ name: 'doctor', role: 'doctor', scopes: ['pets', 'medical'] }),
    t.client({ name: 'site admin', role: 'admin', scopes: ['admin', 'pets'], locationIds: [locA.id] }),
  ]);
});

const db = () => t.stores.get('live').db;
const countLocations = async () => (await db().selectFrom('locations').select('id').execute()).length;

// ---------------------------------------------------------------- happy path

test('POST /v1/locations creates a location; GET returns exactly id, name, timezone, currency, taxRateBps, boardingRequiredVaccines, createdAt, updatedAt', async (a) => {
  const created = await t.request('POST', '/v1/locations', { token: admin, body: { name: 'Gamma Grooming', timezone: 'Asia/Tokyo' } });
  a.is(created.status, 201, created.text);
  a.regex(created.body.id, /^loc_[a-z0-9]{26}$/);
  const res = await t.request('GET', `/v1/locations/${created.body.id}`, { token: admin });
  a.is(res.status, 200);
  a.deepEqual(Object.keys(res.body).sort(), locationKeys);
  const at = new Date(t.clock.now()).toISOString();
  a.deepEqual(res.body, {
    id: created.body.id,
    name: 'Gamma Grooming',
    timezone: 'Asia/Tokyo',
    currency: 'USD',
    taxRateBps: 0,
    boardingRequiredVaccines: {},
    createdAt: at,
    updatedAt: at,
  });
  a.deepEqual(created.body, res.body);
  const row = await db().selectFrom('locations').selectAll().where('id', '=', created.body.id).executeTakeFirstOrThrow();
  a.is(row.tenant_id, t.tenantId);
});

test('an admin.read client may read locations but not write them', async (a) => {
  a.is((await t.request('GET', `/v1/locations/${locA.id}`, { token: adminReader.accessToken })).status, 200);
  a.is((await t.request('GET', '/v1/locations', { token: adminReader.accessToken })).status, 200);
  const create = await t.request('POST', '/v1/locations', { token: adminReader.accessToken, body: { name: 'No', timezone: 'UTC' } });
  a.is(create.status, 403);
  a.is(create.body.code, 'insufficient_scope');
  const patch = await t.request('PATCH', `/v1/locations/${locA.id}`, { token: adminReader.accessToken, body: { name: 'No' } });
  a.is(patch.status, 403);
  a.is((await db().selectFrom('locations').select('name').where('id', '=', locA.id).executeTakeFirstOrThrow()).name, 'Alpha Clinic');
});

test('GET /v1/locations/:id for an unknown id: 404', async (a) => {
  const res = await t.request('GET', '/v1/locations/loc_nowhere', { token: admin });
  a.is(res.status, 404);
  a.is(res.body.code, 'not_found');
});

// ---------------------------------------------------------------- time zones

test('IANA time zones are accepted, including multi-part names, Etc zones and UTC', async (a) => {
  for (const timezone of [
    'America/New_York',
    'Europe/London',
    'Australia/Lord_Howe',
    'America/Argentina/Buenos_Aires',
    'Etc/GMT+5',
    'UTC',
    'Pacific/Chatham',
  ]) {
    const res = await t.request('POST', '/v1/locations', { token: admin, body: { name: `Zone ${timezone}`, timezone } });
    a.is(res.status, 201, `${timezone}: ${res.text}`);
    a.is(res.body.timezone, timezone);
  }
});

test('a time zone written in another letter case is stored in its IANA spelling', async (a) => {
  const res = await t.request('POST', '/v1/locations', { token: admin, body: { name: 'Lower case zone', timezone: 'europe/london' } });
  a.is(res.status, 201, res.text);
  a.is(res.body.timezone, 'Europe/London');
  const utc = await t.request('POST', '/v1/locations', { token: admin, body: { name: 'Lower utc', timezone: 'utc' } });
  a.is(utc.status, 201);
  a.is(utc.body.timezone, 'UTC');
});

test.serial('names that are not IANA time zones answer 400 on the timezone field; nothing is written', async (a) => {
  const before = await countLocations();
  for (const timezone of ['Mars/Olympus_Mons', 'Europe/Londn', 'Europe/London ', '+05:00', 'GMT+1', 'EST', 'local', 'Europe', '', 'x'.repeat(65), 3600, null]) {
    const res = await t.request('POST', '/v1/locations', { token: admin, body: { name: 'Bad zone', timezone } });
    a.is(res.status, 400, `${JSON.stringify(timezone)}: ${res.text}`);
    a.is(res.body.code, 'validation_failed');
    a.deepEqual(
      res.body.errors.map((e: { field: string }) => e.field),
      ['timezone'],
      JSON.stringify(timezone),
    );
  }
  const patch = await t.request('PATCH', `/v1/locations/${locA.id}`, { token: admin, body: { timezone: 'Atlantis/Capital' } });
  a.is(patch.status, 400);
  a.deepEqual(
    patch.body.errors.map((e: { field: string }) => e.field),
    ['timezone'],
  );
  a.is(await countLocations(), before);
  a.is((await db().selectFrom('locations').select('timezone').where('id', '=', locA.id).executeTakeFirstOrThrow()).timezone, 'Europe/London');
});

// ---------------------------------------------------------------- validation and mass assignment

test.serial('POST /v1/locations: missing or invalid name, server-owned and unknown fields answer 400', async (a) => {
  const before = await countLocations();
  const missing = await t.request('POST', '/v1/locations', { token: admin, body: {} });
  a.is(missing.status, 400);
  a.deepEqual(missing.body.errors.map((e: { field: string }) => e.field).sort(), ['name', 'timezone']);
  for (const name of ['', ' ', 'x'.repeat(201), 7]) {
    const res = await t.request('POST', '/v1/locations', { token: admin, body: { name, timezone: 'UTC' } });
    a.is(res.status, 400);
    a.deepEqual(
      res.body.errors.map((e: { field: string }) => e.field),
      ['name'],
    );
  }
  for (const [field, value] of Object.entries({
    id: 'loc_forged',
    tenantId: 'ten_x',
    createdAt: '2000-01-01T00:00:00Z',
    updatedAt: '2000-01-01T00:00:00Z',
    address: 'Main St',
  })) {
    const res = await t.request('POST', '/v1/locations', { token: admin, body: { name: 'Forged', timezone: 'UTC', [field]: value } });
    a.is(res.status, 400, field);
    a.deepEqual(res.body.errors, [{ field, message: 'is not a recognised field' }]);
  }
  a.is(await countLocations(), before);
  a.is(await db().selectFrom('locations').select('id').where('id', '=', 'loc_forged').executeTakeFirst(), undefined);
});

// ---------------------------------------------------------------- PATCH

test.serial('PATCH /v1/locations/:id updates name and timezone and updatedAt', async (a) => {
  const loc = await createLocation(t, { name: 'Patch me', timezone: 'UTC' });
  const before = await t.request('GET', `/v1/locations/${loc.id}`, { token: admin });
  t.clock.advance(45_000);
  const res = await t.request('PATCH', `/v1/locations/${loc.id}`, { token: admin, body: { name: 'Patched', timezone: 'Europe/Paris' } });
  a.is(res.status, 200, res.text);
  a.deepEqual(Object.keys(res.body).sort(), locationKeys);
  a.like(res.body, { id: loc.id, name: 'Patched', timezone: 'Europe/Paris', createdAt: before.body.createdAt });
  a.is(res.body.updatedAt, new Date(t.clock.now()).toISOString());
  const one = await t.request('PATCH', `/v1/locations/${loc.id}`, { token: admin, body: { name: 'Only name' } });
  a.is(one.body.timezone, 'Europe/Paris');
  a.is((await t.request('PATCH', `/v1/locations/${loc.id}`, { token: admin, body: {} })).status, 400);
  a.is((await t.request('PATCH', `/v1/locations/${loc.id}`, { token: admin, body: { id: 'loc_x' } })).status, 400);
  a.is((await t.request('PATCH', '/v1/locations/loc_ghost', { token: admin, body: { name: 'x' } })).status, 404);
});

// ---------------------------------------------------------------- auth

test('401 without a token; 403 for staff and doctor clients (admin only)', async (a) => {
  for (const [method, path, body] of [
    ['GET', '/v1/locations', undefined],
    ['GET', `/v1/locations/${locA.id}`, undefined],
    ['POST', '/v1/locations', { name: 'x', timezone: 'UTC' }],
    ['PATCH', `/v1/locations/${locA.id}`, { name: 'x' }],
  ] as const) {
    const none = await t.request(method, path, body ? { body } : {});
    a.is(none.status, 401, `${method} ${path}`);
    for (const client of [staff, doctor]) {
      const res = await t.request(method, path, { token: client.accessToken, ...(body ? { body } : {}) });
      a.is(res.status, 403, `${method} ${path}`);
      a.is(res.body.code, 'insufficient_scope');
    }
  }
  a.is((await db().selectFrom('locations').select('name').where('id', '=', locA.id).executeTakeFirstOrThrow()).name, 'Alpha Clinic');
});

// ---------------------------------------------------------------- location scoping

test('a location-scoped admin sees only its own location: 404 for others, lists exclude them', async (a) => {
  a.is((await t.request('GET', `/v1/locations/${locA.id}`, { token: scopedAdmin.accessToken })).status, 200);
  const other = await t.request('GET', `/v1/locations/${locB.id}`, { token: scopedAdmin.accessToken });
  a.is(other.status, 404);
  a.is(other.body.code, 'not_found');
  const list = await t.request('GET', '/v1/locations?limit=100', { token: scopedAdmin.accessToken });
  a.is(list.status, 200);
  a.deepEqual(
    list.body.data.map((l: { id: string }) => l.id),
    [locA.id],
  );
  const patch = await t.request('PATCH', `/v1/locations/${locB.id}`, { token: scopedAdmin.accessToken, body: { name: 'Taken over' } });
  a.is(patch.status, 404);
  a.is((await db().selectFrom('locations').select('name').where('id', '=', locB.id).executeTakeFirstOrThrow()).name, 'Beta Clinic');
});

test('a location-scoped admin may rename its own location but cannot create locations (403)', async (a) => {
  const own = await t.request('PATCH', `/v1/locations/${locA.id}`, { token: scopedAdmin.accessToken, body: { timezone: 'Europe/London' } });
  a.is(own.status, 200);
  const create = await t.request('POST', '/v1/locations', { token: scopedAdmin.accessToken, body: { name: 'Empire', timezone: 'UTC' } });
  a.is(create.status, 403);
  a.is(create.body.code, 'forbidden_role');
  a.is((await db().selectFrom('locations').select('id').where('name', '=', 'Empire').execute()).length, 0);
});

// ---------------------------------------------------------------- lists

test.serial('GET /v1/locations: newest first with cursor paging', async (a) => {
  const made: string[] = [];
  for (let i = 0; i < 4; i++) {
    t.clock.advance(1000);
    made.push((await createLocation(t, { name: `Paged ${i}` })).id);
  }
  const first = await t.request('GET', '/v1/locations?limit=2', { token: admin });
  a.is(first.status, 200);
  a.deepEqual(Object.keys(first.body).sort(), ['data', 'hasMore', 'nextCursor']);
  a.deepEqual(
    first.body.data.map((l: { id: string }) => l.id),
    [made[3], made[2]],
  );
  a.true(first.body.hasMore);
  for (const l of first.body.data) a.deepEqual(Object.keys(l).sort(), locationKeys);
  const second = await t.request('GET', `/v1/locations?limit=2&cursor=${first.body.nextCursor}`, { token: admin });
  a.deepEqual(
    second.body.data.map((l: { id: string }) => l.id),
    [made[1], made[0]],
  );
  a.is((await t.request('GET', '/v1/locations?limit=0', { token: admin })).status, 400);
  a.is((await t.request('GET', '/v1/locations?name=x', { token: admin })).status, 400);
});

test('live and sandbox locations are separate: each admin sees only its own environment', async (a) => {
  const sandboxAdmin = await t.adminToken('sandbox');
  const live = await t.request('GET', '/v1/locations?limit=100', { token: admin });
  const sandbox = await t.request('GET', '/v1/locations?limit=100', { token: sandboxAdmin });
  const liveIds = live.body.data.map((l: { id: string }) => l.id);
  const sandboxIds = sandbox.body.data.map((l: { id: string }) => l.id);
  a.false(liveIds.includes('loc_demo_downtown'));
  a.true(sandboxIds.includes('loc_demo_downtown'));
  a.false(sandboxIds.includes(locA.id));
  a.is((await t.request('GET', `/v1/locations/${locA.id}`, { token: sandboxAdmin })).status, 404);
  a.is((await t.request('GET', '/v1/locations/loc_demo_downtown', { token: admin })).status, 404);
});

// ---------------------------------------------------------------- idempotency and events

test('Idempotency-Key on POST /v1/locations creates one location', async (a) => {
  const body = { name: 'Idempotent Clinic', timezone: 'Europe/Berlin' };
  const first = await t.request('POST', '/v1/locations', { token: admin, body, idempotencyKey: 'loc-once' });
  const replay = await t.request('POST', '/v1/locations', { token: admin, body, idempotencyKey: 'loc-once' });
  a.is(first.status, 201);
  a.is(replay.status, 201);
  a.is(replay.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(replay.body, first.body);
  a.is((await db().selectFrom('locations').select('id').where('name', '=', 'Idempotent Clinic').execute()).length, 1);
  const mismatch = await t.request('POST', '/v1/locations', { token: admin, body: { ...body, timezone: 'UTC' }, idempotencyKey: 'loc-once' });
  a.is(mismatch.status, 422);
});

test.serial('location writes emit no webhook event', async (a) => {
  const before = (await db().selectFrom('events').select('id').execute()).length;
  const loc = await createLocation(t);
  await t.request('PATCH', `/v1/locations/${loc.id}`, { token: admin, body: { name: 'Quiet' } });
  a.is((await db().selectFrom('events').select('id').execute()).length, before);
});

test('Idempotency-Key on PATCH /v1/locations/:id replays the first answer; another body with the key answers 422', async (a) => {
  const location = await createLocation(t, { name: 'Patch once' });
  const first = await t.request('PATCH', `/v1/locations/${location.id}`, { token: admin, body: { name: 'Renamed once' }, idempotencyKey: 'loc-patch-once' });
  a.is(first.status, 200, first.text);
  // A later change by someone else must not show through a replay of the first answer.
  a.is((await t.request('PATCH', `/v1/locations/${location.id}`, { token: admin, body: { name: 'Renamed again' } })).status, 200);
  const replay = await t.request('PATCH', `/v1/locations/${location.id}`, { token: admin, body: { name: 'Renamed once' }, idempotencyKey: 'loc-patch-once' });
  a.is(replay.status, 200);
  a.is(replay.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(replay.body, first.body);
  a.is((await db().selectFrom('locations').select('name').where('id', '=', location.id).executeTakeFirstOrThrow()).name, 'Renamed again');
  const mismatch = await t.request('PATCH', `/v1/locations/${location.id}`, { token: admin, body: { name: 'Other' }, idempotencyKey: 'loc-patch-once' });
  a.is(mismatch.status, 422);
  a.is(mismatch.body.code, 'idempotency_key_mismatch');
});
