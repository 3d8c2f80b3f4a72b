import test from 'ava';
import { SecretBox } from '../../src/db/secret-box.js';
import { createLocation } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { createEndpoint } from './webhook-support.js';

/** Endpoint management: CRUD, validation, scopes, tenant-wide rule, idempotent replay without the secret. */
let admin: string;
const hook = 'http://127.0.0.1:9/hooks';

// Deliveries are not under test here: nothing listens on port 9 and the runner is off.
const t = useTestApp(test, { config: { webhookAllowHosts: ['127.0.0.1'] }, jobs: false });
test.before(async () => {
  admin = await t.adminToken();
});

test('create answers 201 with a whsec_ secret shown once; reads never show it', async (a) => {
  const res = await t.request('POST', '/v1/webhook-endpoints', {
    token: admin,
    body: { url: hook, events: ['pet.registered', 'payment.succeeded'], description: 'CRM sync' },
  });
  a.is(res.status, 201, res.text);
  a.regex(res.body.id, /^whe_[a-z0-9]{26}$/);
  a.regex(res.body.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
  a.is(res.headers.get('cache-control'), 'no-store');
  a.deepEqual(res.body.events, ['pet.registered', 'payment.succeeded']);
  a.like(res.body, { url: hook, description: 'CRM sync', enabled: true, previousSecretExpiresAt: null });

  const got = await t.request('GET', `/v1/webhook-endpoints/${res.body.id}`, { token: admin });
  a.is(got.status, 200);
  a.false('secret' in got.body);
  a.false(got.text.includes(res.body.secret));
  const list = await t.request('GET', '/v1/webhook-endpoints', { token: admin });
  a.is(list.status, 200);
  a.true(list.body.data.some((e: { id: string }) => e.id === res.body.id));
  a.false(list.text.includes('whsec_'));
  // The secret is not in the audit trail either.
  const audit = await t.stores.get('live').db.selectFrom('audit_events').selectAll().execute();
  a.false(JSON.stringify(audit).includes(res.body.secret));
});

test('validation: url, events, unknown and server-owned fields', async (a) => {
  const bad = async (body: unknown, field: string) => {
    const res = await t.request('POST', '/v1/webhook-endpoints', { token: admin, body });
    a.is(res.status, 400, `${JSON.stringify(body)} → ${res.text}`);
    a.is(res.body.code, 'validation_failed');
    a.true(
      res.body.errors.some((e: { field: string }) => e.field === field),
      `${field} in ${res.text}`,
    );
  };
  await bad({ url: hook, events: [] }, 'events');
  await bad({ url: hook, events: ['pet.exploded'] }, 'events[0]');
  await bad({ url: hook, events: ['webhook.test'] }, 'events[0]');
  await bad({ url: hook, events: ['pet.registered', 'pet.registered'] }, 'events');
  await bad({ events: ['*'] }, 'url');
  await bad({ url: 'ftp://127.0.0.1/x', events: ['*'] }, 'url');
  await bad({ url: 'not a url', events: ['*'] }, 'url');
  await bad({ url: 'http://user:pw@127.0.0.1/x', events: ['*'] }, 'url');
  await bad({ url: `${hook}#frag`, events: ['*'] }, 'url');
  await bad({ url: `http://127.0.0.1/${'x'.repeat(2100)}`, events: ['*'] }, 'url');
  await bad({ url: hook, events: ['*'], secret: 'whsec_mine' }, 'secret');
  await bad({ url: hook, events: ['*'], id: 'whe_x' }, 'id');
  const malformed = await t.request('POST', '/v1/webhook-endpoints', { token: admin, rawBody: '{"url":', headers: { 'content-type': 'application/json' } });
  a.is(malformed.status, 400);
  a.is(malformed.body.code, 'malformed_json');
  const endpoint = await createEndpoint(t, { url: hook, events: ['*'] });
  const patch = await t.request('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, { token: admin, body: {} });
  a.is(patch.status, 400);
  const rotate = await t.request('POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, { token: admin, body: { expiresInHours: -1 } });
  a.is(rotate.status, 400);
  a.is(rotate.body.errors[0].field, 'expiresInHours');
});

test('PATCH changes url, events, description and enabled; DELETE removes it', async (a) => {
  const endpoint = await createEndpoint(t, { url: hook, events: ['pet.registered'] });
  const patched = await t.request('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, {
    token: admin,
    body: { url: 'http://127.0.0.1:10/other', events: ['*'], description: null, enabled: false },
  });
  a.is(patched.status, 200, patched.text);
  a.like(patched.body, { url: 'http://127.0.0.1:10/other', events: ['*'], description: null, enabled: false });
  a.false('secret' in patched.body);
  const disabledList = await t.request('GET', '/v1/webhook-endpoints?enabled=false', { token: admin });
  a.true(disabledList.body.data.every((e: { enabled: boolean }) => !e.enabled));
  a.true(disabledList.body.data.some((e: { id: string }) => e.id === endpoint.id));

  const refused = await t.request('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, { token: admin, body: { url: 'http://169.254.169.254/latest' } });
  a.is(refused.status, 400);
  a.is(refused.body.errors[0].field, 'url');

  const deleted = await t.request('DELETE', `/v1/webhook-endpoints/${endpoint.id}`, { token: admin });
  a.is(deleted.status, 200);
  a.deepEqual(deleted.body, { id: endpoint.id, deleted: true });
  a.is((await t.request('GET', `/v1/webhook-endpoints/${endpoint.id}`, { token: admin })).status, 404);
  a.is((await t.request('GET', `/v1/webhook-endpoints/${endpoint.id}/deliveries`, { token: admin })).status, 404);
  a.is((await t.request('DELETE', `/v1/webhook-endpoints/${endpoint.id}`, { token: admin })).status, 404);
  a.is((await t.request('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, { token: admin, body: { enabled: true } })).status, 404);
  // Its secret is gone from the database.
  const row = await t.stores.get('live').db.selectFrom('webhook_endpoints').selectAll().where('id', '=', endpoint.id).executeTakeFirstOrThrow();
  a.is(row.secret, '');
  a.truthy(row.deleted_at);
});

test('rotate-secret issues a new secret; the old one signs until previousSecretExpiresAt', async (a) => {
  const endpoint = await createEndpoint(t, { url: hook, events: ['*'] });
  const rotated = await t.request('POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, { token: admin });
  a.is(rotated.status, 200, rotated.text);
  a.not(rotated.body.secret, endpoint.secret);
  a.regex(rotated.body.secret, /^whsec_/);
  a.is(rotated.body.previousSecretExpiresAt, new Date(t.clock.now() + 24 * 3_600_000).toISOString());
  const short = await t.request('POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, { token: admin, body: { expiresInHours: 2 } });
  a.is(short.body.previousSecretExpiresAt, new Date(t.clock.now() + 2 * 3_600_000).toISOString());
  const now = await t.request('POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, { token: admin, body: { expiresInHours: 0 } });
  a.is(now.body.previousSecretExpiresAt, null);
});

test('idempotent replay of POST /v1/webhook-endpoints answers the same endpoint without the secret', async (a) => {
  const body = { url: hook, events: ['pet.registered'] };
  const first = await t.request('POST', '/v1/webhook-endpoints', { token: admin, body, idempotencyKey: 'whe-create-1' });
  a.is(first.status, 201);
  a.regex(first.body.secret, /^whsec_/);
  const replay = await t.request('POST', '/v1/webhook-endpoints', { token: admin, body, idempotencyKey: 'whe-create-1' });
  a.is(replay.status, 201);
  a.is(replay.headers.get('idempotent-replayed'), 'true');
  a.is(replay.headers.get('idempotent-replayed-redacted'), 'secret');
  a.is(replay.body.id, first.body.id);
  a.false('secret' in replay.body);
  a.false(replay.text.includes(first.body.secret));
  const stored = await t.stores.get('live').db.selectFrom('idempotency_keys').selectAll().where('key', '=', 'whe-create-1').executeTakeFirstOrThrow();
  a.false(stored.response_body.includes(first.body.secret));
  const count = await t.stores
    .get('live')
    .db.selectFrom('webhook_endpoints')
    .select('id')
    .where('url', '=', hook)
    .where('events', '=', '["pet.registered"]')
    .execute();
  a.is(count.length, 1);
  const other = await t.request('POST', '/v1/webhook-endpoints', { token: admin, body: { ...body, events: ['*'] }, idempotencyKey: 'whe-create-1' });
  a.is(other.status, 422);

  // A replayed rotation does not rotate twice.
  const r1 = await t.request('POST', `/v1/webhook-endpoints/${first.body.id}/rotate-secret`, { token: admin, idempotencyKey: 'whe-rotate-1' });
  const before = await t.stores.get('live').db.selectFrom('webhook_endpoints').select('secret').where('id', '=', first.body.id).executeTakeFirstOrThrow();
  const r2 = await t.request('POST', `/v1/webhook-endpoints/${first.body.id}/rotate-secret`, { token: admin, idempotencyKey: 'whe-rotate-1' });
  const after = await t.stores.get('live').db.selectFrom('webhook_endpoints').select('secret').where('id', '=', first.body.id).executeTakeFirstOrThrow();
  a.is(r1.body.secret, SecretBox.forDataDir(t.dataDir).open(before.secret), 'stored sealed, shown once in clear');
  a.is(after.secret, before.secret);
  a.false('secret' in r2.body);
  a.is(r2.headers.get('idempotent-replayed-redacted'), 'secret');
});

test('auth: 401 without a token, 403 without the webhooks scope, read-only scope cannot write', async (a) => {
  a.is((await t.request('GET', '/v1/webhook-endpoints')).status, 401);
  a.is((await t.request('POST', '/v1/webhook-endpoints', { body: { url: hook, events: ['*'] } })).status, 401);
  a.is((await t.request('GET', '/v1/events')).status, 401);
  const staff = await t.client({ role: 'staff', scopes: ['pets'] });
  const denied = await t.request('GET', '/v1/webhook-endpoints', { token: staff.accessToken });
  a.is(denied.status, 403);
  a.is(denied.body.code, 'insufficient_scope');
  a.is((await t.request('GET', '/v1/events', { token: staff.accessToken })).status, 403);
  const reader = await t.client({ role: 'admin', scopes: ['webhooks.read'] });
  a.is((await t.request('GET', '/v1/webhook-endpoints', { token: reader.accessToken })).status, 200);
  a.is((await t.request('GET', '/v1/events', { token: reader.accessToken })).status, 200);
  a.is((await t.request('GET', '/v1/event-types', { token: reader.accessToken })).status, 200);
  const write = await t.request('POST', '/v1/webhook-endpoints', { token: reader.accessToken, body: { url: hook, events: ['*'] } });
  a.is(write.status, 403);
  a.is(write.body.code, 'insufficient_scope');
  const endpoint = await createEndpoint(t, { url: hook, events: ['*'] });
  a.is((await t.request('POST', `/v1/webhook-endpoints/${endpoint.id}/test`, { token: reader.accessToken })).status, 403);
  a.is((await t.request('POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, { token: reader.accessToken })).status, 403);
});

test('a client confined to locations may not manage endpoints nor read the event stream (403 tenant_wide_only)', async (a) => {
  const location = await createLocation(t);
  const confined = await t.client({ role: 'admin', scopes: ['webhooks'], locationIds: [location.id] });
  const endpoint = await createEndpoint(t, { url: hook, events: ['*'] });
  for (const [method, path, body] of [
    ['GET', '/v1/webhook-endpoints', undefined],
    ['POST', '/v1/webhook-endpoints', { url: hook, events: ['*'] }],
    ['GET', `/v1/webhook-endpoints/${endpoint.id}`, undefined],
    ['PATCH', `/v1/webhook-endpoints/${endpoint.id}`, { enabled: false }],
    ['GET', `/v1/webhook-endpoints/${endpoint.id}/deliveries`, undefined],
    ['GET', '/v1/events', undefined],
    ['GET', '/v1/events/evt_01abcdefghjkmnpqrstvwxyz00', undefined],
  ] as const) {
    const res = await t.request(method, path, { token: confined.accessToken, body });
    a.is(res.status, 403, `${method} ${path}: ${res.text}`);
    a.is(res.body.code, 'tenant_wide_only');
  }
  // The catalogue holds no data: any webhooks.read client may read it.
  a.is((await t.request('GET', '/v1/event-types', { token: confined.accessToken })).status, 200);
});

test('unknown ids answer 404; sandbox endpoints are invisible from live', async (a) => {
  a.is((await t.request('GET', '/v1/webhook-endpoints/whe_nope', { token: admin })).status, 404);
  a.is((await t.request('POST', '/v1/webhook-endpoints/whe_nope/test', { token: admin })).status, 404);
  a.is((await t.request('POST', '/v1/webhook-endpoints/whe_nope/rotate-secret', { token: admin })).status, 404);
  const sandbox = await createEndpoint(t, { url: hook, events: ['*'] }, await t.adminToken('sandbox'));
  a.is((await t.request('GET', `/v1/webhook-endpoints/${sandbox.id}`, { token: admin })).status, 404);
  a.is((await t.request('GET', `/v1/webhook-endpoints/${sandbox.id}`, { token: await t.adminToken('sandbox') })).status, 200);
});
