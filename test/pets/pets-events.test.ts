import test from 'ava';
import { sql } from 'kysely';
import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import { TestClock, type TokenSet, useTestApp } from '../helpers/test-app.js';

/** pet.registered is written in the transaction that creates the pet (outbox, DESIGN §6). */
let admin: string;
let staff: TokenSet;
const start = Date.parse('2026-11-23T09:30:00.000Z');

const t = useTestApp(test, { clock: new TestClock(start) });
test.before(async () => {
  admin = await t.adminToken();
  staff = await t.client({ name: 'front desk', role: 'staff', scopes: ['pets'] });
});

const db = () => t.stores.get('live').db;

async function eventsFor(petId: string) {
  const rows = await db().selectFrom('events').selectAll().where('type', '=', 'pet.registered').orderBy('id').execute();
  return rows.filter((r) => (JSON.parse(r.data) as { petId?: string }).petId === petId);
}

async function household() {
  const location = await createLocation(t);
  const parent = await createPetParent(t, location.id);
  return { location, parent };
}

test.serial('creating a pet writes exactly one pet.registered event with its ids', async (a) => {
  const { location, parent } = await household();
  const res = await t.request('POST', '/v1/pets', {
    token: staff.accessToken,
    body: { name: 'Bolt', breed: 'Husky', species: 'dog', ownerId: parent.id, locationId: location.id },
  });
  a.is(res.status, 201);
  const events = await eventsFor(res.body.id);
  a.is(events.length, 1);
  const [event] = events;
  a.regex(event!.id, /^evt_[a-z0-9]{26}$/);
  a.is(event!.tenant_id, t.tenantId);
  const data = JSON.parse(event!.data);
  a.like(data, { petId: res.body.id, ownerId: parent.id, locationId: location.id });
  a.is(data.name, 'Bolt');
  a.is(data.species, 'dog');
  // The event time is the service clock's, the same instant as the pet's createdAt.
  a.is(event!.created_at, res.body.createdAt);
  a.is(event!.created_at, new Date(start).toISOString());
});

test.serial('reading, listing and patching a pet emit nothing', async (a) => {
  const { location, parent } = await household();
  const pet = await createPet(t, parent.id, location.id);
  const count = async () => (await db().selectFrom('events').select('id').execute()).length;
  const before = await count();
  await t.request('GET', `/v1/pets/${pet.id}`, { token: admin });
  await t.request('GET', '/v1/pets', { token: admin });
  const patched = await t.request('PATCH', `/v1/pets/${pet.id}`, { token: admin, body: { name: 'Quiet' } });
  a.is(patched.status, 200);
  a.is(await count(), before);
  a.is((await eventsFor(pet.id)).length, 1);
});

test.serial('a refused create writes no event (validation, missing reference, scope)', async (a) => {
  const { location, parent } = await household();
  const reader = await t.client({ name: 'reader', role: 'staff', scopes: ['pets.read'] });
  const count = async () => (await db().selectFrom('events').select('id').execute()).length;
  const before = await count();
  const body = { name: 'Nope', breed: 'x', species: 'dog', ownerId: parent.id, locationId: location.id };
  a.is((await t.request('POST', '/v1/pets', { token: staff.accessToken, body: { ...body, species: 'dragon' } })).status, 400);
  a.is((await t.request('POST', '/v1/pets', { token: staff.accessToken, body: { ...body, ownerId: 'usr_ghost' } })).status, 400);
  a.is((await t.request('POST', '/v1/pets', { token: staff.accessToken, body: { ...body, birthDate: '2999-01-01' } })).status, 400);
  a.is((await t.request('POST', '/v1/pets', { token: reader.accessToken, body })).status, 403);
  a.is((await t.request('POST', '/v1/pets', { body })).status, 401);
  a.is(await count(), before);
});

test.serial('the pet and its event commit together: when the event cannot be written, the pet is not created', async (a) => {
  const { location, parent } = await household();
  // Fault injection on the real database: the outbox insert fails for this one pet name.
  await sql`CREATE TRIGGER fail_outbox BEFORE INSERT ON events WHEN json_extract(NEW.data, '$.name') = 'Doomed'
            BEGIN SELECT RAISE(ABORT, 'outbox unavailable'); END`.execute(db());
  try {
    const res = await t.request('POST', '/v1/pets', {
      token: staff.accessToken,
      body: { name: 'Doomed', breed: 'x', species: 'dog', ownerId: parent.id, locationId: location.id },
      idempotencyKey: 'doomed-1',
    });
    a.is(res.status, 500);
    a.is(res.body.code, 'internal_error');
    a.false(JSON.stringify(res.body).includes('outbox unavailable'), 'no internals leak');
    a.is((await db().selectFrom('pets').select('id').where('name', '=', 'Doomed').execute()).length, 0);
    // The idempotency record rolled back too: the retry runs again instead of replaying a 500.
    const idem = await db().selectFrom('idempotency_keys').select('key').where('key', '=', 'doomed-1').execute();
    a.is(idem.length, 0);
  } finally {
    await sql`DROP TRIGGER fail_outbox`.execute(db());
  }
  const retry = await t.request('POST', '/v1/pets', {
    token: staff.accessToken,
    body: { name: 'Doomed', breed: 'x', species: 'dog', ownerId: parent.id, locationId: location.id },
    idempotencyKey: 'doomed-1',
  });
  a.is(retry.status, 201);
  a.is((await eventsFor(retry.body.id)).length, 1);
});

test.serial('each pet gets its own event; replays add none', async (a) => {
  const { location, parent } = await household();
  const body = { name: 'Twin', breed: 'x', species: 'cat', ownerId: parent.id, locationId: location.id };
  const one = await t.request('POST', '/v1/pets', { token: staff.accessToken, body, idempotencyKey: `twin-${location.id}` });
  const replay = await t.request('POST', '/v1/pets', { token: staff.accessToken, body, idempotencyKey: `twin-${location.id}` });
  const two = await t.request('POST', '/v1/pets', { token: staff.accessToken, body });
  a.is(replay.body.id, one.body.id);
  a.not(two.body.id, one.body.id);
  a.is((await eventsFor(one.body.id)).length, 1);
  a.is((await eventsFor(two.body.id)).length, 1);
  const inLocation = (await db().selectFrom('events').select('data').where('type', '=', 'pet.registered').execute()).filter(
    (e) => JSON.parse(e.data).locationId === location.id,
  );
  a.is(inLocation.length, 2);
});

test('events of a sandbox pet land in the sandbox database only', async (a) => {
  const sandboxAdmin = await t.adminToken('sandbox');
  const res = await t.request('POST', '/v1/pets', {
    token: sandboxAdmin,
    body: { name: 'Sandy', breed: 'x', species: 'dog', ownerId: 'usr_demo_alex', locationId: 'loc_demo_downtown' },
  });
  a.is(res.status, 201, res.text);
  a.is((await eventsFor(res.body.id)).length, 0);
  const sandboxEvents = await t.stores.get('sandbox').db.selectFrom('events').selectAll().where('type', '=', 'pet.registered').execute();
  a.is(sandboxEvents.filter((e) => JSON.parse(e.data).petId === res.body.id).length, 1);
});
