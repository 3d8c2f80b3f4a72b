import path from 'node:path';
import SQLite from 'better-sqlite3';
import test from 'ava';
import { Kysely, SqliteDialect } from 'kysely';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { apiVersions, currentApiVersion } from '../../src/http/api-versions.js';
import type { Db } from '../../src/db/database.js';
import { createMigrator } from '../../src/db/migrator.js';
import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import { TestClock, type Response, useTestApp } from '../helpers/test-app.js';
import { book, createProvider, eventsWith, putSchedule, weekdays } from '../appointments/scheduling-support.js';
import { assertProblem } from './gateway-support.js';

/**
 * Dated versions within v1 (DESIGN §16): the Petcare-Version header, each client's pinned default,
 * the echo on every answer, 400 for an unknown version, and both answers of PATCH
 * /v1/appointments/{id} and POST /v1/providers/match. Monday 2026-11-23 08:00 UTC, London clinic.
 */
const now = Date.parse('2026-11-23T08:00:00.000Z');
const old = '2025-06-01';
const header = (version: string) => ({ 'petcare-version': version });

let admin: string;
let clinic: { location: { id: string }; pet: { id: string }; provider: { id: string; name: string } };

const t = useTestApp(test, { clock: new TestClock(now) });
test.before(async () => {
  admin = await t.adminToken();
  const location = await createLocation(t, { timezone: 'Europe/London' });
  const parent = await createPetParent(t, location.id);
  const pet = await createPet(t, parent.id, location.id);
  const provider = await createProvider(t, { name: 'Dr. Ada', locationIds: [location.id] });
  await putSchedule(t, provider.id, location.id);
  clinic = { location, pet, provider };
});

let slot = 0;
/** Books the next free half hour on Tuesday 2026-11-24 (09:00, 09:40, …). */
async function appointment(): Promise<{ id: string }> {
  const minutes = 9 * 60 + 40 * slot++;
  const startsAt = `2026-11-24T${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}:00Z`;
  const res = await book(t, { petId: clinic.pet.id, providerId: clinic.provider.id, type: 'vet_consultation', startsAt });
  if (res.status !== 201) throw new Error(`booking failed: ${res.status} ${res.text}`);
  return res.body;
}

/** A client with a pinned version (or the default when undefined), and a token for it. */
async function clientPinnedTo(apiVersion: string | undefined, scopes = ['bookings', 'pets']) {
  const created = await t.request('POST', '/v1/clients', {
    token: admin,
    body: { name: `pinned ${apiVersion ?? 'default'}`, role: 'staff', scopes, ...(apiVersion ? { apiVersion } : {}) },
  });
  if (created.status !== 201) throw new Error(`client create failed: ${created.status} ${created.text}`);
  const token = await t.token(created.body.clientId, created.body.clientSecret);
  return { id: created.body.id as string, apiVersion: created.body.apiVersion as string, token: token.body.access_token as string };
}

const patch = (id: string, body: Record<string, unknown>, token: string, headers: Record<string, string> = {}, idempotencyKey?: string) =>
  t.request('PATCH', `/v1/appointments/${id}`, { token, body, headers, ...(idempotencyKey ? { idempotencyKey } : {}) });

const versionOf = (res: Response) => res.headers.get('petcare-version');

// ---------------------------------------------------------------- the header, the echo, the 400

test('every answer echoes the version used: the current one by default, the requested one when sent', async (a) => {
  const calls: Array<[string, string, string | undefined]> = [
    ['GET', '/v1/locations', admin], // 200, protected
    ['GET', '/version', undefined], // public
    ['GET', '/v1/locations', undefined], // 401
    ['GET', '/v1/appointments/apt_missing', admin], // 404 from a route
    ['GET', '/v1/nothing-here', admin], // 404 from the gateway
    ['PUT', '/v1/locations', admin], // 405
  ];
  for (const [method, p, token] of calls) {
    const plain = await t.request(method, p, { token });
    a.is(versionOf(plain), currentApiVersion, `${method} ${p} ${plain.status}`);
    const asked = await t.request(method, p, { token, headers: header(old) });
    a.is(asked.status, plain.status, `${method} ${p}`);
    a.is(versionOf(asked), old, `${method} ${p} ${asked.status}`);
  }
});

test('an unknown or malformed version answers 400 unsupported_api_version, before authentication', async (a) => {
  for (const bad of ['2024-01-01', '2026-11-02', 'latest', '2025-6-1', `${old}, ${currentApiVersion}`, 'x'.repeat(300)]) {
    const res = await t.request('GET', '/v1/locations', { token: admin, headers: header(bad) });
    assertProblem(a, res, 400, 'unsupported_api_version', '/v1/locations');
    a.deepEqual(res.body.supportedVersions, [...apiVersions]);
    a.true(res.body.detail.length < 250, 'the detail quotes a bounded part of the header');
    // No version was used, so none is echoed.
    a.is(versionOf(res), null);
  }
  // Checked before the token: a caller without one learns about the header first.
  assertProblem(a, await t.request('GET', '/v1/locations', { headers: header('2020-01-01') }), 400, 'unsupported_api_version');
  // Writes are refused before anything happens.
  const before = await t.request('GET', '/v1/locations?limit=100', { token: admin });
  const write = await t.request('POST', '/v1/locations', { token: admin, headers: header('nope'), body: { name: 'Never', timezone: 'UTC' } });
  assertProblem(a, write, 400, 'unsupported_api_version');
  const after = await t.request('GET', '/v1/locations?limit=100', { token: admin });
  a.is(after.body.data.length, before.body.data.length);
});

// ---------------------------------------------------------------- the client's pinned default

test('a client is pinned to the current version at creation, or to the one it asks for; PATCH changes the pin', async (a) => {
  const fresh = await clientPinnedTo(undefined);
  a.is(fresh.apiVersion, currentApiVersion);
  const pinned = await clientPinnedTo(old);
  a.is(pinned.apiVersion, old);
  a.is((await t.request('GET', `/v1/clients/${pinned.id}`, { token: admin })).body.apiVersion, old);

  // The pin answers calls without a header, errors included; the header overrides it.
  const own = await t.request('GET', '/v1/appointments/apt_missing', { token: pinned.token });
  assertProblem(a, own, 404, 'not_found');
  a.is(versionOf(own), old);
  a.is(versionOf(await t.request('GET', '/v1/locations', { token: pinned.token })), old);
  a.is(versionOf(await t.request('GET', '/v1/locations', { token: pinned.token, headers: header(currentApiVersion) })), currentApiVersion);
  a.is(versionOf(await t.request('GET', '/v1/locations', { token: fresh.token })), currentApiVersion);

  // Moving the pin takes effect on the next call of a live token.
  const moved = await t.request('PATCH', `/v1/clients/${pinned.id}`, { token: admin, body: { apiVersion: currentApiVersion } });
  a.is(moved.status, 200, moved.text);
  a.is(moved.body.apiVersion, currentApiVersion);
  a.is(versionOf(await t.request('GET', '/v1/locations', { token: pinned.token })), currentApiVersion);

  // Only known versions may be pinned.
  for (const body of [{ name: 'bad pin', role: 'staff', scopes: ['pets'], apiVersion: '2024-01-01' }]) {
    const res = await t.request('POST', '/v1/clients', { token: admin, body });
    assertProblem(a, res, 400, 'validation_failed');
    a.is(res.body.errors[0].field, 'apiVersion');
  }
  const badPatch = await t.request('PATCH', `/v1/clients/${pinned.id}`, { token: admin, body: { apiVersion: 'latest' } });
  assertProblem(a, badPatch, 400, 'validation_failed');
  a.is(badPatch.body.errors[0].field, 'apiVersion');
});

test('clients that existed before versions are pinned to 2026-11-01, whose answers they were getting', async (a) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'petcare-versions-'));
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new SQLite(path.join(dir, 'old.sqlite')) }) }) as unknown as Db;
  try {
    const migrator = createMigrator(db);
    const names = (await migrator.getMigrations()).map((m) => m.name);
    const mine = names.indexOf('2026_11_23_1000_add_client_api_version');
    a.true(mine > 0);
    const before = await migrator.migrateTo(names[mine - 1] as string);
    a.falsy(before.error);
    const at = new Date(now).toISOString();
    await db.insertInto('tenants').values({ id: 'ten_old', name: 'Old clinic', created_at: at }).execute();
    await db
      .insertInto('api_clients')
      .values({
        id: 'cli_old',
        tenant_id: 'ten_old',
        client_id: 'pk_live_old',
        name: 'Old',
        role: 'staff',
        scopes: 'pets',
        secret_hash: 'x',
        disabled: 0,
        created_at: at,
        updated_at: at,
      } as never)
      .execute();
    const up = await migrator.migrateTo('2026_11_23_1000_add_client_api_version');
    a.falsy(up.error);
    const row = await db.selectFrom('api_clients').select('api_version').where('id', '=', 'cli_old').executeTakeFirstOrThrow();
    a.is(row.api_version, '2026-11-01');
    const down = await migrator.migrateDown();
    a.falsy(down.error);
  } finally {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
});

// ---------------------------------------------------------------- PATCH /v1/appointments/{id}

test('PATCH /v1/appointments/:id answers the full appointment in 2026-11-01 and the 2025-06-01 shape when asked', async (a) => {
  const booked = await appointment();
  const current = await patch(booked.id, { notes: 'current' }, admin);
  a.is(current.status, 200, current.text);
  a.is(versionOf(current), currentApiVersion);
  a.deepEqual(current.body.provider, { id: clinic.provider.id, name: clinic.provider.name });
  a.is(current.body.status, 'confirmed');
  a.is(current.body.type, 'vet_consultation');

  const older = await patch(booked.id, { status: 'CHECKED_IN' }, admin, header(old));
  a.is(older.status, 200, older.text);
  a.is(versionOf(older), old);
  const { provider: _provider, ...rest } = current.body;
  a.deepEqual(older.body, { ...rest, status: 'CHECKED_IN', type: 'VET_CONSULTATION', updatedAt: older.body.updatedAt });
  a.false('provider' in older.body);

  // The same appointment read back is unchanged by the version it was written in.
  const read = await t.request('GET', `/v1/appointments/${booked.id}`, { token: admin, headers: header(old) });
  a.is(read.body.status, 'checked_in');
  a.deepEqual(read.body.provider, { id: clinic.provider.id, name: clinic.provider.name });
});

test('PATCH /v1/appointments/:id follows the pin of a 2025-06-01 client; the header moves it to the current answer', async (a) => {
  const booked = await appointment();
  const pinned = await clientPinnedTo(old);
  const res = await patch(booked.id, { notes: 'pinned' }, pinned.token);
  a.is(res.status, 200, res.text);
  a.is(versionOf(res), old);
  a.like(res.body, { id: booked.id, status: 'CONFIRMED', type: 'VET_CONSULTATION', providerId: clinic.provider.id, notes: 'pinned' });
  a.false('provider' in res.body);
  const current = await patch(booked.id, { notes: 'current' }, pinned.token, header(currentApiVersion));
  a.is(versionOf(current), currentApiVersion);
  a.like(current.body, { status: 'confirmed', type: 'vet_consultation', provider: { id: clinic.provider.id } });
});

test('PATCH /v1/appointments/:id refusals are the same problem documents in both versions', async (a) => {
  const booked = await appointment();
  for (const version of apiVersions) {
    const h = header(version);
    const invalid = await patch(booked.id, { status: 7 }, admin, h);
    assertProblem(a, invalid, 400, 'validation_failed');
    a.is(versionOf(invalid), version);
    assertProblem(a, await patch(booked.id, { notes: 'x' }, '', h), 401, 'unauthorized');
    const reader = await t.client({ role: 'staff', scopes: ['bookings.read'] });
    assertProblem(a, await patch(booked.id, { notes: 'x' }, reader.accessToken, h), 403, 'insufficient_scope');
    const elsewhere = await createLocation(t);
    const scoped = await t.client({ role: 'staff', scopes: ['bookings'], locationIds: [elsewhere.id] });
    const hidden = await patch(booked.id, { notes: 'x' }, scoped.accessToken, h);
    assertProblem(a, hidden, 404, 'not_found');
    a.is(versionOf(hidden), version);
    const moved = await patch(booked.id, { status: 'completed' }, admin, h);
    assertProblem(a, moved, 409, 'invalid_state_transition');
  }
});

test('an Idempotency-Key replay answers in the version of the replaying request', async (a) => {
  const booked = await appointment();
  const key = `versions-replay-${booked.id}`;
  const first = await patch(booked.id, { status: 'checked_in' }, admin, header(old), key);
  a.is(first.status, 200, first.text);
  a.is(first.body.status, 'CHECKED_IN');

  const sameVersion = await patch(booked.id, { status: 'checked_in' }, admin, header(old), key);
  a.is(sameVersion.headers.get('idempotent-replayed'), 'true');
  a.is(versionOf(sameVersion), old);
  a.deepEqual(sameVersion.body, first.body);

  // The store keeps the current answer; a replay under the current version gets its shape.
  const current = await patch(booked.id, { status: 'checked_in' }, admin, {}, key);
  a.is(current.headers.get('idempotent-replayed'), 'true');
  a.is(versionOf(current), currentApiVersion);
  a.like(current.body, { status: 'checked_in', type: 'vet_consultation', provider: { id: clinic.provider.id } });
  a.is(current.body.updatedAt, first.body.updatedAt);

  // A replay changes nothing: one check-in, one audit-visible state.
  const read = await t.request('GET', `/v1/appointments/${booked.id}`, { token: admin });
  a.is(read.body.status, 'checked_in');
  a.is(read.body.updatedAt, first.body.updatedAt);
  // A different body under the key is still refused, whatever the version.
  assertProblem(a, await patch(booked.id, { notes: 'other' }, admin, header(old), key), 422, 'idempotency_key_mismatch');
});

test('events are the same whichever version the change was made in', async (a) => {
  const booked = await appointment();
  for (const status of ['checked_in', 'in_progress']) a.is((await patch(booked.id, { status }, admin, header(old))).status, 200);
  const done = await patch(booked.id, { status: 'completed' }, admin, header(old));
  a.is(done.body.status, 'COMPLETED');
  // Event payloads are not versioned: the same lower-case status and type as the current answer.
  const events = await eventsWith(t, 'appointment.completed', 'appointmentId', booked.id);
  a.is(events.length, 1);
  a.like(events[0]?.data, { appointmentId: booked.id, providerId: clinic.provider.id, status: 'completed', type: 'vet_consultation' });
});

// ---------------------------------------------------------------- POST /v1/providers/match

test('POST /v1/providers/match answers the ranking in 2026-11-01 and a bare array of providers in 2025-06-01', async (a) => {
  const location = await createLocation(t, { timezone: 'Europe/London' });
  const parent = await createPetParent(t, location.id);
  const pet = await createPet(t, parent.id, location.id);
  const later = await createProvider(t, { name: 'Dr. Later', locationIds: [location.id], services: ['vet_consultation'] });
  await putSchedule(t, later.id, location.id, weekdays([2], '09:00', '17:00'));
  const sooner = await createProvider(t, { name: 'Dr. Sooner', locationIds: [location.id], services: ['vet_consultation'] });
  await putSchedule(t, sooner.id, location.id, weekdays([1], '14:00', '17:00'));
  const body = { petId: pet.id, type: 'vet_consultation' };

  const current = await t.request('POST', '/v1/providers/match', { token: admin, body });
  a.is(current.status, 200, current.text);
  a.is(versionOf(current), currentApiVersion);
  a.deepEqual(
    current.body.data.map((m: { providerId: string }) => m.providerId),
    [sooner.id, later.id],
  );
  a.deepEqual(
    current.body.data.map((m: { rank: number }) => m.rank),
    [1, 2],
  );

  const older = await t.request('POST', '/v1/providers/match', { token: admin, body, headers: header(old) });
  a.is(older.status, 200, older.text);
  a.is(versionOf(older), old);
  a.true(Array.isArray(older.body));
  a.deepEqual(older.body, [
    { id: sooner.id, name: 'Dr. Sooner', kind: 'vet', rating: null },
    { id: later.id, name: 'Dr. Later', kind: 'vet', rating: null },
  ]);

  // A 2025-06-01 client gets the array without asking; an empty ranking is an empty array.
  const pinned = await clientPinnedTo(old, ['bookings.read']);
  const viaPin = await t.request('POST', '/v1/providers/match', { token: pinned.token, body });
  a.is(versionOf(viaPin), old);
  a.deepEqual(viaPin.body, older.body);
  const none = await t.request('POST', '/v1/providers/match', { token: pinned.token, body: { petId: pet.id, type: 'grooming' } });
  a.is(none.status, 200, none.text);
  a.deepEqual(none.body, []);
});

test('POST /v1/providers/match refusals in both versions: 400, 401, 403, and a pet elsewhere', async (a) => {
  const elsewhere = await createLocation(t);
  const scoped = await t.client({ role: 'staff', scopes: ['bookings.read'], locationIds: [elsewhere.id] });
  const petsOnly = await t.client({ role: 'staff', scopes: ['pets'] });
  for (const version of apiVersions) {
    const h = header(version);
    const invalid = await t.request('POST', '/v1/providers/match', { token: admin, body: { type: 'vet_consultation' }, headers: h });
    assertProblem(a, invalid, 400, 'validation_failed');
    a.is(versionOf(invalid), version);
    assertProblem(a, await t.request('POST', '/v1/providers/match', { body: { petId: clinic.pet.id, type: 'vaccination' }, headers: h }), 401, 'unauthorized');
    assertProblem(
      a,
      await t.request('POST', '/v1/providers/match', { token: petsOnly.accessToken, body: { petId: clinic.pet.id, type: 'vaccination' }, headers: h }),
      403,
      'insufficient_scope',
    );
    // The pet is at another location: a body reference the caller cannot see.
    const hidden = await t.request('POST', '/v1/providers/match', {
      token: scoped.accessToken,
      body: { petId: clinic.pet.id, type: 'vaccination' },
      headers: h,
    });
    assertProblem(a, hidden, 400, 'resource_missing');
    a.is(versionOf(hidden), version);
  }
});

// ---------------------------------------------------------------- the OpenAPI document

/** The schema a `$ref` points at (or the schema itself). */
const derefIn = (doc: Record<string, any>, node: Record<string, any>): Record<string, any> =>
  typeof node?.$ref === 'string'
    ? derefIn(
        doc,
        node.$ref
          .slice(2)
          .split('/')
          .reduce((n: Record<string, any>, k: string) => n[k], doc),
      )
    : node;

test('OpenAPI documents the header, the echo, each changed operation by version and the changelog', async (a) => {
  const doc = (await t.request('GET', '/openapi.json')).body;
  const older = (await t.request('GET', `/openapi.json?version=${old}`)).body;
  const parameter = doc.components.parameters['Petcare-Version'];
  a.like(parameter, { name: 'Petcare-Version', in: 'header', required: false });
  a.deepEqual(parameter.schema.enum, [...apiVersions]);
  a.deepEqual(
    doc['x-api-versions'].versions.map((v: { version: string }) => v.version),
    [...apiVersions].reverse(),
  );
  a.is(doc['x-api-versions'].current, currentApiVersion);
  a.is(doc['x-api-versions'].described, currentApiVersion);
  a.is(older['x-api-versions'].described, old);
  for (const version of apiVersions) a.true(doc.info.description.includes(`| \`${version}\``), `changelog row ${version}`);

  for (const [p, method] of [
    ['/v1/appointments/{id}', 'patch'],
    ['/v1/providers/match', 'post'],
  ] as const) {
    const op = doc.paths[p][method];
    a.true(
      op.parameters.some((x: { $ref?: string }) => x.$ref === '#/components/parameters/Petcare-Version'),
      `${method} ${p} header`,
    );
    a.truthy(op.responses['200'].headers['Petcare-Version']);
    // Each document describes its own version's answer only: no oneOf of versions.
    const current = derefIn(doc, op.responses['200'].content['application/json'].schema);
    const then = derefIn(older, older.paths[p][method].responses['200'].content['application/json'].schema);
    a.is(current.oneOf, undefined);
    a.is(then.oneOf, undefined);
    a.notDeepEqual(current, then, `${method} ${p}`);
    a.deepEqual(Object.keys(op['x-api-versions']), [old]);
    a.regex(op.description, /2025-06-01/);
    a.regex(op.responses['400'].description, /`unsupported_api_version`/);
  }
  a.is(derefIn(older, older.paths['/v1/providers/match'].post.responses['200'].content['application/json'].schema).type, 'array');
  a.is(derefIn(doc, doc.paths['/v1/providers/match'].post.responses['200'].content['application/json'].schema).type, 'object');
  // Unchanged operations keep a single schema but still take the header.
  const getOne = doc.paths['/v1/appointments/{id}'].get;
  a.is(getOne.responses['200'].content['application/json'].schema.oneOf, undefined);
  a.true(getOne.parameters.some((x: { $ref?: string }) => x.$ref === '#/components/parameters/Petcare-Version'));
});

test("each version's document lists only the parameters and fields that version takes and answers: GET /v1/orders", async (a) => {
  const doc = (await t.request('GET', '/openapi.json')).body;
  const older = (await t.request('GET', `/openapi.json?version=${old}`)).body;
  const queryOf = (d: Record<string, any>) =>
    (d.paths['/v1/orders'].get.parameters as Array<Record<string, any>>).filter((x) => x.in === 'query').map((x) => x.name as string);
  a.true(queryOf(doc).includes('cursor'));
  a.false(queryOf(doc).includes('page'));
  a.false(queryOf(doc).includes('perPage'));
  a.true(queryOf(older).includes('page'));
  a.true(queryOf(older).includes('perPage'));
  a.false(queryOf(older).includes('cursor'));
  const answerOf = (d: Record<string, any>) =>
    Object.keys(derefIn(d, d.paths['/v1/orders'].get.responses['200'].content['application/json'].schema).properties).sort();
  a.deepEqual(answerOf(doc), ['data', 'hasMore', 'nextCursor']);
  a.deepEqual(answerOf(older), ['orders', 'page', 'totalPages']);
  // The default document is the current version's; an unknown version is a 400.
  a.deepEqual((await t.request('GET', `/openapi.json?version=${currentApiVersion}`)).body, doc);
  const unknown = await t.request('GET', '/openapi.json?version=2024-01-01');
  a.is(unknown.status, 400);
  a.is(unknown.body.code, 'validation_failed');
});
