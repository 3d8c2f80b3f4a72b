import test from 'ava';
import { createLocation, createPetParent } from '../helpers/factories.js';
import { type TokenSet, useTestApp } from '../helpers/test-app.js';

const parentKeys = ['id', 'name', 'email', 'phone', 'locationId', 'reminderConsent', 'createdAt', 'updatedAt', 'externalId'].sort();

// Tests that compare table-wide counts or move the clock run serially (AVA runs them before concurrent ones).
let admin: string;
let staff: TokenSet; // pets
let reader: TokenSet; // pets.read
let noPets: TokenSet; // doctor with medical only
let scopedA: TokenSet; // pets, location A
let locA: { id: string };
let locB: { id: string };

const t = useTestApp(test);
test.before(async () => {
  admin = await t.adminToken();
  locA = await createLocation(t, { name: 'Parents A' });
  locB = await createLocation(t, { name: 'Parents B' });
  [staff, reader, noPets, scopedA] = await Promise.all([
    t.client({ name: 'staff', role: 'staff', scopes: ['pets'] }),
    t.client({ name: 'reader', role: 'staff', scopes: ['pets.read'] }),
    t.client({ name: 'doctor', role: 'doctor', scopes: ['medical'] }),
    t.client({ name: 'A only', role: 'staff', scopes: ['pets'], locationIds: [locA.id] }),
  ]);
});

const db = () => t.stores.get('live').db;
const countParents = async () => (await db().selectFrom('pet_parents').select('id').execute()).length;

// ---------------------------------------------------------------- happy path

test('POST /v1/pet-parents creates a parent; GET returns exactly the documented fields', async (a) => {
  const created = await t.request('POST', '/v1/pet-parents', {
    token: staff.accessToken,
    body: { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0018', locationId: locA.id, reminderConsent: true },
  });
  a.is(created.status, 201, created.text);
  a.regex(created.body.id, /^usr_[a-z0-9]{26}$/);
  const res = await t.request('GET', `/v1/pet-parents/${created.body.id}`, { token: reader.accessToken });
  a.is(res.status, 200);
  a.deepEqual(Object.keys(res.body).sort(), parentKeys);
  a.deepEqual(res.body, {
    id: created.body.id,
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    phone: '+44 20 7946 0018',
    locationId: locA.id,
    reminderConsent: true,
    createdAt: new Date(t.clock.now()).toISOString(),
    updatedAt: new Date(t.clock.now()).toISOString(),
    externalId: null,
  });
  a.deepEqual(created.body, res.body);
  const row = await db().selectFrom('pet_parents').selectAll().where('id', '=', created.body.id).executeTakeFirstOrThrow();
  a.is(row.tenant_id, t.tenantId);
  a.is(row.reminder_consent, 1);
});

test('optional fields default: email and phone null, reminderConsent false', async (a) => {
  const res = await t.request('POST', '/v1/pet-parents', { token: staff.accessToken, body: { name: 'Minimal', locationId: locA.id } });
  a.is(res.status, 201, res.text);
  a.is(res.body.email, null);
  a.is(res.body.phone, null);
  a.is(res.body.reminderConsent, false);
});

test('GET /v1/pet-parents/:id for an unknown id: 404', async (a) => {
  const res = await t.request('GET', '/v1/pet-parents/usr_nobody', { token: admin });
  a.is(res.status, 404);
  a.is(res.body.code, 'not_found');
});

// ---------------------------------------------------------------- validation and mass assignment

test.serial('POST /v1/pet-parents: invalid fields answer 400 naming the field; nothing is written', async (a) => {
  const before = await countParents();
  const base = { name: 'Valid', locationId: locA.id };
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ name: '' }, 'name'],
    [{ name: '  ' }, 'name'],
    [{ name: 'x'.repeat(201) }, 'name'],
    [{ email: 'not-an-email' }, 'email'],
    [{ email: 'a b@example.com' }, 'email'],
    [{ email: 42 }, 'email'],
    [{ phone: 'call me' }, 'phone'],
    [{ phone: '12' }, 'phone'],
    [{ locationId: 'downtown' }, 'locationId'],
    [{ reminderConsent: 'yes' }, 'reminderConsent'],
  ];
  for (const [patch, field] of cases) {
    const res = await t.request('POST', '/v1/pet-parents', { token: staff.accessToken, body: { ...base, ...patch } });
    a.is(res.status, 400, JSON.stringify(patch));
    a.is(res.body.code, 'validation_failed');
    a.deepEqual(
      res.body.errors.map((e: { field: string }) => e.field),
      [field],
      JSON.stringify(patch),
    );
  }
  const empty = await t.request('POST', '/v1/pet-parents', { token: staff.accessToken, body: {} });
  a.is(empty.status, 400);
  a.deepEqual(empty.body.errors.map((e: { field: string }) => e.field).sort(), ['locationId', 'name']);
  a.is(await countParents(), before);
});

test.serial('POST /v1/pet-parents: server-owned and unknown fields are refused', async (a) => {
  const before = await countParents();
  for (const [field, value] of Object.entries({
    id: 'usr_forged',
    tenantId: 'ten_x',
    createdAt: '2000-01-01T00:00:00Z',
    updatedAt: '2000-01-01T00:00:00Z',
    pets: [],
    role: 'admin',
  })) {
    const res = await t.request('POST', '/v1/pet-parents', { token: admin, body: { name: 'Forger', locationId: locA.id, [field]: value } });
    a.is(res.status, 400, field);
    a.deepEqual(res.body.errors, [{ field, message: 'is not a recognised field' }]);
  }
  a.is(await countParents(), before);
});

test('POST /v1/pet-parents: a location that does not exist answers 400 resource_missing', async (a) => {
  const res = await t.request('POST', '/v1/pet-parents', { token: admin, body: { name: 'Lost', locationId: 'loc_nowhere' } });
  a.is(res.status, 400);
  a.is(res.body.code, 'resource_missing');
  a.deepEqual(
    res.body.errors.map((e: { field: string }) => e.field),
    ['locationId'],
  );
  // A sandbox location is not visible from live.
  const sandbox = await t.request('POST', '/v1/pet-parents', { token: admin, body: { name: 'Lost', locationId: 'loc_demo_downtown' } });
  a.is(sandbox.status, 400);
  a.is(sandbox.body.code, 'resource_missing');
});

// ---------------------------------------------------------------- PATCH

test.serial('PATCH /v1/pet-parents/:id updates fields and updatedAt; null clears email and phone', async (a) => {
  const parent = await createPetParent(t, locA.id, { name: 'Before', phone: '+1 555 0199' });
  const before = await t.request('GET', `/v1/pet-parents/${parent.id}`, { token: admin });
  t.clock.advance(30_000);
  const res = await t.request('PATCH', `/v1/pet-parents/${parent.id}`, {
    token: staff.accessToken,
    body: { name: 'After', email: null, phone: null, reminderConsent: false, locationId: locB.id },
  });
  a.is(res.status, 200, res.text);
  a.deepEqual(Object.keys(res.body).sort(), parentKeys);
  a.like(res.body, { name: 'After', email: null, phone: null, reminderConsent: false, locationId: locB.id, createdAt: before.body.createdAt });
  a.is(res.body.updatedAt, new Date(t.clock.now()).toISOString());
  a.true(res.body.updatedAt > before.body.updatedAt);
  a.deepEqual((await t.request('GET', `/v1/pet-parents/${parent.id}`, { token: admin })).body, res.body);
});

test('PATCH /v1/pet-parents/:id: empty body, unknown and server-owned fields, bad location', async (a) => {
  const parent = await createPetParent(t, locA.id, { name: 'Steady' });
  const empty = await t.request('PATCH', `/v1/pet-parents/${parent.id}`, { token: admin, body: {} });
  a.is(empty.status, 400);
  const owned = await t.request('PATCH', `/v1/pet-parents/${parent.id}`, { token: admin, body: { createdAt: '2000-01-01T00:00:00Z' } });
  a.is(owned.status, 400);
  a.deepEqual(owned.body.errors, [{ field: 'createdAt', message: 'is not a recognised field' }]);
  const loc = await t.request('PATCH', `/v1/pet-parents/${parent.id}`, { token: admin, body: { name: 'Moved', locationId: 'loc_ghost' } });
  a.is(loc.status, 400);
  a.is(loc.body.code, 'resource_missing');
  const missing = await t.request('PATCH', '/v1/pet-parents/usr_ghost', { token: admin, body: { name: 'x' } });
  a.is(missing.status, 404);
  const row = await db().selectFrom('pet_parents').selectAll().where('id', '=', parent.id).executeTakeFirstOrThrow();
  a.is(row.name, 'Steady');
  a.is(row.location_id, locA.id);
});

// ---------------------------------------------------------------- auth

test('401 without a token; 403 for writes with pets.read and for any call without a pets scope', async (a) => {
  const parent = await createPetParent(t, locA.id, { name: 'Guarded' });
  const none = await t.request('GET', `/v1/pet-parents/${parent.id}`);
  a.is(none.status, 401);
  a.regex(none.headers.get('www-authenticate') ?? '', /^Bearer/);
  a.is((await t.request('POST', '/v1/pet-parents', { body: { name: 'x', locationId: locA.id } })).status, 401);
  a.is((await t.request('GET', '/v1/pet-parents')).status, 401);

  const create = await t.request('POST', '/v1/pet-parents', { token: reader.accessToken, body: { name: 'Nope', locationId: locA.id } });
  a.is(create.status, 403);
  a.is(create.body.code, 'insufficient_scope');
  const patch = await t.request('PATCH', `/v1/pet-parents/${parent.id}`, { token: reader.accessToken, body: { name: 'Nope' } });
  a.is(patch.status, 403);
  a.is((await t.request('GET', `/v1/pet-parents/${parent.id}`, { token: reader.accessToken })).status, 200);

  a.is((await t.request('GET', `/v1/pet-parents/${parent.id}`, { token: noPets.accessToken })).status, 403);
  a.is((await t.request('GET', '/v1/pet-parents', { token: noPets.accessToken })).status, 403);
  a.is((await db().selectFrom('pet_parents').select('name').where('id', '=', parent.id).executeTakeFirstOrThrow()).name, 'Guarded');
  a.is((await db().selectFrom('pet_parents').select('id').where('name', '=', 'Nope').execute()).length, 0);
});

// ---------------------------------------------------------------- location scoping

test('a client scoped to A: 404 for a parent in B, lists exclude B, cannot create in or move to B', async (a) => {
  const inA = await createPetParent(t, locA.id, { name: 'Scoped in A', email: 'scoped-a@example.com' });
  const inB = await createPetParent(t, locB.id, { name: 'Scoped in B', email: 'scoped-b@example.com' });

  a.is((await t.request('GET', `/v1/pet-parents/${inA.id}`, { token: scopedA.accessToken })).status, 200);
  const hidden = await t.request('GET', `/v1/pet-parents/${inB.id}`, { token: scopedA.accessToken });
  a.is(hidden.status, 404);
  a.is(hidden.body.code, 'not_found');
  a.is((await t.request('PATCH', `/v1/pet-parents/${inB.id}`, { token: scopedA.accessToken, body: { name: 'Taken' } })).status, 404);

  const list = await t.request('GET', '/v1/pet-parents?limit=100', { token: scopedA.accessToken });
  const ids = list.body.data.map((p: { id: string }) => p.id);
  a.true(ids.includes(inA.id));
  a.false(ids.includes(inB.id));
  for (const p of list.body.data) a.is(p.locationId, locA.id);
  a.deepEqual((await t.request('GET', `/v1/pet-parents?email=scoped-b@example.com`, { token: scopedA.accessToken })).body.data, []);
  a.deepEqual((await t.request('GET', `/v1/pet-parents?locationId=${locB.id}`, { token: scopedA.accessToken })).body.data, []);

  const create = await t.request('POST', '/v1/pet-parents', { token: scopedA.accessToken, body: { name: 'Into B', locationId: locB.id } });
  a.is(create.status, 400);
  a.is(create.body.code, 'resource_missing');
  const move = await t.request('PATCH', `/v1/pet-parents/${inA.id}`, { token: scopedA.accessToken, body: { locationId: locB.id } });
  a.is(move.status, 400);
  a.is(move.body.code, 'resource_missing');

  const ok = await t.request('POST', '/v1/pet-parents', { token: scopedA.accessToken, body: { name: 'Into A', locationId: locA.id } });
  a.is(ok.status, 201);
  a.is((await db().selectFrom('pet_parents').select('name').where('id', '=', inB.id).executeTakeFirstOrThrow()).name, 'Scoped in B');
  a.is((await db().selectFrom('pet_parents').select('id').where('name', '=', 'Into B').execute()).length, 0);
});

// ---------------------------------------------------------------- lists

test('GET /v1/pet-parents: filters by locationId, exact case-insensitive email and name substring', async (a) => {
  const loc = await createLocation(t, { name: 'Filters' });
  const jane = await createPetParent(t, loc.id, { name: 'Jane Doe', email: 'Jane.Doe@Example.com' });
  const john = await createPetParent(t, loc.id, { name: 'John Doe', email: 'john@example.com' });
  const mary = await createPetParent(t, loc.id, { name: 'Mary Major', email: 'jane.doe@example.com.au' });
  const ids = async (query: string) => {
    const res = await t.request('GET', `/v1/pet-parents?${query}`, { token: reader.accessToken });
    a.is(res.status, 200, res.text);
    a.deepEqual(Object.keys(res.body).sort(), ['data', 'hasMore', 'nextCursor']);
    for (const p of res.body.data) a.deepEqual(Object.keys(p).sort(), parentKeys);
    return res.body.data.map((p: { id: string }) => p.id).sort();
  };
  a.deepEqual(await ids(`locationId=${loc.id}`), [jane.id, john.id, mary.id].sort());
  a.deepEqual(await ids(`email=${encodeURIComponent('jane.doe@example.com')}`), [jane.id]);
  a.deepEqual(await ids(`email=${encodeURIComponent('JANE.DOE@EXAMPLE.COM')}`), [jane.id]);
  a.deepEqual(await ids(`email=${encodeURIComponent('jane')}`), []);
  a.deepEqual(await ids(`locationId=${loc.id}&name=doe`), [jane.id, john.id].sort());
  a.deepEqual(await ids(`locationId=${loc.id}&name=MAJ`), [mary.id]);
  a.deepEqual(await ids(`locationId=${loc.id}&name=%25`), []);
});

test.serial('GET /v1/pet-parents: newest first, cursor paging, bad paging answers 400', async (a) => {
  const loc = await createLocation(t, { name: 'Paging' });
  const created: string[] = [];
  for (let i = 0; i < 5; i++) {
    t.clock.advance(1000);
    created.push((await createPetParent(t, loc.id, { name: `Paged ${i}` })).id);
  }
  const first = await t.request('GET', `/v1/pet-parents?locationId=${loc.id}&limit=2`, { token: admin });
  a.is(first.body.data.length, 2);
  a.true(first.body.hasMore);
  const second = await t.request('GET', `/v1/pet-parents?locationId=${loc.id}&limit=2&cursor=${first.body.nextCursor}`, { token: admin });
  const third = await t.request('GET', `/v1/pet-parents?locationId=${loc.id}&limit=2&cursor=${second.body.nextCursor}`, { token: admin });
  a.false(third.body.hasMore);
  a.is(third.body.nextCursor, null);
  a.deepEqual(
    [...first.body.data, ...second.body.data, ...third.body.data].map((p: { id: string }) => p.id),
    [...created].reverse(),
  );
  for (const q of ['limit=0', 'limit=500', 'cursor=!!', 'phone=1']) {
    a.is((await t.request('GET', `/v1/pet-parents?${q}`, { token: admin })).status, 400, q);
  }
});

// ---------------------------------------------------------------- idempotency and events

test('Idempotency-Key on POST /v1/pet-parents creates one parent; another body with the key answers 422', async (a) => {
  const loc = await createLocation(t, { name: 'Idempotent parents' });
  const body = { name: 'Once Only', locationId: loc.id, email: 'once@example.com' };
  const first = await t.request('POST', '/v1/pet-parents', { token: staff.accessToken, body, idempotencyKey: 'parent-once' });
  const replay = await t.request('POST', '/v1/pet-parents', { token: staff.accessToken, body, idempotencyKey: 'parent-once' });
  a.is(first.status, 201);
  a.is(replay.status, 201);
  a.is(replay.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(replay.body, first.body);
  const other = await t.request('POST', '/v1/pet-parents', { token: staff.accessToken, body: { ...body, name: 'Twice' }, idempotencyKey: 'parent-once' });
  a.is(other.status, 422);
  a.is(other.body.code, 'idempotency_key_mismatch');
  // The same key on another path is another request.
  const onPets = await t.request('POST', '/v1/pets', {
    token: staff.accessToken,
    body: { name: 'x', breed: 'x', species: 'dog', ownerId: first.body.id, locationId: loc.id },
    idempotencyKey: 'parent-once',
  });
  a.is(onPets.status, 422);
  const rows = await db().selectFrom('pet_parents').select('id').where('location_id', '=', loc.id).execute();
  a.deepEqual(
    rows.map((r) => r.id),
    [first.body.id],
  );
});

test.serial('pet parent writes emit no webhook event (none is in the catalogue)', async (a) => {
  const before = (await db().selectFrom('events').select('id').execute()).length;
  const parent = await createPetParent(t, locA.id);
  await t.request('PATCH', `/v1/pet-parents/${parent.id}`, { token: admin, body: { name: 'Renamed' } });
  a.is((await db().selectFrom('events').select('id').execute()).length, before);
});

test('Idempotency-Key on PATCH /v1/pet-parents/:id replays the first answer; another body with the key answers 422', async (a) => {
  const parent = await createPetParent(t, locA.id, {}, staff.accessToken);
  const first = await t.request('PATCH', `/v1/pet-parents/${parent.id}`, {
    token: staff.accessToken,
    body: { phone: '+1 555 0199' },
    idempotencyKey: 'parent-patch-once',
  });
  a.is(first.status, 200, first.text);
  const replay = await t.request('PATCH', `/v1/pet-parents/${parent.id}`, {
    token: staff.accessToken,
    body: { phone: '+1 555 0199' },
    idempotencyKey: 'parent-patch-once',
  });
  a.is(replay.status, 200);
  a.is(replay.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(replay.body, first.body);
  const mismatch = await t.request('PATCH', `/v1/pet-parents/${parent.id}`, {
    token: staff.accessToken,
    body: { phone: '+1 555 0100' },
    idempotencyKey: 'parent-patch-once',
  });
  a.is(mismatch.status, 422);
  a.is((await db().selectFrom('pet_parents').select('phone').where('id', '=', parent.id).executeTakeFirstOrThrow()).phone, '+1 555 0199');
});
