import test from 'ava';
import { createHousehold } from '../helpers/factories.js';
import { startTestApp, type TokenSet, useTestApp } from '../helpers/test-app.js';

/**
 * The sandbox (DESIGN §2): its own SQLite file, seeded with demo data, reset on request.
 * Every test here is serial: reset rewrites the whole sandbox.
 */
let liveAdmin: string;
let sandboxAdmin: string;
let sandboxStaff: TokenSet; // sk_test_ staff client with pets
let sandboxDowntown: TokenSet; // sk_test_ staff client scoped to loc_demo_downtown
let livePet: { id: string; ownerId: string; locationId: string };

const demoPetIds = ['pet_demo_bella', 'pet_demo_daisy', 'pet_demo_luna', 'pet_demo_milo', 'pet_demo_oscar'];
const demoLocationIds = ['loc_demo_downtown', 'loc_demo_harbour', 'loc_demo_riverside'];

const t = useTestApp(test);
test.before(async () => {
  liveAdmin = await t.adminToken('live');
  sandboxAdmin = await t.adminToken('sandbox');
  [sandboxStaff, sandboxDowntown] = await Promise.all([
    t.client({ name: 'sandbox staff', role: 'staff', scopes: ['pets'], environment: 'sandbox' }),
    t.client({ name: 'sandbox downtown', role: 'staff', scopes: ['pets'], environment: 'sandbox', locationIds: ['loc_demo_downtown'] }),
  ]);
  livePet = (await createHousehold(t)).pet;
});

const sandboxDb = () => t.stores.get('sandbox').db;
const liveDb = () => t.stores.get('live').db;

test.serial('sandbox clients get pk_test_/sk_test_ keys', (a) => {
  a.regex(sandboxStaff.clientId, /^pk_test_/);
  a.regex(sandboxStaff.clientSecret, /^sk_test_/);
});

test.serial('an sk_test_ client sees the demo locations, parents and pets', async (a) => {
  const bella = await t.request('GET', '/v1/pets/pet_demo_bella', { token: sandboxStaff.accessToken });
  a.is(bella.status, 200);
  a.like(bella.body, {
    id: 'pet_demo_bella',
    name: 'Bella',
    breed: 'Labrador Retriever',
    ownerId: 'usr_demo_alex',
    vaccinationStatus: 'Due soon',
    species: 'dog',
    birthDate: '2020-03-14',
    locationId: 'loc_demo_downtown',
  });
  a.regex(bella.body.lastVisit, /^\d{4}-\d{2}-\d{2}$/, 'the demo practice has seen Bella before');
  // The named pets among the practice's hundred.
  const pets = await t.request('GET', '/v1/pets?limit=100', { token: sandboxStaff.accessToken });
  a.is(pets.body.data.length, 100);
  for (const id of demoPetIds)
    a.true(
      pets.body.data.some((p: { id: string }) => p.id === id),
      id,
    );

  const alex = await t.request('GET', '/v1/pet-parents/usr_demo_alex', { token: sandboxStaff.accessToken });
  a.is(alex.status, 200);
  a.is(alex.body.email, 'alex@example.com');
  const alexPets = await t.request('GET', '/v1/pets?ownerId=usr_demo_alex', { token: sandboxStaff.accessToken });
  a.deepEqual(alexPets.body.data.map((p: { id: string }) => p.id).sort(), ['pet_demo_bella', 'pet_demo_milo']);

  const locations = await t.request('GET', '/v1/locations', { token: sandboxAdmin });
  a.is(locations.status, 200);
  a.deepEqual(locations.body.data.map((l: { id: string }) => l.id).sort(), demoLocationIds);
  const downtown = await t.request('GET', '/v1/locations/loc_demo_downtown', { token: sandboxAdmin });
  a.is(downtown.body.timezone, 'America/New_York');
});

test.serial('a sandbox client scoped to loc_demo_downtown sees only downtown demo rows', async (a) => {
  a.is((await t.request('GET', '/v1/pets/pet_demo_bella', { token: sandboxDowntown.accessToken })).status, 200);
  a.is((await t.request('GET', '/v1/pets/pet_demo_oscar', { token: sandboxDowntown.accessToken })).status, 404);
  a.is((await t.request('GET', '/v1/pet-parents/usr_demo_jo', { token: sandboxDowntown.accessToken })).status, 404);
  const pets = await t.request('GET', '/v1/pets?limit=100', { token: sandboxDowntown.accessToken });
  const ids = pets.body.data.map((p: { id: string }) => p.id);
  a.true(pets.body.data.every((p: { locationId: string }) => p.locationId === 'loc_demo_downtown'));
  for (const id of ['pet_demo_bella', 'pet_demo_luna', 'pet_demo_milo']) a.true(ids.includes(id), id);
  a.false(ids.includes('pet_demo_oscar'));
});

test.serial('live never sees sandbox rows and the sandbox never sees live rows', async (a) => {
  // Sandbox ids from a live token: 404.
  for (const path of ['/v1/pets/pet_demo_bella', '/v1/pet-parents/usr_demo_alex', '/v1/locations/loc_demo_downtown']) {
    const res = await t.request('GET', path, { token: liveAdmin });
    a.is(res.status, 404, path);
  }
  const liveList = await t.request('GET', '/v1/pets?limit=100', { token: liveAdmin });
  a.false(liveList.body.data.some((p: { id: string }) => p.id.startsWith('pet_demo_')));
  a.is((await t.request('GET', '/v1/pets?ownerId=usr_demo_alex', { token: liveAdmin })).body.data.length, 0);

  // Live ids from a sandbox token: 404, even for the sandbox admin.
  for (const token of [sandboxStaff.accessToken, sandboxAdmin]) {
    a.is((await t.request('GET', `/v1/pets/${livePet.id}`, { token })).status, 404);
    a.is((await t.request('GET', `/v1/pet-parents/${livePet.ownerId}`, { token })).status, 404);
    a.is((await t.request('PATCH', `/v1/pets/${livePet.id}`, { token, body: { name: 'Crossed over' } })).status, 404);
    const list = await t.request('GET', '/v1/pets?limit=100', { token });
    a.false(list.body.data.some((p: { id: string }) => p.id === livePet.id));
  }
  a.is((await t.request('GET', `/v1/locations/${livePet.locationId}`, { token: sandboxAdmin })).status, 404);

  // Writes cannot reference the other environment either.
  const crossCreate = await t.request('POST', '/v1/pets', {
    token: sandboxStaff.accessToken,
    body: { name: 'Cross', breed: 'x', species: 'dog', ownerId: livePet.ownerId, locationId: livePet.locationId },
  });
  a.is(crossCreate.status, 400);
  a.is(crossCreate.body.code, 'resource_missing');
  const liveRow = await liveDb().selectFrom('pets').select('name').where('id', '=', livePet.id).executeTakeFirstOrThrow();
  a.not(liveRow.name, 'Crossed over');
});

test.serial('a pet created in the sandbox lives in the sandbox file only', async (a) => {
  const res = await t.request('POST', '/v1/pets', {
    token: sandboxStaff.accessToken,
    body: { name: 'Sandy', breed: 'Corgi', species: 'dog', ownerId: 'usr_demo_sam', locationId: 'loc_demo_downtown' },
  });
  a.is(res.status, 201);
  a.truthy(await sandboxDb().selectFrom('pets').select('id').where('id', '=', res.body.id).executeTakeFirst());
  a.is(await liveDb().selectFrom('pets').select('id').where('id', '=', res.body.id).executeTakeFirst(), undefined);
  a.is((await t.request('GET', `/v1/pets/${res.body.id}`, { token: liveAdmin })).status, 404);
  const events = await sandboxDb().selectFrom('events').select('data').where('type', '=', 'pet.registered').execute();
  a.is(events.filter((e) => JSON.parse(e.data).petId === res.body.id).length, 1);
});

test.serial('POST /v1/sandbox/reset is refused for live clients (403 sandbox_only) and touches nothing', async (a) => {
  const livePetsBefore = await liveDb().selectFrom('pets').selectAll().orderBy('id').execute();
  const sandboxPetsBefore = await sandboxDb().selectFrom('pets').selectAll().orderBy('id').execute();
  const res = await t.request('POST', '/v1/sandbox/reset', { token: liveAdmin });
  a.is(res.status, 403);
  a.is(res.body.code, 'sandbox_only');
  a.deepEqual(await liveDb().selectFrom('pets').selectAll().orderBy('id').execute(), livePetsBefore);
  a.deepEqual(await sandboxDb().selectFrom('pets').selectAll().orderBy('id').execute(), sandboxPetsBefore);
});

test.serial('POST /v1/sandbox/reset needs a token and the admin scope', async (a) => {
  const none = await t.request('POST', '/v1/sandbox/reset');
  a.is(none.status, 401);
  const staff = await t.request('POST', '/v1/sandbox/reset', { token: sandboxStaff.accessToken });
  a.is(staff.status, 403);
  a.is(staff.body.code, 'insufficient_scope');
  const liveStaff = await t.client({ name: 'live staff', role: 'staff', scopes: ['pets'] });
  a.is((await t.request('POST', '/v1/sandbox/reset', { token: liveStaff.accessToken })).status, 403);
  a.is((await t.request('GET', '/v1/sandbox/reset', { token: sandboxAdmin })).status, 405);
});

test.serial('POST /v1/sandbox/reset restores the demo data and removes sandbox-created rows', async (a) => {
  // Change the sandbox: a new location, parent and pet; a renamed and a moved demo pet.
  const loc = await t.request('POST', '/v1/locations', { token: sandboxAdmin, body: { name: 'Sandbox extra', timezone: 'UTC' } });
  a.is(loc.status, 201);
  const parent = await t.request('POST', '/v1/pet-parents', { token: sandboxAdmin, body: { name: 'Temp', locationId: loc.body.id } });
  a.is(parent.status, 201);
  const pet = await t.request('POST', '/v1/pets', {
    token: sandboxStaff.accessToken,
    body: { name: 'Temporary', breed: 'x', species: 'cat', ownerId: 'usr_demo_jo', locationId: 'loc_demo_riverside' },
  });
  a.is(pet.status, 201);
  a.is((await t.request('PATCH', '/v1/pets/pet_demo_bella', { token: sandboxStaff.accessToken, body: { name: 'Not Bella', breed: 'Pug' } })).status, 200);
  a.is((await t.request('PATCH', '/v1/pets/pet_demo_luna', { token: sandboxAdmin, body: { locationId: 'loc_demo_riverside' } })).status, 200);
  const liveBefore = await liveDb().selectFrom('pets').selectAll().orderBy('id').execute();
  const liveEventsBefore = await liveDb().selectFrom('events').selectAll().orderBy('id').execute();

  t.clock.advance(5_000);
  const res = await t.request('POST', '/v1/sandbox/reset', { token: sandboxAdmin });
  a.is(res.status, 200, res.text);
  a.like(res.body, {
    environment: 'sandbox',
    resetAt: new Date(t.clock.now()).toISOString(),
    seeded: { locations: 3, petParents: 30, pets: 100, providers: 9 },
  });

  // Sandbox-created rows are gone.
  a.is((await t.request('GET', `/v1/pets/${pet.body.id}`, { token: sandboxStaff.accessToken })).status, 404);
  a.is((await t.request('GET', `/v1/pet-parents/${parent.body.id}`, { token: sandboxAdmin })).status, 404);
  a.is((await t.request('GET', `/v1/locations/${loc.body.id}`, { token: sandboxAdmin })).status, 404);
  // Demo rows are back as seeded.
  const bella = await t.request('GET', '/v1/pets/pet_demo_bella', { token: sandboxStaff.accessToken });
  a.like(bella.body, { name: 'Bella', breed: 'Labrador Retriever', locationId: 'loc_demo_downtown', vaccinationStatus: 'Due soon' });
  // The demo shows every vaccinationStatus, dated from the day of the reset.
  const statuses = Object.fromEntries(
    (await t.request('GET', '/v1/pets?limit=100', { token: sandboxStaff.accessToken })).body.data
      .filter((p: { id: string }) => demoPetIds.includes(p.id))
      .map((p: { id: string; vaccinationStatus: string }) => [p.id, p.vaccinationStatus]),
  );
  a.deepEqual(statuses, {
    pet_demo_bella: 'Due soon',
    pet_demo_milo: 'Up to date',
    pet_demo_luna: 'Overdue',
    pet_demo_oscar: 'No records',
    pet_demo_daisy: 'Up to date',
  });
  const luna = await t.request('GET', '/v1/pets/pet_demo_luna', { token: sandboxStaff.accessToken });
  a.is(luna.body.locationId, 'loc_demo_downtown');
  const pets = await t.request('GET', '/v1/pets?limit=100', { token: sandboxStaff.accessToken });
  a.is(pets.body.data.length, 100);
  const locations = await t.request('GET', '/v1/locations', { token: sandboxAdmin });
  a.deepEqual(locations.body.data.map((l: { id: string }) => l.id).sort(), demoLocationIds);
  a.is((await sandboxDb().selectFrom('pet_parents').select('id').execute()).length, 30);
  // The sandbox outbox is emptied with the data it described.
  a.is((await sandboxDb().selectFrom('events').select('id').execute()).length, 0);

  // Clients and their tokens survive, including one scoped to a demo location.
  a.is((await t.request('GET', '/v1/pets/pet_demo_bella', { token: sandboxDowntown.accessToken })).status, 200);
  a.is((await t.request('GET', '/v1/pets/pet_demo_oscar', { token: sandboxDowntown.accessToken })).status, 404);
  a.is((await t.token(sandboxStaff.clientId, sandboxStaff.clientSecret)).status, 200);

  // Live is untouched.
  a.deepEqual(await liveDb().selectFrom('pets').selectAll().orderBy('id').execute(), liveBefore);
  a.deepEqual(await liveDb().selectFrom('events').selectAll().orderBy('id').execute(), liveEventsBefore);
  a.is((await t.request('GET', `/v1/pets/${livePet.id}`, { token: liveAdmin })).status, 200);
});

test.serial('reset twice in a row gives the same demo data; Idempotency-Key replays the first answer', async (a) => {
  const first = await t.request('POST', '/v1/sandbox/reset', { token: sandboxAdmin, idempotencyKey: 'reset-1' });
  a.is(first.status, 200);
  const created = await t.request('POST', '/v1/pets', {
    token: sandboxStaff.accessToken,
    body: { name: 'After reset', breed: 'x', species: 'dog', ownerId: 'usr_demo_alex', locationId: 'loc_demo_downtown' },
  });
  a.is(created.status, 201);
  const replay = await t.request('POST', '/v1/sandbox/reset', { token: sandboxAdmin, idempotencyKey: 'reset-1' });
  a.is(replay.status, 200);
  a.is(replay.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(replay.body, first.body);
  // A replay does not reset again.
  a.is((await t.request('GET', `/v1/pets/${created.body.id}`, { token: sandboxStaff.accessToken })).status, 200);

  const again = await t.request('POST', '/v1/sandbox/reset', { token: sandboxAdmin });
  a.is(again.status, 200);
  a.is((await t.request('GET', `/v1/pets/${created.body.id}`, { token: sandboxStaff.accessToken })).status, 404);
  a.is((await sandboxDb().selectFrom('pets').select('id').execute()).length, 100);
});

test.serial('a sandbox-only appliance serves the demo data and refuses live clients', async (a) => {
  const evaluation = await startTestApp({ config: { sandboxOnly: true } });
  try {
    a.false(evaluation.stores.has('live'));
    const admin = await evaluation.adminToken('sandbox');
    a.is((await evaluation.request('GET', '/v1/pets/pet_demo_bella', { token: admin })).status, 200);
    const live = await evaluation.request('POST', '/v1/clients', {
      token: admin,
      body: { name: 'live?', role: 'staff', scopes: ['pets'], environment: 'live' },
    });
    a.is(live.status, 403);
    a.is(live.body.code, 'environment_not_allowed');
    const liveToken = await evaluation.token('pk_live_testadmin', 'sk_live_testadminsecret');
    a.is(liveToken.status, 401);
    a.is((await evaluation.request('POST', '/v1/sandbox/reset', { token: admin })).status, 200);
  } finally {
    await evaluation.close();
  }
});
