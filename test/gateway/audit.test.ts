import { randomUUID } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import test from 'ava';
import type { AuditEventSchema } from '../../src/modules/audit/audit.routes.js';
import { createHousehold } from '../helpers/factories.js';
import { adminCredentials, type Response, type TokenSet, useTestApp } from '../helpers/test-app.js';
import { assertProblem, petBody, uniqueName, walk } from './gateway-support.js';

/** The API shape of an audit event, from the schema the route publishes. */
type AuditEvent = Static<typeof AuditEventSchema>;

let admin: string;
let household: Awaited<ReturnType<typeof createHousehold>>;
let staff: TokenSet;
let limited: TokenSet;

const t = useTestApp(test);
test.before(async () => {
  admin = await t.adminToken();
  household = await createHousehold(t);
  staff = await t.client({ role: 'staff', scopes: ['pets'] });
  limited = await t.client({ role: 'staff', scopes: ['pets'], rateLimitPerMinute: 1 });
});

const rid = (label: string) => `${label}-${randomUUID()}`;

/** Every audit event the admin can see that matches the filter query. */
const events = (query = ''): Promise<AuditEvent[]> => walk<AuditEvent>(t, `/v1/audit-events${query ? `?${query}` : ''}`, admin);

async function eventFor(requestId: string, query = ''): Promise<AuditEvent> {
  const found = (await events(query)).filter((e) => e.requestId === requestId);
  if (found.length !== 1) throw new Error(`expected one audit event for ${requestId}, found ${found.length}`);
  return found[0] as AuditEvent;
}

test('every call is recorded, refused ones included: 401, 403, 404 (route and resource), 405, 429', async (a) => {
  const ids = {
    unauthorized: rid('401'),
    badToken: rid('401b'),
    forbidden: rid('403'),
    noRoute: rid('404r'),
    noPet: rid('404p'),
    method: rid('405'),
    ok: rid('200'),
    limited: rid('429'),
    malformed: rid('400'),
  };
  a.is((await t.request('GET', '/v1/pets', { headers: { 'x-request-id': ids.unauthorized } })).status, 401);
  a.is((await t.request('GET', '/v1/pets', { token: 'garbage.token.here', headers: { 'x-request-id': ids.badToken } })).status, 401);
  a.is((await t.request('GET', '/v1/clients', { token: staff.accessToken, headers: { 'x-request-id': ids.forbidden } })).status, 403);
  a.is((await t.request('GET', '/v1/nothing', { headers: { 'x-request-id': ids.noRoute } })).status, 404);
  a.is((await t.request('GET', '/v1/pets/pet_missing', { token: staff.accessToken, headers: { 'x-request-id': ids.noPet } })).status, 404);
  a.is((await t.request('DELETE', '/v1/pets', { token: staff.accessToken, headers: { 'x-request-id': ids.method } })).status, 405);
  a.is((await t.request('GET', '/v1/pets', { token: limited.accessToken, headers: { 'x-request-id': ids.ok } })).status, 200);
  a.is((await t.request('GET', '/v1/pets', { token: limited.accessToken, headers: { 'x-request-id': ids.limited } })).status, 429);

  const malformed = await t.request('POST', '/v1/pets', {
    token: staff.accessToken,
    rawBody: '{',
    headers: { 'content-type': 'application/json', 'x-request-id': ids.malformed },
  });
  a.is(malformed.status, 400);

  const all = await events();
  const by = (id: string) => all.find((e) => e.requestId === id);

  a.like(by(ids.unauthorized), { status: 401, clientId: null, role: null, method: 'GET', route: 'GET /v1/pets', path: '/v1/pets' });
  a.like(by(ids.badToken), { status: 401, clientId: null });
  a.like(by(ids.forbidden), { status: 403, clientId: staff.id, role: 'staff', route: 'GET /v1/clients' });
  a.like(by(ids.noRoute), { status: 404, route: '-', path: '/v1/nothing', clientId: null });
  a.like(by(ids.noPet), { status: 404, clientId: staff.id, route: 'GET /v1/pets/:id', resourceId: 'pet_missing' });
  a.like(by(ids.method), { status: 405, method: 'DELETE', path: '/v1/pets' });
  a.like(by(ids.ok), { status: 200, clientId: limited.id, role: 'staff' });
  a.like(by(ids.limited), { status: 429, clientId: limited.id, role: 'staff', route: 'GET /v1/pets' });
  // Recorded, though without the caller: the body parser refuses it before the route authenticates.
  a.like(by(ids.malformed), { status: 400, method: 'POST', path: '/v1/pets' });

  for (const id of Object.values(ids)) {
    const e = by(id);
    if (!e) {
      a.fail(`no audit event for ${id}`);
      continue;
    }
    a.regex(e.id, /^aud_/);
    a.false(Number.isNaN(Date.parse(e.occurredAt)));
    a.is(e.ip, '127.0.0.1');
    a.is(typeof e.latencyMs, 'number');
    a.true(e.latencyMs >= 0);
  }
});

test('a write has its audit row, with the resource id, in the same transaction', async (a) => {
  const requestId = rid('write');
  const created = await t.request('POST', '/v1/pets', {
    token: staff.accessToken,
    body: petBody(household, uniqueName('Audited')),
    headers: { 'x-request-id': requestId },
  });
  a.is(created.status, 201);
  const row = await eventFor(requestId, `resourceId=${created.body.id}`);
  a.like(row, { status: 201, method: 'POST', route: 'POST /v1/pets', path: '/v1/pets', clientId: staff.id, role: 'staff', resourceId: created.body.id });

  const patchId = rid('patch');
  t.clock.advance(1); // ids (and so "newest first") have millisecond resolution
  a.is(
    (await t.request('PATCH', `/v1/pets/${created.body.id}`, { token: staff.accessToken, body: { breed: 'Pug' }, headers: { 'x-request-id': patchId } }))
      .status,
    200,
  );
  a.like(await eventFor(patchId, `resourceId=${created.body.id}`), { status: 200, method: 'PATCH', route: 'PATCH /v1/pets/:id' });

  // A refused write leaves a row with its status and no resource.
  const refusedId = rid('refused');
  a.is((await t.request('POST', '/v1/pets', { token: staff.accessToken, body: { name: 'x' }, headers: { 'x-request-id': refusedId } })).status, 400);
  a.like(await eventFor(refusedId, 'status=400'), { status: 400, method: 'POST', resourceId: null, clientId: staff.id });

  // The whole history of the pet, newest first.
  const history = await events(`resourceId=${created.body.id}`);
  a.deepEqual(
    history.map((e) => e.method),
    ['PATCH', 'POST'],
  );
});

test('an idempotent replay is audited and names the resource it replayed', async (a) => {
  const key = rid('key');
  const body = petBody(household, uniqueName('ReplayAudit'));
  const first = await t.request('POST', '/v1/pets', { token: staff.accessToken, body, idempotencyKey: key });
  const replayId = rid('replay');
  const replay = await t.request('POST', '/v1/pets', { token: staff.accessToken, body, idempotencyKey: key, headers: { 'x-request-id': replayId } });
  a.is(replay.headers.get('idempotent-replayed'), 'true');
  a.like(await eventFor(replayId, `clientId=${staff.id}`), { status: 201, resourceId: first.body.id });
});

test('filters: status, clientId, method, resourceId (and they combine)', async (a) => {
  const c = await t.client({ role: 'staff', scopes: ['pets'] });
  const pet = await t.request('POST', '/v1/pets', { token: c.accessToken, body: petBody(household, uniqueName('Filtered')) });
  t.clock.advance(1); // ids (and so "newest first") have millisecond resolution
  await t.request('GET', `/v1/pets/${pet.body.id}`, { token: c.accessToken });
  t.clock.advance(1);
  await t.request('GET', '/v1/pets/pet_nope', { token: c.accessToken });
  t.clock.advance(1);
  await t.request('GET', '/v1/clients', { token: c.accessToken });

  const byStatus = await events('status=403');
  a.true(byStatus.length > 0);
  a.true(byStatus.every((e) => e.status === 403));

  const byClient = await events(`clientId=${c.id}`);
  a.deepEqual(
    byClient.map((e) => `${e.method} ${e.route} ${e.status}`),
    ['GET GET /v1/clients 403', 'GET GET /v1/pets/:id 404', 'GET GET /v1/pets/:id 200', 'POST POST /v1/pets 201'],
  );
  a.true(byClient.every((e) => e.clientId === c.id));

  const posts = await events(`clientId=${c.id}&method=post`);
  a.deepEqual(
    posts.map((e) => e.resourceId),
    [pet.body.id],
  );

  const byResource = await events(`resourceId=${pet.body.id}`);
  a.deepEqual(
    byResource.map((e) => e.status),
    [200, 201],
  );

  const combined = await events(`clientId=${c.id}&status=404`);
  a.deepEqual(
    combined.map((e) => e.resourceId),
    ['pet_nope'],
  );

  assertProblem(a, await t.request('GET', '/v1/audit-events?status=99', { token: admin }), 400, 'validation_failed');
  assertProblem(a, await t.request('GET', '/v1/audit-events?nonsense=1', { token: admin }), 400, 'validation_failed');
});

test('cursor paging walks every event exactly once, newest first', async (a) => {
  const c = await t.client({ role: 'staff', scopes: ['pets'] });
  for (let i = 0; i < 7; i++) {
    t.clock.advance(1); // distinct milliseconds: ids sort by time
    await t.request('GET', `/v1/pets/pet_page${i}`, { token: c.accessToken });
  }
  const pages: AuditEvent[][] = [];
  let cursor: string | null = null;
  do {
    const res: Response = await t.request('GET', `/v1/audit-events?clientId=${c.id}&limit=3${cursor ? `&cursor=${cursor}` : ''}`, { token: admin });
    a.is(res.status, 200);
    a.true(res.body.data.length <= 3);
    pages.push(res.body.data);
    a.is(res.body.hasMore, res.body.nextCursor !== null);
    cursor = res.body.nextCursor;
  } while (cursor);
  a.deepEqual(
    pages.map((p) => p.length),
    [3, 3, 1],
  );
  const flat = pages.flat();
  a.deepEqual(
    flat.map((e) => e.resourceId),
    [6, 5, 4, 3, 2, 1, 0].map((i) => `pet_page${i}`),
  );
  a.is(new Set(flat.map((e) => e.id)).size, 7);
  const sorted = [...flat.map((e) => e.id)].sort().reverse();
  a.deepEqual(
    flat.map((e) => e.id),
    sorted,
  );
  assertProblem(a, await t.request('GET', '/v1/audit-events?cursor=forged', { token: admin }), 400, 'invalid_cursor');
});

test('the audit trail is for admins only, and is itself audited', async (a) => {
  const res = await t.request('GET', '/v1/audit-events', { token: staff.accessToken });
  assertProblem(a, res, 403, 'insufficient_scope');
  const doctorish = await t.client({ role: 'staff', scopes: ['pets', 'medical.read'] });
  assertProblem(a, await t.request('GET', '/v1/audit-events', { token: doctorish.accessToken }), 403, 'insufficient_scope');
  const readId = rid('auditread');
  await t.request('GET', '/v1/audit-events?limit=1', { token: admin, headers: { 'x-request-id': readId } });
  a.like(await eventFor(readId, 'method=GET'), { route: 'GET /v1/audit-events', status: 200, role: 'admin' });
});

test('health probes are not audited; other public calls are', async (a) => {
  const ids = { health: rid('h'), ready: rid('r'), metrics: rid('m'), version: rid('v') };
  await t.request('GET', '/healthz', { headers: { 'x-request-id': ids.health } });
  await t.request('GET', '/readyz', { headers: { 'x-request-id': ids.ready } });
  await t.request('GET', '/metrics', { headers: { 'x-request-id': ids.metrics } });
  await t.request('GET', '/version', { headers: { 'x-request-id': ids.version } });
  const all = await events();
  const seen = new Set(all.map((e) => e.requestId));
  a.false(seen.has(ids.health));
  a.false(seen.has(ids.ready));
  a.false(seen.has(ids.metrics));
  a.true(seen.has(ids.version));
});

test('no secrets, tokens, query strings or bodies in audit rows', async (a) => {
  const secretName = uniqueName('SecretPetName');
  const c = await t.client({ role: 'staff', scopes: ['pets'] });
  // Credentials in the body, in a header and (wrongly) in the query string.
  await t.request('POST', `/oauth/token?client_secret=${c.clientSecret}`, {
    body: { grant_type: 'client_credentials', client_id: c.clientId, client_secret: c.clientSecret },
  });
  await t.request('POST', '/oauth/token', { body: { grant_type: 'client_credentials', client_id: c.clientId, client_secret: 'wrong-secret-value' } });
  await t.request('POST', '/oauth/token', { body: { grant_type: 'refresh_token', refresh_token: c.refreshToken } });
  await t.request('POST', '/v1/pets', { token: c.accessToken, body: petBody(household, secretName) });
  await t.request('GET', `/v1/pets?name=${secretName}`, { token: c.accessToken });
  await t.request('GET', `/v1/pets?access_token=${c.accessToken}`);

  await t.app.audit.flush();
  const rows = [
    ...(await t.stores.get('live').db.selectFrom('audit_events').selectAll().execute()),
    ...(await t.stores.get('sandbox').db.selectFrom('audit_events').selectAll().execute()),
  ];
  a.true(rows.length > 20);
  const dump = JSON.stringify(rows);
  for (const secret of [
    c.clientSecret,
    c.accessToken,
    c.refreshToken,
    c.accessToken.split('.')[2] as string,
    admin,
    adminCredentials.live.clientSecret,
    'wrong-secret-value',
    secretName,
  ]) {
    a.false(dump.includes(secret), `audit rows contain ${secret.slice(0, 12)}…`);
  }
  a.false(rows.some((r) => r.path.includes('?')));
  // Token calls are recorded, with the route and status only.
  a.true(rows.some((r) => r.route === 'POST /oauth/token' && r.status === 200));
  a.true(rows.some((r) => r.route === 'POST /oauth/token' && r.status === 401));
});

test('a location-scoped admin sees only its own calls', async (a) => {
  const scopedAdmin = await t.client({ role: 'admin', scopes: ['admin', 'pets'], locationIds: [household.location.id] });
  const mine = rid('scoped-own');
  await t.request('GET', '/v1/pets?limit=1', { token: scopedAdmin.accessToken, headers: { 'x-request-id': mine } });
  const theirs = rid('scoped-other');
  await t.request('GET', '/v1/pets?limit=1', { token: staff.accessToken, headers: { 'x-request-id': theirs } });
  const seen = await walk<AuditEvent>(t, '/v1/audit-events', scopedAdmin.accessToken);
  a.true(seen.some((e) => e.requestId === mine));
  a.false(seen.some((e) => e.requestId === theirs));
  a.true(seen.every((e) => e.clientId === scopedAdmin.id));
  // Filtering on another client does not widen the view.
  a.deepEqual(await walk<AuditEvent>(t, `/v1/audit-events?clientId=${staff.id}`, scopedAdmin.accessToken), []);
});

test('live and sandbox keep separate trails', async (a) => {
  const sandboxAdmin = await t.adminToken('sandbox');
  const inSandbox = rid('sandbox');
  await t.request('GET', '/v1/pets?limit=1', { token: sandboxAdmin, headers: { 'x-request-id': inSandbox } });
  const inLive = rid('live');
  await t.request('GET', '/v1/pets?limit=1', { token: admin, headers: { 'x-request-id': inLive } });
  const sandboxTrail = await walk<AuditEvent>(t, '/v1/audit-events', sandboxAdmin);
  const liveTrail = await events();
  a.true(sandboxTrail.some((e) => e.requestId === inSandbox));
  a.false(sandboxTrail.some((e) => e.requestId === inLive));
  a.true(liveTrail.some((e) => e.requestId === inLive));
  a.false(liveTrail.some((e) => e.requestId === inSandbox));
});
