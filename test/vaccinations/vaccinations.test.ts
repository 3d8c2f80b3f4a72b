import test from 'ava';
import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import { TestClock, type TokenSet, useTestApp } from '../helpers/test-app.js';

/** POST/GET /v1/pets/:id/vaccinations and GET /v1/vaccinations/:id. */
const vaccinationKeys = ['id', 'petId', 'vaccine', 'administeredOn', 'dueOn', 'lotNumber', 'providerId', 'locationId', 'recordedBy', 'createdAt', 'externalId'];

let admin: string;
let staff: TokenSet; // staff, pets: records vaccinations
let reader: TokenSet; // staff, pets.read
let medicalOnly: TokenSet; // doctor, medical (no pets scope)
let scopedA: TokenSet; // staff, pets, location A only
let locationA: { id: string };
let locationB: { id: string };
let petA: { id: string };
let petB: { id: string };

// 12:00 UTC on 15 June 2026: "today" is 2026-06-15 in London and 2026-06-16 in Auckland (UTC+12).
const now = Date.parse('2026-06-15T12:00:00Z');

const t = useTestApp(test, { clock: new TestClock(now) });
test.before(async () => {
  admin = await t.adminToken();
  locationA = await createLocation(t, { name: 'A', timezone: 'Europe/London' });
  locationB = await createLocation(t, { name: 'B', timezone: 'Pacific/Auckland' });
  const parentA = await createPetParent(t, locationA.id);
  const parentB = await createPetParent(t, locationB.id);
  petA = await createPet(t, parentA.id, locationA.id, { name: 'Rex' });
  petB = await createPet(t, parentB.id, locationB.id, { name: 'Kiwi' });
  [staff, reader, medicalOnly, scopedA] = await Promise.all([
    t.client({ name: 'front desk', role: 'staff', scopes: ['pets'] }),
    t.client({ name: 'reader', role: 'staff', scopes: ['pets.read'] }),
    t.client({ name: 'doctor, medical only', role: 'doctor', scopes: ['medical'] }),
    t.client({ name: 'A only', role: 'staff', scopes: ['pets'], locationIds: [locationA.id] }),
  ]);
});

const db = () => t.stores.get('live').db;
const valid = { vaccine: 'Rabies', administeredOn: '2026-06-01', dueOn: '2027-06-01' };
const post = (petId: string, body: unknown, token = staff.accessToken, idempotencyKey?: string) =>
  t.request('POST', `/v1/pets/${petId}/vaccinations`, { token, body, ...(idempotencyKey ? { idempotencyKey } : {}) });
const fieldsOf = (body: { errors?: Array<{ field: string }> }) => (body.errors ?? []).map((e) => e.field).sort();

async function createProvider(locationIds: string[]) {
  const res = await t.request('POST', '/v1/providers', { token: admin, body: { name: 'Dr. Vet', kind: 'vet', locationIds } });
  if (res.status !== 201) throw new Error(`provider create failed: ${res.status} ${res.text}`);
  return res.body as { id: string };
}

async function freshPet(locationId = locationA.id) {
  const parent = await createPetParent(t, locationId);
  return createPet(t, parent.id, locationId);
}

// ---------------------------------------------------------------- happy path

test('staff records a vaccination: 201 with every documented field, readable by id and in the list', async (a) => {
  const pet = await freshPet();
  const provider = await createProvider([locationA.id]);
  const res = await post(pet.id, { ...valid, vaccine: '  Rabies ', lotNumber: 'LOT-42', providerId: provider.id });
  a.is(res.status, 201, res.text);
  a.regex(res.body.id, /^vac_[a-z0-9]{26}$/);
  a.deepEqual(Object.keys(res.body).sort(), [...vaccinationKeys].sort());
  a.deepEqual(res.body, {
    id: res.body.id,
    petId: pet.id,
    vaccine: 'Rabies',
    administeredOn: '2026-06-01',
    dueOn: '2027-06-01',
    lotNumber: 'LOT-42',
    providerId: provider.id,
    locationId: locationA.id,
    recordedBy: { clientId: staff.id, role: 'staff' },
    createdAt: new Date(now).toISOString(),
    externalId: null,
  });

  const byId = await t.request('GET', `/v1/vaccinations/${res.body.id}`, { token: reader.accessToken });
  a.is(byId.status, 200);
  a.deepEqual(byId.body, res.body);

  const list = await t.request('GET', `/v1/pets/${pet.id}/vaccinations`, { token: reader.accessToken });
  a.is(list.status, 200);
  a.deepEqual(list.body, { data: [res.body], nextCursor: null, hasMore: false });
});

test('optional fields default to null; dueOn may already be past when recording history', async (a) => {
  const pet = await freshPet();
  const res = await post(pet.id, { vaccine: 'Leptospirosis', administeredOn: '2024-01-10', dueOn: '2025-01-10', lotNumber: null, providerId: null });
  a.is(res.status, 201, res.text);
  a.is(res.body.lotNumber, null);
  a.is(res.body.providerId, null);
  a.is(res.body.dueOn, '2025-01-10');
});

test('the list pages newest first with a cursor and filters by vaccine, case-insensitively', async (a) => {
  const pet = await freshPet();
  const ids: string[] = [];
  for (const [i, vaccine] of ['Rabies', 'DHPP', 'rabies', 'Bordetella', 'RABIES'].entries()) {
    const res = await post(pet.id, { vaccine, administeredOn: `2026-0${i + 1}-01`, dueOn: '2027-01-01' });
    a.is(res.status, 201, res.text);
    ids.push(res.body.id);
  }
  const first = await t.request('GET', `/v1/pets/${pet.id}/vaccinations?limit=2`, { token: reader.accessToken });
  a.deepEqual(
    first.body.data.map((v: { id: string }) => v.id),
    [ids[4], ids[3]],
  );
  a.true(first.body.hasMore);
  const second = await t.request('GET', `/v1/pets/${pet.id}/vaccinations?limit=2&cursor=${first.body.nextCursor}`, { token: reader.accessToken });
  a.deepEqual(
    second.body.data.map((v: { id: string }) => v.id),
    [ids[2], ids[1]],
  );
  const third = await t.request('GET', `/v1/pets/${pet.id}/vaccinations?limit=2&cursor=${second.body.nextCursor}`, { token: reader.accessToken });
  a.deepEqual(
    third.body.data.map((v: { id: string }) => v.id),
    [ids[0]],
  );
  a.false(third.body.hasMore);
  a.is(third.body.nextCursor, null);

  const rabies = await t.request('GET', `/v1/pets/${pet.id}/vaccinations?vaccine=rAbIeS`, { token: reader.accessToken });
  a.deepEqual(
    rabies.body.data.map((v: { id: string }) => v.id),
    [ids[4], ids[2], ids[0]],
  );
  // Names keep the letter case they were entered with.
  a.deepEqual(
    rabies.body.data.map((v: { vaccine: string }) => v.vaccine),
    ['RABIES', 'rabies', 'Rabies'],
  );
  const none = await t.request('GET', `/v1/pets/${pet.id}/vaccinations?vaccine=Rab`, { token: reader.accessToken });
  a.deepEqual(none.body.data, []);
});

test("administeredOn is checked against today's date at the pet's location", async (a) => {
  // 2026-06-16 is already today in Auckland (location B), still tomorrow in London (location A).
  const kiwi = await post(petB.id, { ...valid, administeredOn: '2026-06-16', dueOn: '2026-07-16' });
  a.is(kiwi.status, 201, kiwi.text);
  const rex = await post(petA.id, { ...valid, administeredOn: '2026-06-16', dueOn: '2026-07-16' });
  a.is(rex.status, 400);
  a.is(rex.body.code, 'validation_failed');
  a.deepEqual(rex.body.errors, [{ field: 'administeredOn', message: "cannot be in the future (today is 2026-06-15 at the pet's location)" }]);
  a.is((await post(petA.id, { ...valid, administeredOn: '2026-06-15', dueOn: '2026-07-15' })).status, 201);
});

// ---------------------------------------------------------------- validation

test('invalid bodies answer 400 validation_failed naming the field', async (a) => {
  const cases: Array<[unknown, string[]]> = [
    [{}, ['administeredOn', 'dueOn', 'vaccine']],
    [{ ...valid, vaccine: '' }, ['vaccine']],
    [{ ...valid, vaccine: '   ' }, ['vaccine']],
    [{ ...valid, vaccine: 'x'.repeat(201) }, ['vaccine']],
    [{ ...valid, vaccine: 42 }, ['vaccine']],
    [{ ...valid, administeredOn: '01/06/2026' }, ['administeredOn']],
    [{ ...valid, administeredOn: '2026-06-01T10:00:00Z' }, ['administeredOn']],
    [{ ...valid, dueOn: 'next year' }, ['dueOn']],
    [{ ...valid, lotNumber: 'L'.repeat(101) }, ['lotNumber']],
    [{ ...valid, lotNumber: '' }, ['lotNumber']],
    [{ ...valid, providerId: 'vet-smith' }, ['providerId']],
    [{ ...valid, petId: petA.id }, ['petId']],
    [{ ...valid, id: 'vac_x' }, ['id']],
    [{ ...valid, status: 'Up to date' }, ['status']],
  ];
  for (const [body, fields] of cases) {
    const res = await post(petA.id, body);
    a.is(res.status, 400, JSON.stringify(body));
    a.is(res.body.code, 'validation_failed');
    a.deepEqual(fieldsOf(res.body), fields, JSON.stringify(body));
  }
  const unknown = await post(petA.id, { ...valid, notes: 'x' });
  a.deepEqual(unknown.body.errors, [{ field: 'notes', message: 'is not a recognised field' }]);
});

test('dates must be calendar days, not in the future, and dueOn after administeredOn', async (a) => {
  const cases: Array<[Record<string, string>, Array<{ field: string; message: string }>]> = [
    [{ administeredOn: '2026-02-30' }, [{ field: 'administeredOn', message: "'2026-02-30' is not a calendar date" }]],
    [{ dueOn: '2027-13-01' }, [{ field: 'dueOn', message: "'2027-13-01' is not a calendar date" }]],
    [
      { administeredOn: '2026-06-20', dueOn: '2027-06-20' },
      [{ field: 'administeredOn', message: "cannot be in the future (today is 2026-06-15 at the pet's location)" }],
    ],
    [{ dueOn: '2026-06-01' }, [{ field: 'dueOn', message: 'must be after administeredOn' }]],
    [{ dueOn: '2026-05-01' }, [{ field: 'dueOn', message: 'must be after administeredOn' }]],
  ];
  for (const [patch, errors] of cases) {
    const res = await post(petA.id, { ...valid, ...patch });
    a.is(res.status, 400, JSON.stringify(patch));
    a.deepEqual(res.body.errors, errors, JSON.stringify(patch));
  }
});

test('providerId must name a provider the caller can see: otherwise 400 resource_missing', async (a) => {
  const ghost = await post(petA.id, { ...valid, providerId: 'prv_00000000000000000000000000' });
  a.is(ghost.status, 400);
  a.is(ghost.body.code, 'resource_missing');
  a.deepEqual(ghost.body.errors, [{ field: 'providerId', message: "no provider with id 'prv_00000000000000000000000000'" }]);
  // A provider working only at B is invisible to a client scoped to A: same answer as a ghost.
  const atB = await createProvider([locationB.id]);
  const hidden = await post(petA.id, { ...valid, providerId: atB.id }, scopedA.accessToken);
  a.is(hidden.status, 400);
  a.is(hidden.body.code, 'resource_missing');
  a.is(hidden.body.detail, `No provider with id '${atB.id}' exists.`);
  // An unscoped client may name it for a pet elsewhere (doses given at another clinic are history too).
  const ok = await post(petA.id, { ...valid, providerId: atB.id });
  a.is(ok.status, 201);
  a.is(ok.body.providerId, atB.id);
  const rows = await db().selectFrom('vaccinations').select('id').where('provider_id', '=', atB.id).execute();
  a.is(rows.length, 1);
});

test('list query parameters are validated', async (a) => {
  for (const query of ['limit=0', 'limit=101', 'limit=abc', `vaccine=${'x'.repeat(201)}`, 'vaccine=', 'sort=asc', 'cursor=nonsense']) {
    const res = await t.request('GET', `/v1/pets/${petA.id}/vaccinations?${query}`, { token: reader.accessToken });
    a.is(res.status, 400, query);
  }
});

test('an unknown pet answers 404 for create and list; an unknown vaccination 404', async (a) => {
  const create = await post('pet_00000000000000000000000000', valid);
  a.is(create.status, 404);
  a.is(create.body.code, 'not_found');
  a.is((await t.request('GET', '/v1/pets/pet_00000000000000000000000000/vaccinations', { token: admin })).status, 404);
  a.is((await t.request('GET', '/v1/vaccinations/vac_00000000000000000000000000', { token: admin })).status, 404);
});

// ---------------------------------------------------------------- auth

test('401 without a token; 403 without the pets scope; pets.read reads but cannot record', async (a) => {
  a.is((await t.request('POST', `/v1/pets/${petA.id}/vaccinations`, { body: valid })).status, 401);
  a.is((await t.request('GET', `/v1/pets/${petA.id}/vaccinations`)).status, 401);

  const readerPost = await post(petA.id, valid, reader.accessToken);
  a.is(readerPost.status, 403);
  a.is(readerPost.body.code, 'insufficient_scope');
  a.is((await t.request('GET', `/v1/pets/${petA.id}/vaccinations`, { token: reader.accessToken })).status, 200);

  for (const res of [
    await post(petA.id, valid, medicalOnly.accessToken),
    await t.request('GET', `/v1/pets/${petA.id}/vaccinations`, { token: medicalOnly.accessToken }),
  ]) {
    a.is(res.status, 403);
    a.is(res.body.code, 'insufficient_scope');
  }
});

// ---------------------------------------------------------------- location scoping

test('a client scoped to location A gets 404 for the vaccinations of a pet in B, as for a pet that does not exist', async (a) => {
  const inB = await post(petB.id, valid, admin);
  a.is(inB.status, 201);
  const list = await t.request('GET', `/v1/pets/${petB.id}/vaccinations`, { token: scopedA.accessToken });
  a.is(list.status, 404);
  a.is(list.body.code, 'not_found');
  const create = await post(petB.id, valid, scopedA.accessToken);
  a.is(create.status, 404);
  const byId = await t.request('GET', `/v1/vaccinations/${inB.body.id}`, { token: scopedA.accessToken });
  a.is(byId.status, 404);
  a.is(byId.body.detail, `No vaccination with id '${inB.body.id}' exists.`);
  // Its own location works.
  a.is((await post(petA.id, valid, scopedA.accessToken)).status, 201);
  a.is((await t.request('GET', `/v1/pets/${petA.id}/vaccinations`, { token: scopedA.accessToken })).status, 200);
});

test('vaccination records follow the pet when it moves to another location', async (a) => {
  const pet = await freshPet(locationB.id);
  const recorded = await post(pet.id, valid, admin);
  a.is((await t.request('GET', `/v1/vaccinations/${recorded.body.id}`, { token: scopedA.accessToken })).status, 404);
  a.is((await t.request('PATCH', `/v1/pets/${pet.id}`, { token: admin, body: { locationId: locationA.id } })).status, 200);
  const byId = await t.request('GET', `/v1/vaccinations/${recorded.body.id}`, { token: scopedA.accessToken });
  a.is(byId.status, 200);
  a.is(byId.body.locationId, locationB.id, 'locationId keeps where the pet was when recorded');
});

// ---------------------------------------------------------------- idempotency and events

test.serial('Idempotency-Key: a replay answers the first response and records one vaccination; another body → 422', async (a) => {
  const pet = await freshPet();
  const first = await post(pet.id, valid, staff.accessToken, 'vac-key-1');
  a.is(first.status, 201);
  a.is(first.headers.get('idempotent-replayed'), null);
  const replay = await post(pet.id, valid, staff.accessToken, 'vac-key-1');
  a.is(replay.status, 201);
  a.is(replay.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(replay.body, first.body);
  const rows = await db().selectFrom('vaccinations').select('id').where('pet_id', '=', pet.id).execute();
  a.is(rows.length, 1);

  const other = await post(pet.id, { ...valid, vaccine: 'DHPP' }, staff.accessToken, 'vac-key-1');
  a.is(other.status, 422);
  a.is(other.body.code, 'idempotency_key_mismatch');
});

test.serial('recording a vaccination emits no event (reminders come from the daily job)', async (a) => {
  const count = async () => (await db().selectFrom('events').select('id').execute()).length;
  const before = await count();
  const pet = await freshPet();
  const afterPet = await count();
  a.is(afterPet, before + 1, 'pet.registered only');
  a.is((await post(pet.id, valid)).status, 201);
  a.is(await count(), afterPet);
});
