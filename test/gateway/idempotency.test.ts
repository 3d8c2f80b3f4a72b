import { randomUUID } from 'node:crypto';
import test from 'ava';
import { AppError } from '../../src/http/errors.js';
import { IdempotencyStore, requestFingerprint } from '../../src/http/idempotency.js';
import { createHousehold, createPet } from '../helpers/factories.js';
import { startTestApp, TestClock, useTestApp } from '../helpers/test-app.js';
import { assertProblem, countPetsNamed, petBody, uniqueName } from './gateway-support.js';

let token: string;
let household: Awaited<ReturnType<typeof createHousehold>>;

const t = useTestApp(test);
test.before(async () => {
  token = await t.adminToken();
  household = await createHousehold(t);
});

const key = () => `key-${randomUUID()}`;

test('same key + same body replays the first response, and only one row is created', async (a) => {
  const k = key();
  const name = uniqueName('Replay');
  const first = await t.request('POST', '/v1/pets', { token, body: petBody(household, name), idempotencyKey: k });
  a.is(first.status, 201, first.text);
  a.is(first.headers.get('idempotent-replayed'), null);

  const second = await t.request('POST', '/v1/pets', { token, body: petBody(household, name), idempotencyKey: k });
  a.is(second.status, 201);
  a.is(second.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(second.body, first.body);
  a.is(second.headers.get('content-type'), first.headers.get('content-type'));

  // Key order and whitespace do not make a retry look different.
  const reordered = JSON.stringify(Object.fromEntries(Object.entries(petBody(household, name)).reverse()), null, 2);
  const third = await t.request('POST', '/v1/pets', { token, rawBody: reordered, headers: { 'content-type': 'application/json' }, idempotencyKey: k });
  a.is(third.status, 201);
  a.is(third.headers.get('idempotent-replayed'), 'true');
  a.is(third.body.id, first.body.id);

  a.is(await countPetsNamed(t, name), 1);
});

test('same key + different body: 422 idempotency_key_mismatch, nothing written', async (a) => {
  const k = key();
  const name = uniqueName('Mismatch');
  const first = await t.request('POST', '/v1/pets', { token, body: petBody(household, name), idempotencyKey: k });
  a.is(first.status, 201);
  const other = uniqueName('Other');
  const res = await t.request('POST', '/v1/pets', { token, body: petBody(household, other), idempotencyKey: k });
  assertProblem(a, res, 422, 'idempotency_key_mismatch', '/v1/pets');
  a.is(res.headers.get('idempotent-replayed'), null);
  a.is(await countPetsNamed(t, other), 0);

  // The same key on another operation is also a different request.
  const patch = await t.request('PATCH', `/v1/pets/${first.body.id}`, { token, body: { name: other }, idempotencyKey: k });
  assertProblem(a, patch, 422, 'idempotency_key_mismatch');
  a.is((await t.request('GET', `/v1/pets/${first.body.id}`, { token })).body.name, name);
});

test('PATCH replays the stored response without running again', async (a) => {
  const pet = await createPet(t, household.parent.id, household.location.id);
  const k = key();
  const first = await t.request('PATCH', `/v1/pets/${pet.id}`, { token, body: { breed: 'Basset' }, idempotencyKey: k });
  a.is(first.status, 200);
  a.is(first.body.breed, 'Basset');
  const changed = await t.request('PATCH', `/v1/pets/${pet.id}`, { token, body: { breed: 'Poodle' } });
  a.is(changed.body.breed, 'Poodle');

  const replay = await t.request('PATCH', `/v1/pets/${pet.id}`, { token, body: { breed: 'Basset' }, idempotencyKey: k });
  a.is(replay.status, 200);
  a.is(replay.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(replay.body, first.body);
  // The retry did not write again: the later change stands.
  a.is((await t.request('GET', `/v1/pets/${pet.id}`, { token })).body.breed, 'Poodle');
});

test('race: two identical requests with one key at once create exactly one row', async (a) => {
  for (let round = 0; round < 5; round++) {
    const k = key();
    const name = uniqueName(`Race${round}`);
    const body = petBody(household, name);
    const results = await Promise.all([
      t.request('POST', '/v1/pets', { token, body, idempotencyKey: k }),
      t.request('POST', '/v1/pets', { token, body, idempotencyKey: k }),
    ]);
    const fresh = results.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null);
    a.is(fresh.length, 1, `round ${round}: ${results.map((r) => `${r.status} ${r.headers.get('idempotent-replayed')}`).join(', ')}`);
    const other = results.find((r) => r !== fresh[0]);
    if (!other) continue;
    if (other.status === 201) {
      a.is(other.headers.get('idempotent-replayed'), 'true');
      a.deepEqual(other.body, fresh[0]?.body);
    } else {
      assertProblem(a, other, 409, 'idempotency_key_in_use', '/v1/pets');
      a.is(other.headers.get('retry-after'), '1');
    }
    a.is(await countPetsNamed(t, name), 1, `round ${round}`);
    // Once settled, a retry replays.
    const retry = await t.request('POST', '/v1/pets', { token, body, idempotencyKey: k });
    a.is(retry.headers.get('idempotent-replayed'), 'true');
    a.is(retry.body.id, fresh[0]?.body.id);
  }
});

test('race: a burst of ten with one key still writes once', async (a) => {
  const k = key();
  const name = uniqueName('Burst');
  const body = petBody(household, name);
  const results = await Promise.all(Array.from({ length: 10 }, () => t.request('POST', '/v1/pets', { token, body, idempotencyKey: k })));
  const created = results.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null);
  a.is(created.length, 1);
  for (const r of results) {
    if (r === created[0]) continue;
    a.true(r.status === 409 || (r.status === 201 && r.headers.get('idempotent-replayed') === 'true'), `${r.status} ${r.text}`);
  }
  a.is(await countPetsNamed(t, name), 1);
});

test('keys are scoped per client', async (a) => {
  const one = await t.client({ scopes: ['pets'] });
  const two = await t.client({ scopes: ['pets'] });
  const k = 'shared-key-1';
  const nameOne = uniqueName('ClientOne');
  const nameTwo = uniqueName('ClientTwo');
  const r1 = await t.request('POST', '/v1/pets', { token: one.accessToken, body: petBody(household, nameOne), idempotencyKey: k });
  const r2 = await t.request('POST', '/v1/pets', { token: two.accessToken, body: petBody(household, nameTwo), idempotencyKey: k });
  a.is(r1.status, 201);
  a.is(r2.status, 201);
  a.is(r2.headers.get('idempotent-replayed'), null);
  a.not(r1.body.id, r2.body.id);
  // Even the identical body under the same key is a separate request for another client.
  const nameSame = uniqueName('Same');
  const s1 = await t.request('POST', '/v1/pets', { token: one.accessToken, body: petBody(household, nameSame), idempotencyKey: 'shared-key-2' });
  const s2 = await t.request('POST', '/v1/pets', { token: two.accessToken, body: petBody(household, nameSame), idempotencyKey: 'shared-key-2' });
  a.is(s2.headers.get('idempotent-replayed'), null);
  a.not(s1.body.id, s2.body.id);
  a.is(await countPetsNamed(t, nameSame), 2);
  // And each still replays its own.
  const again = await t.request('POST', '/v1/pets', { token: two.accessToken, body: petBody(household, nameTwo), idempotencyKey: k });
  a.is(again.headers.get('idempotent-replayed'), 'true');
  a.is(again.body.id, r2.body.id);
});

test('an invalid Idempotency-Key is 400 invalid_idempotency_key and writes nothing', async (a) => {
  const name = uniqueName('BadKey');
  for (const bad of ['k'.repeat(256), 'has space', 'tab\there']) {
    const res = await t.request('POST', '/v1/pets', { token, body: petBody(household, name), idempotencyKey: bad });
    assertProblem(a, res, 400, 'invalid_idempotency_key', '/v1/pets');
    a.deepEqual(
      res.body.errors.map((e: { field: string }) => e.field),
      ['Idempotency-Key'],
    );
  }
  a.is(await countPetsNamed(t, name), 0);
  const longest = await t.request('POST', '/v1/pets', { token, body: petBody(household, name), idempotencyKey: `${'k'.repeat(254)}~` });
  a.is(longest.status, 201, '255 visible characters are fine');
});

test('a request that fails validation or a business rule does not burn the key', async (a) => {
  const k = key();
  const name = uniqueName('NotBurnt');
  const invalid = await t.request('POST', '/v1/pets', { token, body: { ...petBody(household, name), species: 'dragon' }, idempotencyKey: k });
  assertProblem(a, invalid, 400, 'validation_failed');
  const missingOwner = await t.request('POST', '/v1/pets', { token, body: { ...petBody(household, name), ownerId: 'usr_nobody' }, idempotencyKey: k });
  assertProblem(a, missingOwner, 400, 'resource_missing');

  const ok = await t.request('POST', '/v1/pets', { token, body: petBody(household, name), idempotencyKey: k });
  a.is(ok.status, 201, ok.text);
  a.is(ok.headers.get('idempotent-replayed'), null);
  a.is(await countPetsNamed(t, name), 1);
});

test('without a key every POST is a new request', async (a) => {
  const name = uniqueName('NoKey');
  const r1 = await t.request('POST', '/v1/pets', { token, body: petBody(household, name) });
  const r2 = await t.request('POST', '/v1/pets', { token, body: petBody(household, name) });
  a.is(r1.status, 201);
  a.is(r2.status, 201);
  a.not(r1.body.id, r2.body.id);
  a.is(await countPetsNamed(t, name), 2);
});

test('the key is kept 24 h: replayed just before, free for a new request after', async (a) => {
  // Its own app: the clock jumps a day, past every token of the shared app.
  const start = Date.parse('2026-02-01T08:00:00.000Z');
  const app = await startTestApp({ clock: new TestClock(start) });
  try {
    const c = await app.client({ scopes: ['pets'] });
    const home = await createHousehold(app);
    const k = 'daily-key';
    const firstName = uniqueName('Day1');
    const first = await app.request('POST', '/v1/pets', { token: c.accessToken, body: petBody(home, firstName), idempotencyKey: k });
    a.is(first.status, 201);

    app.clock.set(start + 24 * 3600_000 - 1);
    let fresh = await app.token(c.clientId, c.clientSecret);
    const replay = await app.request('POST', '/v1/pets', { token: fresh.body.access_token, body: petBody(home, firstName), idempotencyKey: k });
    a.is(replay.headers.get('idempotent-replayed'), 'true');
    a.is(replay.body.id, first.body.id);
    const mismatch = await app.request('POST', '/v1/pets', { token: fresh.body.access_token, body: petBody(home, 'x'), idempotencyKey: k });
    assertProblem(a, mismatch, 422, 'idempotency_key_mismatch');

    app.clock.set(start + 24 * 3600_000 + 1);
    fresh = await app.token(c.clientId, c.clientSecret);
    const secondName = uniqueName('Day2');
    const reused = await app.request('POST', '/v1/pets', { token: fresh.body.access_token, body: petBody(home, secondName), idempotencyKey: k });
    a.is(reused.status, 201, reused.text);
    a.is(reused.headers.get('idempotent-replayed'), null);
    a.not(reused.body.id, first.body.id);
    // The key now belongs to the new request.
    const replay2 = await app.request('POST', '/v1/pets', { token: fresh.body.access_token, body: petBody(home, secondName), idempotencyKey: k });
    a.is(replay2.headers.get('idempotent-replayed'), 'true');
    a.is(replay2.body.id, reused.body.id);
  } finally {
    await app.close();
  }
});

test('the stored record is the last line of defence: a second save of a live key rolls its write back', async (a) => {
  // What two processes (or a request slipping between find and begin) would do: both reach save().
  const store = new IdempotencyStore(86_400);
  const db = t.stores.get('live').db;
  const now = t.clock.now();
  const clientId = `cli_direct_${randomUUID().slice(0, 8)}`;
  const fingerprint = requestFingerprint('POST', '/v1/pets', { a: 1 });
  await db.transaction().execute((trx) => store.save(trx, clientId, 'k', { fingerprint, status: 201, body: { id: 'one' } }, now));
  const error = await a.throwsAsync(
    db.transaction().execute((trx) => store.save(trx, clientId, 'k', { fingerprint, status: 201, body: { id: 'two' } }, now + 1)),
  );
  a.true(error instanceof AppError);
  a.is((error as AppError).code, 'idempotency_key_in_use');
  a.deepEqual(await store.find(db, clientId, 'k', now + 2), { fingerprint, status: 201, body: { id: 'one' } });
  // Expired records may be replaced.
  await db.transaction().execute((trx) => store.save(trx, clientId, 'k', { fingerprint, status: 201, body: { id: 'three' } }, now + 86_400_000));
  a.deepEqual((await store.find(db, clientId, 'k', now + 86_400_001))?.body, { id: 'three' });
});
