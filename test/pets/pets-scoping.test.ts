import test from 'ava';
import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import { type TokenSet, useTestApp } from '../helpers/test-app.js';

/**
 * Location scoping (DESIGN §2): a client confined to location A sees and writes only A's rows;
 * B's rows answer 404 and never show up in lists; B's ids in a body answer 400 resource_missing.
 */
let admin: string;
let scopedA: TokenSet; // staff, pets, locations [A]
let scopedAB: TokenSet; // staff, pets, locations [A, B]
let a1: { id: string }; // location A
let b1: { id: string }; // location B
let parentA: { id: string };
let parentB: { id: string };
let petA: { id: string };
let petB: { id: string };

const t = useTestApp(test);
test.before(async () => {
  admin = await t.adminToken();
  a1 = await createLocation(t, { name: 'Location A' });
  b1 = await createLocation(t, { name: 'Location B' });
  parentA = await createPetParent(t, a1.id, { name: 'Parent A' });
  parentB = await createPetParent(t, b1.id, { name: 'Parent B' });
  petA = await createPet(t, parentA.id, a1.id, { name: 'Pet A' });
  petB = await createPet(t, parentB.id, b1.id, { name: 'Pet B' });
  [scopedA, scopedAB] = await Promise.all([
    t.client({ name: 'A only', role: 'staff', scopes: ['pets'], locationIds: [a1.id] }),
    t.client({ name: 'A and B', role: 'staff', scopes: ['pets'], locationIds: [a1.id, b1.id] }),
  ]);
});

const db = () => t.stores.get('live').db;

test('a client scoped to A reads a pet in A', async (a) => {
  const res = await t.request('GET', `/v1/pets/${petA.id}`, { token: scopedA.accessToken });
  a.is(res.status, 200);
  a.is(res.body.id, petA.id);
});

test('a client scoped to A gets 404 (not 403) for a pet in B, same as for a pet that does not exist', async (a) => {
  const res = await t.request('GET', `/v1/pets/${petB.id}`, { token: scopedA.accessToken });
  a.is(res.status, 404);
  a.is(res.body.code, 'not_found');
  const none = await t.request('GET', '/v1/pets/pet_00000000000000000000000000', { token: scopedA.accessToken });
  a.is(none.status, 404);
  // The two answers differ only in the id they name: existence in B is not revealed.
  a.is(res.body.detail.replace(petB.id, '<id>'), none.body.detail.replace('pet_00000000000000000000000000', '<id>'));
});

test('a client scoped to A cannot PATCH a pet in B: 404 and the pet is unchanged', async (a) => {
  const res = await t.request('PATCH', `/v1/pets/${petB.id}`, { token: scopedA.accessToken, body: { name: 'Stolen' } });
  a.is(res.status, 404);
  const row = await db().selectFrom('pets').select('name').where('id', '=', petB.id).executeTakeFirstOrThrow();
  a.is(row.name, 'Pet B');
});

test('lists of a client scoped to A exclude B rows, even when filtering for B', async (a) => {
  const all = await t.request('GET', '/v1/pets?limit=100', { token: scopedA.accessToken });
  a.is(all.status, 200);
  const ids = all.body.data.map((p: { id: string }) => p.id);
  a.true(ids.includes(petA.id));
  a.false(ids.includes(petB.id));
  for (const p of all.body.data) a.is(p.locationId, a1.id);

  const byLocation = await t.request('GET', `/v1/pets?locationId=${b1.id}`, { token: scopedA.accessToken });
  a.is(byLocation.status, 200);
  a.deepEqual(byLocation.body.data, []);
  const byOwner = await t.request('GET', `/v1/pets?ownerId=${parentB.id}`, { token: scopedA.accessToken });
  a.deepEqual(byOwner.body.data, []);
  const byName = await t.request('GET', '/v1/pets?name=Pet%20B', { token: scopedA.accessToken });
  a.deepEqual(byName.body.data, []);
});

test('a client scoped to A and B sees both; the unscoped admin sees both', async (a) => {
  for (const token of [scopedAB.accessToken, admin]) {
    const res = await t.request('GET', '/v1/pets?limit=100', { token });
    const ids = res.body.data.map((p: { id: string }) => p.id);
    a.true(ids.includes(petA.id));
    a.true(ids.includes(petB.id));
    a.is((await t.request('GET', `/v1/pets/${petB.id}`, { token })).status, 200);
  }
});

test.serial('a client scoped to A cannot create a pet in B or for an owner in B', async (a) => {
  const count = async () => (await db().selectFrom('pets').select('id').where('location_id', '=', b1.id).execute()).length;
  const before = await count();
  const inB = await t.request('POST', '/v1/pets', {
    token: scopedA.accessToken,
    body: { name: 'Sneaky', breed: 'Mutt', species: 'dog', ownerId: parentB.id, locationId: b1.id },
  });
  a.is(inB.status, 400);
  a.is(inB.body.code, 'resource_missing');

  const locationOnly = await t.request('POST', '/v1/pets', {
    token: scopedA.accessToken,
    body: { name: 'Sneaky', breed: 'Mutt', species: 'dog', ownerId: parentA.id, locationId: b1.id },
  });
  a.is(locationOnly.status, 400);
  a.is(locationOnly.body.code, 'resource_missing');
  a.deepEqual(
    locationOnly.body.errors.map((e: { field: string }) => e.field),
    ['locationId'],
  );

  const ownerOnly = await t.request('POST', '/v1/pets', {
    token: scopedA.accessToken,
    body: { name: 'Sneaky', breed: 'Mutt', species: 'dog', ownerId: parentB.id, locationId: a1.id },
  });
  a.is(ownerOnly.status, 400);
  a.is(ownerOnly.body.code, 'resource_missing');
  a.deepEqual(
    ownerOnly.body.errors.map((e: { field: string }) => e.field),
    ['ownerId'],
  );
  // Same answer as an owner that does not exist at all.
  const ghost = await t.request('POST', '/v1/pets', {
    token: scopedA.accessToken,
    body: { name: 'Sneaky', breed: 'Mutt', species: 'dog', ownerId: 'usr_ghost', locationId: a1.id },
  });
  a.is(ghost.body.code, ownerOnly.body.code);
  a.is(ghost.status, ownerOnly.status);

  a.is(await count(), before);
  a.is((await db().selectFrom('pets').select('id').where('name', '=', 'Sneaky').execute()).length, 0);
});

test('a client scoped to A creates a pet in A', async (a) => {
  const res = await t.request('POST', '/v1/pets', {
    token: scopedA.accessToken,
    body: { name: 'Local', breed: 'Mutt', species: 'dog', ownerId: parentA.id, locationId: a1.id },
  });
  a.is(res.status, 201);
  a.is(res.body.locationId, a1.id);
});

test('a client scoped to A cannot move its pet to B, nor to an owner in B', async (a) => {
  const pet = await createPet(t, parentA.id, a1.id, { name: 'Stay home' });
  const toB = await t.request('PATCH', `/v1/pets/${pet.id}`, { token: scopedA.accessToken, body: { locationId: b1.id } });
  a.is(toB.status, 400);
  a.is(toB.body.code, 'resource_missing');
  a.deepEqual(
    toB.body.errors.map((e: { field: string }) => e.field),
    ['locationId'],
  );

  const toOwnerB = await t.request('PATCH', `/v1/pets/${pet.id}`, { token: scopedA.accessToken, body: { ownerId: parentB.id } });
  a.is(toOwnerB.status, 400);
  a.is(toOwnerB.body.code, 'resource_missing');
  a.deepEqual(
    toOwnerB.body.errors.map((e: { field: string }) => e.field),
    ['ownerId'],
  );

  const row = await db().selectFrom('pets').selectAll().where('id', '=', pet.id).executeTakeFirstOrThrow();
  a.is(row.location_id, a1.id);
  a.is(row.owner_id, parentA.id);
});

test('a client scoped to A and B may move a pet from A to B; then A-only clients lose sight of it', async (a) => {
  const pet = await createPet(t, parentA.id, a1.id, { name: 'Traveller' });
  const moved = await t.request('PATCH', `/v1/pets/${pet.id}`, { token: scopedAB.accessToken, body: { locationId: b1.id, ownerId: parentB.id } });
  a.is(moved.status, 200, moved.text);
  a.is(moved.body.locationId, b1.id);
  a.is((await t.request('GET', `/v1/pets/${pet.id}`, { token: scopedA.accessToken })).status, 404);
});

test('a client scoped to a location that has since been emptied sees nothing', async (a) => {
  const c = await createLocation(t, { name: 'Location C' });
  const scopedC = await t.client({ name: 'C only', role: 'staff', scopes: ['pets.read'], locationIds: [c.id] });
  const list = await t.request('GET', '/v1/pets', { token: scopedC.accessToken });
  a.is(list.status, 200);
  a.deepEqual(list.body.data, []);
  a.is((await t.request('GET', `/v1/pets/${petA.id}`, { token: scopedC.accessToken })).status, 404);
});

test('rows of another tenant are invisible, even to the unscoped admin', async (a) => {
  // One appliance serves one tenant, but every query still filters by tenant: plant a foreign row.
  const at = new Date(t.clock.now()).toISOString();
  await db().insertInto('tenants').values({ id: 'ten_foreign', name: 'Other group', created_at: at }).execute();
  await db()
    .insertInto('locations')
    .values({ id: 'loc_foreign', tenant_id: 'ten_foreign', name: 'Foreign', timezone: 'UTC', currency: 'USD', tax_rate_bps: 0, created_at: at, updated_at: at })
    .execute();
  await db()
    .insertInto('pet_parents')
    .values({
      id: 'usr_foreign',
      tenant_id: 'ten_foreign',
      location_id: 'loc_foreign',
      name: 'F',
      email: null,
      phone: null,
      reminder_consent: 0,
      created_at: at,
      updated_at: at,
    })
    .execute();
  await db()
    .insertInto('pets')
    .values({
      id: 'pet_foreign',
      tenant_id: 'ten_foreign',
      location_id: 'loc_foreign',
      owner_id: 'usr_foreign',
      name: 'Foreign pet',
      breed: 'x',
      species: 'dog',
      birth_date: null,
      last_visit: null,
      created_at: at,
      updated_at: at,
    })
    .execute();

  a.is((await t.request('GET', '/v1/pets/pet_foreign', { token: admin })).status, 404);
  a.is((await t.request('PATCH', '/v1/pets/pet_foreign', { token: admin, body: { name: 'x' } })).status, 404);
  const list = await t.request('GET', '/v1/pets?limit=100&locationId=loc_foreign', { token: admin });
  a.deepEqual(list.body.data, []);
  const create = await t.request('POST', '/v1/pets', {
    token: admin,
    body: { name: 'Cross', breed: 'x', species: 'dog', ownerId: 'usr_foreign', locationId: 'loc_foreign' },
  });
  a.is(create.status, 400);
  a.is(create.body.code, 'resource_missing');
  a.is((await db().selectFrom('pets').select('name').where('id', '=', 'pet_foreign').executeTakeFirstOrThrow()).name, 'Foreign pet');
});
