import test from 'ava';
import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import { type TokenSet, useTestApp } from '../helpers/test-app.js';

/** GET /v1/pets/:id: the seed's six fields plus ours, and nothing else. */
const petKeys = [
  'id',
  'name',
  'breed',
  'ownerId',
  'vaccinationStatus',
  'lastVisit',
  'species',
  'birthDate',
  'locationId',
  'createdAt',
  'updatedAt',
  'size',
  'externalId',
];
const isoUtc = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

// Tests that compare table-wide counts run serially (AVA runs serial tests before concurrent ones).
let admin: string;
let reader: TokenSet; // staff, pets.read only
let staff: TokenSet; // staff, pets
let doctor: TokenSet; // doctor without the pets scope

const t = useTestApp(test);
test.before(async () => {
  admin = await t.adminToken();
  [reader, staff, doctor] = await Promise.all([
    t.client({ name: 'reader', role: 'staff', scopes: ['pets.read'] }),
    t.client({ name: 'front desk', role: 'staff', scopes: ['pets'] }),
    t.client({ name: 'doctor without pets', role: 'doctor', scopes: ['medical'] }),
  ]);
});

const db = () => t.stores.get('live').db;
const countPets = async () =>
  Number(
    (
      await db()
        .selectFrom('pets')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

async function household() {
  const location = await createLocation(t);
  const parent = await createPetParent(t, location.id);
  return { location, parent };
}

// ---------------------------------------------------------------- happy path and shape

test('POST /v1/pets creates a pet and GET /v1/pets/:id returns exactly the documented fields', async (a) => {
  const { location, parent } = await household();
  const created = await t.request('POST', '/v1/pets', {
    token: staff.accessToken,
    body: { name: 'Rex', breed: 'Beagle', species: 'dog', ownerId: parent.id, locationId: location.id, birthDate: '2021-04-12' },
  });
  a.is(created.status, 201, created.text);
  a.regex(created.headers.get('content-type') ?? '', /application\/json/);
  a.regex(created.body.id, /^pet_[a-z0-9]{26}$/);

  const res = await t.request('GET', `/v1/pets/${created.body.id}`, { token: reader.accessToken });
  a.is(res.status, 200);
  a.deepEqual(Object.keys(res.body).sort(), [...petKeys].sort());
  // The seed's six fields come first, in the seed's order.
  a.deepEqual(Object.keys(res.body).slice(0, 6), petKeys.slice(0, 6));
  const now = new Date(t.clock.now()).toISOString();
  a.deepEqual(res.body, {
    id: created.body.id,
    name: 'Rex',
    breed: 'Beagle',
    ownerId: parent.id,
    vaccinationStatus: 'No records',
    lastVisit: null,
    species: 'dog',
    birthDate: '2021-04-12',
    locationId: location.id,
    createdAt: res.body.createdAt,
    updatedAt: res.body.updatedAt,
    size: null,
    externalId: null,
  });
  a.regex(res.body.createdAt, isoUtc);
  a.is(res.body.updatedAt, res.body.createdAt);
  a.true(res.body.createdAt <= now);
  a.deepEqual(created.body, res.body);
});

test('size is optional: set on POST, changed and cleared on PATCH, answered by GET; anything else is 400 on size', async (a) => {
  const { location, parent } = await household();
  const created = await t.request('POST', '/v1/pets', {
    token: staff.accessToken,
    body: { name: 'Bruno', breed: 'Newfoundland', species: 'dog', ownerId: parent.id, locationId: location.id, size: 'xlarge' },
  });
  a.is(created.status, 201, created.text);
  a.is(created.body.size, 'xlarge');
  a.is((await t.request('GET', `/v1/pets/${created.body.id}`, { token: reader.accessToken })).body.size, 'xlarge');
  const patched = await t.request('PATCH', `/v1/pets/${created.body.id}`, { token: staff.accessToken, body: { size: 'large' } });
  a.is(patched.status, 200, patched.text);
  a.is(patched.body.size, 'large');
  const listed = await t.request('GET', `/v1/pets?ownerId=${parent.id}`, { token: reader.accessToken });
  a.is(listed.body.data.find((p: { id: string }) => p.id === created.body.id).size, 'large');
  const cleared = await t.request('PATCH', `/v1/pets/${created.body.id}`, { token: staff.accessToken, body: { size: null } });
  a.is(cleared.body.size, null);
  const bad = await t.request('POST', '/v1/pets', {
    token: staff.accessToken,
    body: { name: 'Tiny', breed: 'Chihuahua', species: 'dog', ownerId: parent.id, locationId: location.id, size: 'huge' },
  });
  a.is(bad.status, 400);
  a.true(
    bad.body.errors.some((e: { field: string }) => e.field === 'size'),
    bad.text,
  );
  const badPatch = await t.request('PATCH', `/v1/pets/${created.body.id}`, { token: staff.accessToken, body: { size: 'XL' } });
  a.is(badPatch.status, 400);
  a.true(
    badPatch.body.errors.some((e: { field: string }) => e.field === 'size'),
    badPatch.text,
  );
  a.is((await t.request('GET', `/v1/pets/${created.body.id}`, { token: reader.accessToken })).body.size, null);
});

test('the stored row carries the tenant and the creation time from the clock', async (a) => {
  const { location, parent } = await household();
  const pet = await createPet(t, parent.id, location.id, {}, staff.accessToken);
  const row = await db().selectFrom('pets').selectAll().where('id', '=', pet.id).executeTakeFirstOrThrow();
  a.is(row.tenant_id, t.tenantId);
  a.is(row.owner_id, parent.id);
  a.is(row.location_id, location.id);
  a.is(row.last_visit, null);
  a.is(row.birth_date, null);
  // Serial tests (which move the clock) have all finished before this concurrent one runs.
  a.is(row.created_at, new Date(t.clock.now()).toISOString());
  a.is(row.updated_at, row.created_at);
});

test('birthDate is optional and may be null', async (a) => {
  const { location, parent } = await household();
  const res = await t.request('POST', '/v1/pets', {
    token: staff.accessToken,
    body: { name: 'Tom', breed: 'Tabby', species: 'cat', ownerId: parent.id, locationId: location.id, birthDate: null },
  });
  a.is(res.status, 201, res.text);
  a.is(res.body.birthDate, null);
  a.is(res.body.species, 'cat');
});

test('GET /v1/pets/:id for an unknown id answers 404 problem+json', async (a) => {
  const res = await t.request('GET', '/v1/pets/pet_doesnotexist', { token: admin });
  a.is(res.status, 404);
  a.regex(res.headers.get('content-type') ?? '', /application\/problem\+json/);
  a.is(res.body.code, 'not_found');
  a.is(res.body.status, 404);
  a.is(res.body.type, 'urn:petcare:error:not_found');
  a.truthy(res.body.requestId);
});

// ---------------------------------------------------------------- validation

const validBody = (ownerId: string, locationId: string) => ({ name: 'Valid', breed: 'Mixed', species: 'dog', ownerId, locationId });

test.serial('POST /v1/pets: missing required fields are named in errors[]', async (a) => {
  const before = await countPets();
  const res = await t.request('POST', '/v1/pets', { token: staff.accessToken, body: {} });
  a.is(res.status, 400);
  a.is(res.body.code, 'validation_failed');
  const fields = (res.body.errors as { field: string; message: string }[]).map((e) => e.field).sort();
  a.deepEqual(fields, ['breed', 'locationId', 'name', 'ownerId', 'species']);
  for (const e of res.body.errors) a.is(e.message, 'is required');
  a.is(await countPets(), before);
});

test.serial('POST /v1/pets: wrong types and formats answer 400 with the field', async (a) => {
  const { location, parent } = await household();
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ name: '' }, 'name'],
    [{ name: '   ' }, 'name'],
    [{ name: 'x'.repeat(101) }, 'name'],
    [{ name: 42 }, 'name'],
    [{ name: null }, 'name'],
    [{ breed: '' }, 'breed'],
    [{ breed: ' \t ' }, 'breed'],
    [{ species: 'dragon' }, 'species'],
    [{ species: 'DOG' }, 'species'],
    [{ ownerId: 'pet_123' }, 'ownerId'],
    [{ ownerId: 'usr_UPPER' }, 'ownerId'],
    [{ locationId: 'nowhere' }, 'locationId'],
    [{ birthDate: '12/04/2021' }, 'birthDate'],
    [{ birthDate: '2021-02-30' }, 'birthDate'],
    [{ birthDate: '2999-01-01' }, 'birthDate'],
    [{ birthDate: 20210412 }, 'birthDate'],
  ];
  const before = await countPets();
  for (const [patch, field] of cases) {
    const res = await t.request('POST', '/v1/pets', { token: staff.accessToken, body: { ...validBody(parent.id, location.id), ...patch } });
    a.is(res.status, 400, `${JSON.stringify(patch)}: ${res.text}`);
    a.is(res.body.code, 'validation_failed');
    a.deepEqual(
      (res.body.errors as { field: string }[]).map((e) => e.field),
      [field],
      JSON.stringify(patch),
    );
  }
  a.is(await countPets(), before);
});

test('POST /v1/pets: a body that is not a JSON object is refused', async (a) => {
  const malformed = await t.request('POST', '/v1/pets', { token: staff.accessToken, rawBody: '{"name": ', headers: { 'content-type': 'application/json' } });
  a.is(malformed.status, 400);
  a.is(malformed.body.code, 'malformed_json');

  const array = await t.request('POST', '/v1/pets', { token: staff.accessToken, body: [] });
  a.is(array.status, 400);

  const text = await t.request('POST', '/v1/pets', { token: staff.accessToken, rawBody: 'name=Rex', headers: { 'content-type': 'text/plain' } });
  a.is(text.status, 415);
  a.is(text.body.code, 'unsupported_media_type');
});

// ---------------------------------------------------------------- mass assignment

test.serial('POST /v1/pets: server-owned and unknown fields are refused and nothing is written', async (a) => {
  const { location, parent } = await household();
  const before = await countPets();
  const eventsBefore = (await db().selectFrom('events').select('id').execute()).length;
  const forged: Record<string, unknown> = {
    id: 'pet_forged',
    tenantId: 'ten_other',
    tenant_id: 'ten_other',
    createdAt: '2000-01-01T00:00:00.000Z',
    updatedAt: '2000-01-01T00:00:00.000Z',
    vaccinationStatus: 'Up to date',
    lastVisit: '2026-01-01',
    last_visit: '2026-01-01',
    isAdmin: true,
  };
  for (const [field, value] of Object.entries(forged)) {
    const res = await t.request('POST', '/v1/pets', { token: admin, body: { ...validBody(parent.id, location.id), [field]: value } });
    a.is(res.status, 400, field);
    a.is(res.body.code, 'validation_failed');
    a.deepEqual(res.body.errors, [{ field, message: 'is not a recognised field' }], field);
  }
  a.is(await countPets(), before);
  a.is((await db().selectFrom('events').select('id').execute()).length, eventsBefore);
  a.is(await db().selectFrom('pets').select('id').where('id', '=', 'pet_forged').executeTakeFirst(), undefined);
});

test('PATCH /v1/pets/:id: server-owned fields are refused and the pet is unchanged', async (a) => {
  const { location, parent } = await household();
  const pet = await createPet(t, parent.id, location.id, { name: 'Unchanged' });
  const rowBefore = await db().selectFrom('pets').selectAll().where('id', '=', pet.id).executeTakeFirstOrThrow();
  for (const [field, value] of Object.entries({
    id: 'pet_other',
    tenantId: 'ten_x',
    createdAt: '2000-01-01T00:00:00.000Z',
    updatedAt: '2000-01-01T00:00:00.000Z',
    vaccinationStatus: 'Up to date',
    lastVisit: '2026-01-01',
  })) {
    const res = await t.request('PATCH', `/v1/pets/${pet.id}`, { token: admin, body: { name: 'Changed', [field]: value } });
    a.is(res.status, 400, field);
    a.deepEqual(res.body.errors, [{ field, message: 'is not a recognised field' }]);
  }
  a.deepEqual(await db().selectFrom('pets').selectAll().where('id', '=', pet.id).executeTakeFirstOrThrow(), rowBefore);
});

// ---------------------------------------------------------------- references the caller cannot see

test.serial('POST /v1/pets: an owner or location that does not exist answers 400 resource_missing', async (a) => {
  const { location, parent } = await household();
  const before = await countPets();
  const noOwner = await t.request('POST', '/v1/pets', { token: admin, body: validBody('usr_nobody', location.id) });
  a.is(noOwner.status, 400);
  a.is(noOwner.body.code, 'resource_missing');
  a.deepEqual(
    noOwner.body.errors.map((e: { field: string }) => e.field),
    ['ownerId'],
  );

  const noLocation = await t.request('POST', '/v1/pets', { token: admin, body: validBody(parent.id, 'loc_nowhere') });
  a.is(noLocation.status, 400);
  a.is(noLocation.body.code, 'resource_missing');
  a.deepEqual(
    noLocation.body.errors.map((e: { field: string }) => e.field),
    ['locationId'],
  );
  a.is(await countPets(), before);
});

test('POST /v1/pets: a sandbox owner id is not visible from live', async (a) => {
  const location = await createLocation(t);
  const res = await t.request('POST', '/v1/pets', { token: admin, body: validBody('usr_demo_alex', location.id) });
  a.is(res.status, 400);
  a.is(res.body.code, 'resource_missing');
});

// ---------------------------------------------------------------- auth

test('401 without a token, with a malformed header and with a garbage token', async (a) => {
  const { location, parent } = await household();
  const pet = await createPet(t, parent.id, location.id);
  for (const [method, path] of [
    ['GET', `/v1/pets/${pet.id}`],
    ['GET', '/v1/pets'],
    ['POST', '/v1/pets'],
    ['PATCH', `/v1/pets/${pet.id}`],
  ] as const) {
    const none = await t.request(method, path, method === 'GET' ? {} : { body: { name: 'x' } });
    a.is(none.status, 401, `${method} ${path}`);
    a.is(none.body.code, 'unauthorized');
    a.regex(none.headers.get('www-authenticate') ?? '', /^Bearer/);

    const garbage = await t.request(method, path, { token: 'not.a.jwt', ...(method === 'GET' ? {} : { body: { name: 'x' } }) });
    a.is(garbage.status, 401);
    a.is(garbage.body.code, 'invalid_token');
    a.regex(garbage.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
  }
  const basic = await t.request('GET', '/v1/pets', { headers: { authorization: 'Basic abc' } });
  a.is(basic.status, 401);
  // The refused PATCH calls changed nothing.
  const row = await db().selectFrom('pets').selectAll().where('id', '=', pet.id).executeTakeFirstOrThrow();
  a.is(row.updated_at, row.created_at);
});

test.serial('403 when a pets.read client writes, and the write does not happen', async (a) => {
  const { location, parent } = await household();
  const pet = await createPet(t, parent.id, location.id, { name: 'Original' });
  const before = await countPets();

  const create = await t.request('POST', '/v1/pets', { token: reader.accessToken, body: validBody(parent.id, location.id) });
  a.is(create.status, 403);
  a.is(create.body.code, 'insufficient_scope');
  a.is(create.body.requiredScope, 'pets');
  a.regex(create.headers.get('www-authenticate') ?? '', /error="insufficient_scope"/);

  const patch = await t.request('PATCH', `/v1/pets/${pet.id}`, { token: reader.accessToken, body: { name: 'Hacked' } });
  a.is(patch.status, 403);
  a.is(patch.body.code, 'insufficient_scope');

  a.is(await countPets(), before);
  const get = await t.request('GET', `/v1/pets/${pet.id}`, { token: reader.accessToken });
  a.is(get.status, 200);
  a.is(get.body.name, 'Original');
});

test('403 for a client without any pets scope, even to read', async (a) => {
  const { location, parent } = await household();
  const pet = await createPet(t, parent.id, location.id);
  const get = await t.request('GET', `/v1/pets/${pet.id}`, { token: doctor.accessToken });
  a.is(get.status, 403);
  a.is(get.body.code, 'insufficient_scope');
  const list = await t.request('GET', '/v1/pets', { token: doctor.accessToken });
  a.is(list.status, 403);
});

test('a token asked for pets.read only cannot write even though the client holds pets', async (a) => {
  const narrowed = await t.token(staff.clientId, staff.clientSecret, 'pets.read');
  a.is(narrowed.status, 200);
  a.is(narrowed.body.scope, 'pets.read');
  const { location, parent } = await household();
  const res = await t.request('POST', '/v1/pets', { token: narrowed.body.access_token, body: validBody(parent.id, location.id) });
  a.is(res.status, 403);
});

// ---------------------------------------------------------------- PATCH

test.serial('PATCH /v1/pets/:id updates the given fields and updatedAt, keeps createdAt', async (a) => {
  const { location, parent } = await household();
  const other = await createPetParent(t, location.id);
  const otherLocation = await createLocation(t);
  const pet = await createPet(t, parent.id, location.id, { name: 'Before', birthDate: '2020-01-01' });
  const before = await t.request('GET', `/v1/pets/${pet.id}`, { token: admin });
  t.clock.advance(60_000);
  const res = await t.request('PATCH', `/v1/pets/${pet.id}`, {
    token: staff.accessToken,
    body: { name: 'After', breed: 'Poodle', species: 'dog', ownerId: other.id, locationId: otherLocation.id, birthDate: null },
  });
  a.is(res.status, 200, res.text);
  a.deepEqual(Object.keys(res.body).sort(), [...petKeys].sort());
  a.is(res.body.name, 'After');
  a.is(res.body.breed, 'Poodle');
  a.is(res.body.ownerId, other.id);
  a.is(res.body.locationId, otherLocation.id);
  a.is(res.body.birthDate, null);
  a.is(res.body.createdAt, before.body.createdAt);
  a.is(res.body.updatedAt, new Date(t.clock.now()).toISOString());
  a.true(res.body.updatedAt > before.body.updatedAt);

  const reread = await t.request('GET', `/v1/pets/${pet.id}`, { token: admin });
  a.deepEqual(reread.body, res.body);
});

test('PATCH /v1/pets/:id with one field leaves the others alone', async (a) => {
  const { location, parent } = await household();
  const pet = await createPet(t, parent.id, location.id, { name: 'Solo', breed: 'Pug', birthDate: '2019-05-05' });
  const res = await t.request('PATCH', `/v1/pets/${pet.id}`, { token: admin, body: { breed: 'French Bulldog' } });
  a.is(res.status, 200);
  a.is(res.body.name, 'Solo');
  a.is(res.body.breed, 'French Bulldog');
  a.is(res.body.birthDate, '2019-05-05');
  a.is(res.body.ownerId, parent.id);
});

test('PATCH /v1/pets/:id: empty body, bad values and unknown pet', async (a) => {
  const { location, parent } = await household();
  const pet = await createPet(t, parent.id, location.id);
  const empty = await t.request('PATCH', `/v1/pets/${pet.id}`, { token: admin, body: {} });
  a.is(empty.status, 400);
  a.is(empty.body.code, 'validation_failed');

  const noBody = await t.request('PATCH', `/v1/pets/${pet.id}`, { token: admin });
  a.is(noBody.status, 400);

  const bad = await t.request('PATCH', `/v1/pets/${pet.id}`, { token: admin, body: { species: 'unicorn', name: '' } });
  a.is(bad.status, 400);
  a.deepEqual(bad.body.errors.map((e: { field: string }) => e.field).sort(), ['name', 'species']);

  const future = await t.request('PATCH', `/v1/pets/${pet.id}`, { token: admin, body: { birthDate: '2999-12-31' } });
  a.is(future.status, 400);
  a.deepEqual(
    future.body.errors.map((e: { field: string }) => e.field),
    ['birthDate'],
  );

  const missing = await t.request('PATCH', '/v1/pets/pet_nothere', { token: admin, body: { name: 'x' } });
  a.is(missing.status, 404);
  a.is(missing.body.code, 'not_found');
});

test('PATCH /v1/pets/:id to an owner or location that does not exist: 400 resource_missing, nothing changed', async (a) => {
  const { location, parent } = await household();
  const pet = await createPet(t, parent.id, location.id);
  const owner = await t.request('PATCH', `/v1/pets/${pet.id}`, { token: admin, body: { ownerId: 'usr_ghost', name: 'Renamed' } });
  a.is(owner.status, 400);
  a.is(owner.body.code, 'resource_missing');
  a.deepEqual(
    owner.body.errors.map((e: { field: string }) => e.field),
    ['ownerId'],
  );
  const loc = await t.request('PATCH', `/v1/pets/${pet.id}`, { token: admin, body: { locationId: 'loc_ghost' } });
  a.is(loc.status, 400);
  a.is(loc.body.code, 'resource_missing');
  const row = await db().selectFrom('pets').selectAll().where('id', '=', pet.id).executeTakeFirstOrThrow();
  a.is(row.owner_id, parent.id);
  a.is(row.location_id, location.id);
  a.not(row.name, 'Renamed');
});

// ---------------------------------------------------------------- lists

test('GET /v1/pets: filters by ownerId, locationId and case-insensitive name substring', async (a) => {
  const { location, parent } = await household();
  const second = await createPetParent(t, location.id);
  const elsewhere = await household();
  const fido = await createPet(t, parent.id, location.id, { name: 'Fido Grande' });
  const rex = await createPet(t, parent.id, location.id, { name: 'Rex' });
  const luna = await createPet(t, second.id, location.id, { name: 'Little FIDO' });
  const away = await createPet(t, elsewhere.parent.id, elsewhere.location.id, { name: 'Fido Away' });

  const ids = async (query: string) => {
    const res = await t.request('GET', `/v1/pets?${query}`, { token: reader.accessToken });
    a.is(res.status, 200, res.text);
    a.deepEqual(Object.keys(res.body).sort(), ['data', 'hasMore', 'nextCursor']);
    for (const pet of res.body.data) a.deepEqual(Object.keys(pet).sort(), [...petKeys].sort());
    return (res.body.data as { id: string }[]).map((p) => p.id).sort();
  };
  a.deepEqual(await ids(`ownerId=${parent.id}`), [fido.id, rex.id].sort());
  a.deepEqual(await ids(`locationId=${location.id}`), [fido.id, rex.id, luna.id].sort());
  a.deepEqual(await ids(`locationId=${elsewhere.location.id}`), [away.id]);
  a.deepEqual(await ids(`locationId=${location.id}&name=fido`), [fido.id, luna.id].sort());
  a.deepEqual(await ids(`ownerId=${second.id}&name=fido`), [luna.id]);
  a.deepEqual(await ids(`locationId=${location.id}&name=zzz`), []);
  a.deepEqual(await ids(`ownerId=usr_nobody`), []);
  // A name with SQL LIKE wildcards is matched literally.
  a.deepEqual(await ids(`locationId=${location.id}&name=%25`), []);
  a.deepEqual(await ids(`locationId=${location.id}&name=_`), []);
});

test.serial('GET /v1/pets: newest first, cursor paging visits every row once', async (a) => {
  const { location, parent } = await household();
  const created: string[] = [];
  for (let i = 0; i < 7; i++) {
    t.clock.advance(1000);
    created.push((await createPet(t, parent.id, location.id, { name: `Paged ${i}` })).id);
  }
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const query: string = `locationId=${location.id}&limit=3${cursor ? `&cursor=${cursor}` : ''}`;
    const res = await t.request('GET', `/v1/pets?${query}`, { token: admin });
    a.is(res.status, 200);
    a.true(res.body.data.length <= 3);
    a.is(res.body.hasMore, res.body.nextCursor !== null);
    seen.push(...res.body.data.map((p: { id: string }) => p.id));
    cursor = res.body.nextCursor;
    pages++;
  } while (cursor && pages < 10);
  a.is(pages, 3);
  a.deepEqual(seen, [...created].reverse());

  const all = await t.request('GET', `/v1/pets?locationId=${location.id}`, { token: admin });
  a.is(all.body.data.length, 7);
  a.false(all.body.hasMore);
  a.is(all.body.nextCursor, null);
});

test('GET /v1/pets: bad paging and unknown query parameters answer 400', async (a) => {
  for (const [query, field] of [
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    ['cursor=garbage', 'cursor'],
    ['species=dog', 'species'],
  ]) {
    const res = await t.request('GET', `/v1/pets?${query}`, { token: admin });
    a.is(res.status, 400, query);
    a.true(
      (res.body.errors as { field: string }[]).some((e) => e.field === field),
      `${query}: ${res.text}`,
    );
  }
  const cursor = await t.request('GET', '/v1/pets?cursor=garbage', { token: admin });
  a.is(cursor.body.code, 'invalid_cursor');
});

// ---------------------------------------------------------------- idempotency

test('Idempotency-Key on POST /v1/pets: a replay creates one pet and answers the first response', async (a) => {
  const { location, parent } = await household();
  const body = { ...validBody(parent.id, location.id), name: 'Once' };
  const key = `pets-once-${location.id}`;
  const first = await t.request('POST', '/v1/pets', { token: staff.accessToken, body, idempotencyKey: key });
  a.is(first.status, 201);
  a.is(first.headers.get('idempotent-replayed'), null);
  const second = await t.request('POST', '/v1/pets', { token: staff.accessToken, body, idempotencyKey: key });
  a.is(second.status, 201);
  a.is(second.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(second.body, first.body);

  const rows = await db().selectFrom('pets').select('id').where('location_id', '=', location.id).execute();
  a.deepEqual(
    rows.map((r) => r.id),
    [first.body.id],
  );
  const events = await db().selectFrom('events').select('data').where('type', '=', 'pet.registered').execute();
  a.is(events.filter((e) => JSON.parse(e.data).petId === first.body.id).length, 1);
});

test('Idempotency-Key: two identical requests racing each other create one pet', async (a) => {
  const { location, parent } = await household();
  const body = { ...validBody(parent.id, location.id), name: 'Racer' };
  const key = `pets-race-${location.id}`;
  const results = await Promise.all([1, 2, 3].map(() => t.request('POST', '/v1/pets', { token: staff.accessToken, body, idempotencyKey: key })));
  for (const r of results) a.true(r.status === 201 || (r.status === 409 && r.body.code === 'idempotency_key_in_use'), `${r.status} ${r.text}`);
  const created = results.filter((r) => r.status === 201);
  a.true(created.length >= 1);
  a.is(new Set(created.map((r) => r.body.id)).size, 1);
  const rows = await db().selectFrom('pets').select('id').where('location_id', '=', location.id).execute();
  a.is(rows.length, 1);
  // Once the first has finished, a retry is a replay.
  const retry = await t.request('POST', '/v1/pets', { token: staff.accessToken, body, idempotencyKey: key });
  a.is(retry.status, 201);
  a.is(retry.headers.get('idempotent-replayed'), 'true');
  a.is(retry.body.id, rows[0]!.id);
});

test('Idempotency-Key: same key with a different body answers 422; key order and whitespace do not matter', async (a) => {
  const { location, parent } = await household();
  const key = `pets-mismatch-${location.id}`;
  const body = validBody(parent.id, location.id);
  const first = await t.request('POST', '/v1/pets', { token: staff.accessToken, body, idempotencyKey: key });
  a.is(first.status, 201);

  const reordered = Object.fromEntries(Object.entries(body).reverse());
  const same = await t.request('POST', '/v1/pets', {
    token: staff.accessToken,
    rawBody: JSON.stringify(reordered, null, 2),
    headers: { 'content-type': 'application/json' },
    idempotencyKey: key,
  });
  a.is(same.status, 201);
  a.is(same.headers.get('idempotent-replayed'), 'true');
  a.is(same.body.id, first.body.id);

  const different = await t.request('POST', '/v1/pets', { token: staff.accessToken, body: { ...body, name: 'Other' }, idempotencyKey: key });
  a.is(different.status, 422);
  a.is(different.body.code, 'idempotency_key_mismatch');
  const rows = await db().selectFrom('pets').select('id').where('location_id', '=', location.id).execute();
  a.is(rows.length, 1);
});

test('Idempotency-Key is scoped to the client: another client with the same key creates its own pet', async (a) => {
  const { location, parent } = await household();
  const key = `pets-shared-${location.id}`;
  const body = validBody(parent.id, location.id);
  const mine = await t.request('POST', '/v1/pets', { token: staff.accessToken, body, idempotencyKey: key });
  const theirs = await t.request('POST', '/v1/pets', { token: admin, body, idempotencyKey: key });
  a.is(mine.status, 201);
  a.is(theirs.status, 201);
  a.not(mine.body.id, theirs.body.id);
  a.is(theirs.headers.get('idempotent-replayed'), null);
});

test('Idempotency-Key: a failed request is not stored, so a corrected retry with the same key succeeds', async (a) => {
  const { location, parent } = await household();
  const key = `pets-retry-${location.id}`;
  const bad = await t.request('POST', '/v1/pets', { token: staff.accessToken, body: validBody('usr_ghost', location.id), idempotencyKey: key });
  a.is(bad.status, 400);
  const good = await t.request('POST', '/v1/pets', { token: staff.accessToken, body: validBody(parent.id, location.id), idempotencyKey: key });
  a.is(good.status, 201);
  a.is(good.headers.get('idempotent-replayed'), null);
});

test('Idempotency-Key on PATCH replays the first answer without a second write', async (a) => {
  const { location, parent } = await household();
  const pet = await createPet(t, parent.id, location.id);
  const key = `pets-patch-${pet.id}`;
  const first = await t.request('PATCH', `/v1/pets/${pet.id}`, { token: staff.accessToken, body: { name: 'Patched once' }, idempotencyKey: key });
  a.is(first.status, 200);
  // Someone else renames the pet in between; the replay must not rename it back.
  await t.request('PATCH', `/v1/pets/${pet.id}`, { token: admin, body: { name: 'Renamed by admin' } });
  const replay = await t.request('PATCH', `/v1/pets/${pet.id}`, { token: staff.accessToken, body: { name: 'Patched once' }, idempotencyKey: key });
  a.is(replay.status, 200);
  a.is(replay.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(replay.body, first.body);
  const row = await db().selectFrom('pets').select('name').where('id', '=', pet.id).executeTakeFirstOrThrow();
  a.is(row.name, 'Renamed by admin');
});

test('an invalid Idempotency-Key header answers 400', async (a) => {
  const { location, parent } = await household();
  const res = await t.request('POST', '/v1/pets', { token: staff.accessToken, body: validBody(parent.id, location.id), idempotencyKey: 'x'.repeat(256) });
  a.is(res.status, 400);
  a.is(res.body.code, 'invalid_idempotency_key');
});
