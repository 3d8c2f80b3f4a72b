import test from 'ava';
import { createLocation } from '../helpers/factories.js';
import { type TokenSet, useTestApp } from '../helpers/test-app.js';

const clientKeys = [
  'id',
  'clientId',
  'name',
  'role',
  'scopes',
  'environment',
  'locationIds',
  'ipAllowlist',
  'rateLimitPerMinute',
  'disabled',
  'apiVersion',
  'createdAt',
  'updatedAt',
].sort();
const withSecretKeys = [...clientKeys, 'clientSecret'].sort();

// Tests that compare table-wide counts or move the clock run serially (AVA runs them before concurrent ones).
let admin: string;
let sandboxAdmin: string;
let auditor: TokenSet; // admin role, admin.read only
let staff: TokenSet;
let locA: { id: string };
let locB: { id: string };

const t = useTestApp(test);
test.before(async () => {
  admin = await t.adminToken();
  sandboxAdmin = await t.adminToken('sandbox');
  locA = await createLocation(t, { name: 'Clients A' });
  locB = await createLocation(t, { name: 'Clients B' });
  [auditor, staff] = await Promise.all([
    t.client({ name: 'auditor', role: 'admin', scopes: ['admin.read'] }),
    t.client({ name: 'staff', role: 'staff', scopes: ['pets'] }),
  ]);
});

const live = () => t.stores.get('live').db;
const sandbox = () => t.stores.get('sandbox').db;

async function create(body: Record<string, unknown>, token = admin) {
  return t.request('POST', '/v1/clients', { token, body: { name: 'client', role: 'staff', scopes: ['pets'], ...body } });
}

// ---------------------------------------------------------------- create: happy path, secret once

test('POST /v1/clients returns the client with its secret, once, and the keys work', async (a) => {
  const res = await create({
    name: 'Front desk app',
    role: 'doctor',
    scopes: ['pets', 'medical', 'analytics.read'],
    locationIds: [locA.id],
    ipAllowlist: ['127.0.0.1/32', '::1'],
    rateLimitPerMinute: 1200,
  });
  a.is(res.status, 201, res.text);
  a.deepEqual(Object.keys(res.body).sort(), withSecretKeys);
  a.is(res.headers.get('cache-control'), 'no-store');
  const at = new Date(t.clock.now()).toISOString();
  a.like(res.body, {
    name: 'Front desk app',
    role: 'doctor',
    scopes: ['pets', 'medical', 'analytics.read'],
    environment: 'live',
    locationIds: [locA.id],
    ipAllowlist: ['127.0.0.1/32', '::1'],
    rateLimitPerMinute: 1200,
    disabled: false,
    createdAt: at,
    updatedAt: at,
  });
  a.regex(res.body.id, /^cli_[a-z0-9]{26}$/);
  a.regex(res.body.clientId, /^pk_live_[A-Za-z0-9_-]{20,}$/);
  a.regex(res.body.clientSecret, /^sk_live_[A-Za-z0-9_-]{40,}$/);

  // Stored only as a scrypt hash.
  const row = await live().selectFrom('api_clients').selectAll().where('id', '=', res.body.id).executeTakeFirstOrThrow();
  a.regex(row.secret_hash, /^scrypt\$/);
  a.false(JSON.stringify(row).includes(res.body.clientSecret));

  const token = await t.token(res.body.clientId, res.body.clientSecret);
  a.is(token.status, 200, token.text);
  a.deepEqual(token.body.scope.split(' ').sort(), ['analytics.read', 'medical', 'pets']);
});

test('the secret never appears in GET /v1/clients/:id or in the list', async (a) => {
  const created = await create({ name: 'Secretive' });
  const secret = created.body.clientSecret as string;
  const get = await t.request('GET', `/v1/clients/${created.body.id}`, { token: admin });
  a.is(get.status, 200);
  a.deepEqual(Object.keys(get.body).sort(), clientKeys);
  a.false(get.text.includes(secret));
  a.false(get.text.includes('scrypt'));
  const { clientSecret: _secret, ...rest } = created.body;
  a.deepEqual(get.body, rest);

  const list = await t.request('GET', '/v1/clients?limit=100', { token: admin });
  a.is(list.status, 200);
  a.false(list.text.includes(secret));
  a.false(list.text.includes('scrypt'));
  for (const c of list.body.data) a.deepEqual(Object.keys(c).sort(), clientKeys);
  a.true(list.body.data.some((c: { id: string }) => c.id === created.body.id));
});

test('GET /v1/clients/:id for an unknown id: 404', async (a) => {
  const res = await t.request('GET', '/v1/clients/cli_nobody', { token: admin });
  a.is(res.status, 404);
  a.is(res.body.code, 'not_found');
});

// ---------------------------------------------------------------- scopes against the role

test('scopes beyond the role answer 400 naming each offending scope; nothing is created', async (a) => {
  const cases: Array<[string, string[], string[]]> = [
    ['staff', ['pets', 'admin'], ['scopes[1]']],
    ['staff', ['medical'], ['scopes[0]']], // staff may only read medical
    ['staff', ['analytics.read', 'webhooks'], ['scopes[0]', 'scopes[1]']],
    ['doctor', ['payments'], ['scopes[0]']],
    ['doctor', ['pets', 'admin.read'], ['scopes[1]']],
  ];
  for (const [role, scopes, fields] of cases) {
    const res = await create({ name: `Overreach ${role} ${scopes.join(',')}`, role, scopes });
    a.is(res.status, 400, `${role} ${scopes}: ${res.text}`);
    a.is(res.body.code, 'validation_failed');
    a.deepEqual(
      res.body.errors.map((e: { field: string }) => e.field),
      fields,
    );
  }
  const made = await live().selectFrom('api_clients').select('id').where('name', 'like', 'Overreach%').execute();
  a.is(made.length, 0);

  // Within the role is fine, including a read scope the role holds through its write scope.
  for (const [role, scopes] of [
    ['staff', ['medical.read', 'pets.read', 'payments']],
    ['doctor', ['analytics.read', 'ai.read']],
    ['admin', ['admin', 'webhooks', 'analytics']],
  ] as const) {
    const ok = await create({ name: `Within ${role}`, role, scopes });
    a.is(ok.status, 201, `${role}: ${ok.text}`);
  }
});

// ---------------------------------------------------------------- validation and mass assignment

test.serial('POST /v1/clients: invalid fields answer 400 with the field', async (a) => {
  const before = (await live().selectFrom('api_clients').select('id').execute()).length;
  const missing = await t.request('POST', '/v1/clients', { token: admin, body: {} });
  a.is(missing.status, 400);
  a.deepEqual(missing.body.errors.map((e: { field: string }) => e.field).sort(), ['name', 'role', 'scopes']);

  const cases: Array<[Record<string, unknown>, string]> = [
    [{ name: '' }, 'name'],
    [{ role: 'superuser' }, 'role'],
    [{ role: 'ADMIN' }, 'role'],
    [{ scopes: [] }, 'scopes'],
    [{ scopes: 'pets' }, 'scopes'],
    [{ scopes: ['pets', 'pets'] }, 'scopes'],
    [{ scopes: ['everything'] }, 'scopes[0]'],
    [{ environment: 'staging' }, 'environment'],
    [{ locationIds: [] }, 'locationIds'],
    [{ locationIds: ['downtown'] }, 'locationIds'],
    [{ ipAllowlist: ['not-an-ip'] }, 'ipAllowlist[0]'],
    [{ ipAllowlist: ['10.0.0.0/33'] }, 'ipAllowlist[0]'],
    [{ ipAllowlist: [] }, 'ipAllowlist'],
    [{ rateLimitPerMinute: 0 }, 'rateLimitPerMinute'],
    [{ rateLimitPerMinute: 1.5 }, 'rateLimitPerMinute'],
  ];
  for (const [patch, field] of cases) {
    const res = await create(patch);
    a.is(res.status, 400, `${JSON.stringify(patch)}: ${res.text}`);
    a.true(
      (res.body.errors as { field: string }[]).some((e) => e.field === field),
      `${JSON.stringify(patch)} → ${JSON.stringify(res.body.errors)}`,
    );
  }
  a.is((await live().selectFrom('api_clients').select('id').execute()).length, before);
});

test.serial('POST /v1/clients: server-owned fields (id, clientId, clientSecret, disabled, tenantId…) are refused', async (a) => {
  const before = (await live().selectFrom('api_clients').select('id').execute()).length;
  for (const [field, value] of Object.entries({
    id: 'cli_forged',
    clientId: 'pk_live_chosen',
    clientSecret: 'sk_live_chosen',
    secretHash: 'scrypt$1$1$1$x$y',
    disabled: false,
    tenantId: 'ten_other',
    createdAt: '2000-01-01T00:00:00Z',
  })) {
    const res = await create({ [field]: value });
    a.is(res.status, 400, field);
    a.deepEqual(res.body.errors, [{ field, message: 'is not a recognised field' }]);
  }
  a.is((await live().selectFrom('api_clients').select('id').execute()).length, before);
  a.is(await live().selectFrom('api_clients').select('id').where('client_id', '=', 'pk_live_chosen').executeTakeFirst(), undefined);
});

test('POST /v1/clients: a location that does not exist answers 400 resource_missing', async (a) => {
  const res = await create({ locationIds: [locA.id, 'loc_ghost'] });
  a.is(res.status, 400);
  a.is(res.body.code, 'resource_missing');
  a.deepEqual(
    res.body.errors.map((e: { field: string }) => e.field),
    ['locationIds'],
  );
  // Sandbox locations are not live locations.
  const demo = await create({ locationIds: ['loc_demo_downtown'] });
  a.is(demo.status, 400);
  a.is(demo.body.code, 'resource_missing');
});

// ---------------------------------------------------------------- auth

test('401 without a token; 403 for non-admins; admin.read may read but not write', async (a) => {
  const target = await create({ name: 'Target' });
  const routes = [
    ['GET', '/v1/clients', undefined, 'read'],
    ['GET', `/v1/clients/${target.body.id}`, undefined, 'read'],
    ['POST', '/v1/clients', { name: 'x', role: 'staff', scopes: ['pets'] }, 'write'],
    ['PATCH', `/v1/clients/${target.body.id}`, { name: 'Pwned' }, 'write'],
    ['POST', `/v1/clients/${target.body.id}/rotate-secret`, undefined, 'write'],
  ] as const;
  for (const [method, path, body, kind] of routes) {
    const none = await t.request(method, path, body ? { body } : {});
    a.is(none.status, 401, `${method} ${path}`);
    a.regex(none.headers.get('www-authenticate') ?? '', /^Bearer/);
    const asStaff = await t.request(method, path, { token: staff.accessToken, ...(body ? { body } : {}) });
    a.is(asStaff.status, 403, `${method} ${path}`);
    const asAuditor = await t.request(method, path, { token: auditor.accessToken, ...(body ? { body } : {}) });
    a.is(asAuditor.status, kind === 'read' ? 200 : 403, `auditor ${method} ${path}`);
  }
  const row = await live().selectFrom('api_clients').selectAll().where('id', '=', target.body.id).executeTakeFirstOrThrow();
  a.is(row.name, 'Target');
  // The original secret still works: no rotation happened.
  a.is((await t.token(target.body.clientId, target.body.clientSecret)).status, 200);
});

// ---------------------------------------------------------------- PATCH

test.serial('PATCH /v1/clients/:id changes settings and updatedAt; narrowed scopes apply to live tokens', async (a) => {
  const created = await create({ name: 'Adjustable', role: 'staff', scopes: ['pets', 'bookings'] });
  const token = (await t.token(created.body.clientId, created.body.clientSecret)).body.access_token as string;
  a.is((await t.request('GET', '/v1/pets', { token })).status, 200);
  t.clock.advance(10_000);
  const res = await t.request('PATCH', `/v1/clients/${created.body.id}`, {
    token: admin,
    body: { name: 'Adjusted', scopes: ['bookings'], rateLimitPerMinute: 50, ipAllowlist: ['127.0.0.1'] },
  });
  a.is(res.status, 200, res.text);
  a.deepEqual(Object.keys(res.body).sort(), clientKeys);
  a.like(res.body, { name: 'Adjusted', scopes: ['bookings'], rateLimitPerMinute: 50, ipAllowlist: ['127.0.0.1'], createdAt: created.body.createdAt });
  a.is(res.body.updatedAt, new Date(t.clock.now()).toISOString());
  // The token was issued with pets; the client no longer holds it.
  a.is((await t.request('GET', '/v1/pets', { token })).status, 403);
  a.deepEqual((await t.request('GET', `/v1/clients/${created.body.id}`, { token: admin })).body, res.body);
});

test('PATCH /v1/clients/:id: a role change must keep scopes within the new role', async (a) => {
  const created = await create({ name: 'Doctor to be staff', role: 'doctor', scopes: ['medical'] });
  const res = await t.request('PATCH', `/v1/clients/${created.body.id}`, { token: admin, body: { role: 'staff' } });
  a.is(res.status, 400);
  a.deepEqual(
    res.body.errors.map((e: { field: string }) => e.field),
    ['scopes[0]'],
  );
  const ok = await t.request('PATCH', `/v1/clients/${created.body.id}`, { token: admin, body: { role: 'staff', scopes: ['medical.read'] } });
  a.is(ok.status, 200);
  a.is(ok.body.role, 'staff');
  const row = await live().selectFrom('api_clients').selectAll().where('id', '=', created.body.id).executeTakeFirstOrThrow();
  a.is(row.scopes, 'medical.read');
});

test('PATCH /v1/clients/:id: empty, unknown and server-owned fields, unknown client', async (a) => {
  const created = await create({ name: 'Patch validation' });
  a.is((await t.request('PATCH', `/v1/clients/${created.body.id}`, { token: admin, body: {} })).status, 400);
  for (const [field, value] of Object.entries({
    clientId: 'pk_live_mine',
    clientSecret: 'sk_live_mine',
    environment: 'sandbox',
    id: 'cli_x',
    createdAt: '2000-01-01T00:00:00Z',
  })) {
    const res = await t.request('PATCH', `/v1/clients/${created.body.id}`, { token: admin, body: { [field]: value } });
    a.is(res.status, 400, field);
    a.deepEqual(res.body.errors, [{ field, message: 'is not a recognised field' }]);
  }
  a.is((await t.request('PATCH', `/v1/clients/${created.body.id}`, { token: admin, body: { locationIds: ['loc_ghost'] } })).body.code, 'resource_missing');
  a.is((await t.request('PATCH', '/v1/clients/cli_ghost', { token: admin, body: { name: 'x' } })).status, 404);
  const row = await live().selectFrom('api_clients').selectAll().where('id', '=', created.body.id).executeTakeFirstOrThrow();
  a.is(row.client_id, created.body.clientId);
  a.is(row.location_ids, null);
});

test('disabling a client stops its tokens at once; enabling it again lets it get new ones, the old stay dead', async (a) => {
  const created = await create({ name: 'To disable' });
  const tokens = await t.token(created.body.clientId, created.body.clientSecret);
  const access = tokens.body.access_token as string;
  a.is((await t.request('GET', '/v1/pets', { token: access })).status, 200);

  const off = await t.request('PATCH', `/v1/clients/${created.body.id}`, { token: admin, body: { disabled: true } });
  a.is(off.status, 200);
  a.true(off.body.disabled);
  const refused = await t.request('GET', '/v1/pets', { token: access });
  a.is(refused.status, 401);
  a.is(refused.body.code, 'invalid_token');
  const newToken = await t.token(created.body.clientId, created.body.clientSecret);
  a.is(newToken.status, 401);
  a.is(newToken.body.error, 'invalid_client');
  const refresh = await t.request('POST', '/oauth/token', {
    body: { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token, client_id: created.body.clientId, client_secret: created.body.clientSecret },
  });
  a.not(refresh.status, 200);

  const filtered = await t.request('GET', '/v1/clients?disabled=true&limit=100', { token: admin });
  a.true(filtered.body.data.some((c: { id: string }) => c.id === created.body.id));
  for (const c of filtered.body.data) a.true(c.disabled);

  const on = await t.request('PATCH', `/v1/clients/${created.body.id}`, { token: admin, body: { disabled: false } });
  a.is(on.status, 200);
  // Issued before the disable: not revived by the re-enable (issue 16 §2). A new token works.
  a.is((await t.request('GET', '/v1/pets', { token: access })).status, 401);
  const renewed = await t.token(created.body.clientId, created.body.clientSecret);
  a.is((await t.request('GET', '/v1/pets', { token: renewed.body.access_token as string })).status, 200);
  // Refresh tokens revoked on disable stay revoked.
  const refreshAgain = await t.request('POST', '/oauth/token', {
    body: { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token, client_id: created.body.clientId, client_secret: created.body.clientSecret },
  });
  a.is(refreshAgain.status, 400);
  a.is(refreshAgain.body.error, 'invalid_grant');
});

// ---------------------------------------------------------------- rotate-secret

test('rotate-secret returns a new secret once; the old secret and refresh tokens stop working', async (a) => {
  const created = await create({ name: 'Rotating' });
  const old = await t.token(created.body.clientId, created.body.clientSecret);
  a.is(old.status, 200);

  const rotated = await t.request('POST', `/v1/clients/${created.body.id}/rotate-secret`, { token: admin });
  a.is(rotated.status, 200, rotated.text);
  a.is(rotated.headers.get('cache-control'), 'no-store');
  a.deepEqual(Object.keys(rotated.body).sort(), withSecretKeys);
  a.is(rotated.body.clientId, created.body.clientId);
  a.is(rotated.body.id, created.body.id);
  a.regex(rotated.body.clientSecret, /^sk_live_/);
  a.not(rotated.body.clientSecret, created.body.clientSecret);

  const withOld = await t.token(created.body.clientId, created.body.clientSecret);
  a.is(withOld.status, 401);
  a.is(withOld.body.error, 'invalid_client');
  const withNew = await t.token(created.body.clientId, rotated.body.clientSecret);
  a.is(withNew.status, 200);

  const refresh = await t.request('POST', '/oauth/token', {
    body: { grant_type: 'refresh_token', refresh_token: old.body.refresh_token, client_id: created.body.clientId, client_secret: rotated.body.clientSecret },
  });
  a.is(refresh.status, 400);
  a.is(refresh.body.error, 'invalid_grant');
  // Access tokens issued under the old secret are cut at once too.
  a.is((await t.request('GET', '/v1/pets', { token: old.body.access_token })).status, 401);

  const get = await t.request('GET', `/v1/clients/${created.body.id}`, { token: admin });
  a.false(get.text.includes(rotated.body.clientSecret));
  a.is((await t.request('POST', '/v1/clients/cli_ghost/rotate-secret', { token: admin })).status, 404);
});

// ---------------------------------------------------------------- environments

test('a live admin creates a sandbox client whose pk_test_/sk_test_ keys work in the sandbox only', async (a) => {
  const res = await create({ name: 'Vendor evaluation', role: 'staff', scopes: ['pets'], environment: 'sandbox' });
  a.is(res.status, 201, res.text);
  a.is(res.body.environment, 'sandbox');
  a.regex(res.body.clientId, /^pk_test_/);
  a.regex(res.body.clientSecret, /^sk_test_/);

  // Stored in the sandbox database, not the live one.
  a.truthy(await sandbox().selectFrom('api_clients').select('id').where('id', '=', res.body.id).executeTakeFirst());
  a.is(await live().selectFrom('api_clients').select('id').where('id', '=', res.body.id).executeTakeFirst(), undefined);

  const token = await t.token(res.body.clientId, res.body.clientSecret);
  a.is(token.status, 200, token.text);
  const bella = await t.request('GET', '/v1/pets/pet_demo_bella', { token: token.body.access_token });
  a.is(bella.status, 200);
  a.is(bella.body.name, 'Bella');

  // The live list does not show it; the sandbox admin's does, labelled sandbox.
  const liveList = await t.request('GET', '/v1/clients?limit=100', { token: admin });
  a.false(liveList.body.data.some((c: { id: string }) => c.id === res.body.id));
  for (const c of liveList.body.data) a.is(c.environment, 'live');
  const sandboxList = await t.request('GET', '/v1/clients?limit=100', { token: sandboxAdmin });
  const listed = sandboxList.body.data.find((c: { id: string }) => c.id === res.body.id);
  a.truthy(listed);
  a.is(listed.environment, 'sandbox');
  a.is((await t.request('GET', `/v1/clients/${res.body.id}`, { token: admin })).status, 404);
});

test('a sandbox client made by a live admin is scoped with sandbox location ids, not live ones', async (a) => {
  const scoped = await create({ name: 'Vendor downtown', environment: 'sandbox', locationIds: ['loc_demo_downtown'] });
  a.is(scoped.status, 201, scoped.text);
  a.deepEqual(scoped.body.locationIds, ['loc_demo_downtown']);
  const token = (await t.token(scoped.body.clientId, scoped.body.clientSecret)).body.access_token as string;
  a.is((await t.request('GET', '/v1/pets/pet_demo_bella', { token })).status, 200);
  a.is((await t.request('GET', '/v1/pets/pet_demo_oscar', { token })).status, 404);

  const liveLocation = await create({ name: 'Vendor live loc', environment: 'sandbox', locationIds: [locA.id] });
  a.is(liveLocation.status, 400);
  a.is(liveLocation.body.code, 'resource_missing');
  a.is((await sandbox().selectFrom('api_clients').select('id').where('name', '=', 'Vendor live loc').execute()).length, 0);
});

test('a sandbox client created by the sandbox admin is a sandbox client', async (a) => {
  const res = await create({ name: 'Sandbox own' }, sandboxAdmin);
  a.is(res.status, 201);
  a.is(res.body.environment, 'sandbox');
  a.regex(res.body.clientId, /^pk_test_/);
  const rotated = await t.request('POST', `/v1/clients/${res.body.id}/rotate-secret`, { token: sandboxAdmin });
  a.is(rotated.status, 200);
  a.regex(rotated.body.clientSecret, /^sk_test_/);
  a.is(rotated.body.environment, 'sandbox');
  a.is((await t.token(res.body.clientId, rotated.body.clientSecret)).status, 200);
});

test('a sandbox admin cannot create a live client: 403, nothing written', async (a) => {
  const res = await create({ name: 'Escape attempt', environment: 'live' }, sandboxAdmin);
  a.is(res.status, 403);
  a.is(res.body.code, 'environment_not_allowed');
  a.is((await live().selectFrom('api_clients').select('id').where('name', '=', 'Escape attempt').execute()).length, 0);
  a.is((await sandbox().selectFrom('api_clients').select('id').where('name', '=', 'Escape attempt').execute()).length, 0);
});

// ---------------------------------------------------------------- location-scoped admins

test('a location-scoped admin manages only clients confined to its locations', async (a) => {
  const siteAdmin = await t.client({ name: 'site admin A', role: 'admin', scopes: ['admin'], locationIds: [locA.id] });
  const inA = await create({ name: 'Confined to A', locationIds: [locA.id] });
  const inB = await create({ name: 'Confined to B', locationIds: [locB.id] });
  const inAB = await create({ name: 'A and B', locationIds: [locA.id, locB.id] });
  const everywhere = await create({ name: 'Everywhere' });

  const list = await t.request('GET', '/v1/clients?limit=100', { token: siteAdmin.accessToken });
  a.is(list.status, 200);
  const ids = list.body.data.map((c: { id: string }) => c.id);
  a.true(ids.includes(inA.body.id));
  for (const hidden of [inB, inAB, everywhere]) a.false(ids.includes(hidden.body.id), hidden.body.name);
  for (const c of list.body.data) a.true(c.locationIds.every((l: string) => l === locA.id));

  a.is((await t.request('GET', `/v1/clients/${inA.body.id}`, { token: siteAdmin.accessToken })).status, 200);
  for (const hidden of [inB, inAB, everywhere]) {
    a.is((await t.request('GET', `/v1/clients/${hidden.body.id}`, { token: siteAdmin.accessToken })).status, 404);
    a.is((await t.request('PATCH', `/v1/clients/${hidden.body.id}`, { token: siteAdmin.accessToken, body: { disabled: true } })).status, 404);
    a.is((await t.request('POST', `/v1/clients/${hidden.body.id}/rotate-secret`, { token: siteAdmin.accessToken })).status, 404);
  }
  // Nothing it cannot see was touched.
  a.is((await t.token(everywhere.body.clientId, everywhere.body.clientSecret)).status, 200);
});

test('a location-scoped admin cannot hand out access beyond its locations', async (a) => {
  const siteAdmin = await t.client({ name: 'site admin A (grants)', role: 'admin', scopes: ['admin'], locationIds: [locA.id] });
  const beyond = await create({ name: 'Grant B', locationIds: [locB.id] }, siteAdmin.accessToken);
  a.is(beyond.status, 400);
  a.deepEqual(
    beyond.body.errors.map((e: { field: string }) => e.field),
    ['locationIds[0]'],
  );
  const wholeTenant = await create({ name: 'Grant all', locationIds: null }, siteAdmin.accessToken);
  a.is(wholeTenant.status, 400);
  // Leaving locationIds out must not create an unscoped client either.
  const omitted = await create({ name: 'Grant omitted' }, siteAdmin.accessToken);
  a.is(omitted.status, 400, omitted.text);
  a.deepEqual(
    omitted.body.errors.map((e: { field: string }) => e.field),
    ['locationIds'],
  );
  for (const name of ['Grant B', 'Grant all', 'Grant omitted']) {
    a.is((await live().selectFrom('api_clients').select('id').where('name', '=', name).execute()).length, 0, name);
  }
  const ok = await create({ name: 'Grant A', locationIds: [locA.id] }, siteAdmin.accessToken);
  a.is(ok.status, 201);
  a.deepEqual(ok.body.locationIds, [locA.id]);

  // Nor widen a client it manages.
  const widen = await t.request('PATCH', `/v1/clients/${ok.body.id}`, { token: siteAdmin.accessToken, body: { locationIds: [locA.id, locB.id] } });
  a.is(widen.status, 400);
  const unscope = await t.request('PATCH', `/v1/clients/${ok.body.id}`, { token: siteAdmin.accessToken, body: { locationIds: null } });
  a.is(unscope.status, 400);
  const row = await live().selectFrom('api_clients').select('location_ids').where('id', '=', ok.body.id).executeTakeFirstOrThrow();
  a.is(row.location_ids, JSON.stringify([locA.id]));
});

// ---------------------------------------------------------------- lists

test.serial('GET /v1/clients: filter by role and disabled, newest first with cursor paging', async (a) => {
  const made: string[] = [];
  for (let i = 0; i < 3; i++) {
    t.clock.advance(1000);
    made.push((await create({ name: `Listed doctor ${i}`, role: 'doctor', scopes: ['pets'] })).body.id);
  }
  const doctors = await t.request('GET', '/v1/clients?role=doctor&limit=100', { token: admin });
  a.is(doctors.status, 200);
  for (const c of doctors.body.data) a.is(c.role, 'doctor');
  a.deepEqual(
    doctors.body.data.slice(0, 3).map((c: { id: string }) => c.id),
    [...made].reverse(),
  );

  const page1 = await t.request('GET', '/v1/clients?role=doctor&limit=2', { token: admin });
  a.is(page1.body.data.length, 2);
  a.true(page1.body.hasMore);
  const page2 = await t.request('GET', `/v1/clients?role=doctor&limit=2&cursor=${page1.body.nextCursor}`, { token: admin });
  a.is(page2.body.data[0].id, made[0]);

  const enabled = await t.request('GET', '/v1/clients?disabled=false&limit=100', { token: admin });
  for (const c of enabled.body.data) a.false(c.disabled);
  for (const q of ['role=owner', 'disabled=maybe', 'limit=0', 'name=x']) {
    a.is((await t.request('GET', `/v1/clients?${q}`, { token: admin })).status, 400, q);
  }
});

// ---------------------------------------------------------------- idempotency and events

test('Idempotency-Key on POST /v1/clients creates one client', async (a) => {
  const body = { name: 'Idempotent client', role: 'staff', scopes: ['pets'] };
  const first = await t.request('POST', '/v1/clients', { token: admin, body, idempotencyKey: 'client-once' });
  const replay = await t.request('POST', '/v1/clients', { token: admin, body, idempotencyKey: 'client-once' });
  a.is(first.status, 201);
  a.is(replay.status, 201);
  a.is(replay.headers.get('idempotent-replayed'), 'true');
  a.is(replay.body.id, first.body.id);
  a.is((await live().selectFrom('api_clients').select('id').where('name', '=', 'Idempotent client').execute()).length, 1);
  const mismatch = await t.request('POST', '/v1/clients', { token: admin, body: { ...body, role: 'doctor' }, idempotencyKey: 'client-once' });
  a.is(mismatch.status, 422);
});

test('a client secret is never stored in plain text, not even in the idempotency record', async (a) => {
  const body = { name: 'Plain text?', role: 'staff', scopes: ['pets'] };
  const created = await t.request('POST', '/v1/clients', { token: admin, body, idempotencyKey: 'client-secret-at-rest' });
  a.is(created.status, 201);
  a.true(created.body.clientSecret.startsWith('sk_live_'));
  const rows = await live().selectFrom('idempotency_keys').select('response_body').execute();
  a.false(rows.some((r) => r.response_body.includes(created.body.clientSecret)));
  // The replay is the same client, without the secret, and says what it left out.
  const replay = await t.request('POST', '/v1/clients', { token: admin, body, idempotencyKey: 'client-secret-at-rest' });
  a.is(replay.status, 201);
  a.is(replay.headers.get('idempotent-replayed'), 'true');
  a.is(replay.headers.get('idempotent-replayed-redacted'), 'clientSecret');
  a.is(replay.body.id, created.body.id);
  a.is(replay.body.clientSecret, undefined);
});

test.serial('client management emits no webhook event', async (a) => {
  const before = (await live().selectFrom('events').select('id').execute()).length;
  const c = await create({ name: 'Eventless' });
  await t.request('PATCH', `/v1/clients/${c.body.id}`, { token: admin, body: { name: 'Still eventless' } });
  await t.request('POST', `/v1/clients/${c.body.id}/rotate-secret`, { token: admin });
  a.is((await live().selectFrom('events').select('id').execute()).length, before);
});

test('Idempotency-Key on PATCH /v1/clients/:id replays the first answer; another body with the key answers 422', async (a) => {
  const c = await create({ name: 'Patch me once', role: 'staff', scopes: ['pets'] });
  const first = await t.request('PATCH', `/v1/clients/${c.body.id}`, { token: admin, body: { rateLimitPerMinute: 100 }, idempotencyKey: 'client-patch-once' });
  a.is(first.status, 200, first.text);
  const replay = await t.request('PATCH', `/v1/clients/${c.body.id}`, { token: admin, body: { rateLimitPerMinute: 100 }, idempotencyKey: 'client-patch-once' });
  a.is(replay.status, 200);
  a.is(replay.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(replay.body, first.body);
  const mismatch = await t.request('PATCH', `/v1/clients/${c.body.id}`, {
    token: admin,
    body: { rateLimitPerMinute: 200 },
    idempotencyKey: 'client-patch-once',
  });
  a.is(mismatch.status, 422);
});

test('Idempotency-Key on rotate-secret rotates once: the replay neither rotates again nor shows the secret', async (a) => {
  const c = await create({ name: 'Rotate me once', role: 'staff', scopes: ['pets'] });
  const first = await t.request('POST', `/v1/clients/${c.body.id}/rotate-secret`, { token: admin, idempotencyKey: 'rotate-once' });
  a.is(first.status, 200, first.text);
  const replay = await t.request('POST', `/v1/clients/${c.body.id}/rotate-secret`, { token: admin, idempotencyKey: 'rotate-once' });
  a.is(replay.status, 200);
  a.is(replay.headers.get('idempotent-replayed'), 'true');
  a.is(replay.headers.get('idempotent-replayed-redacted'), 'clientSecret');
  a.is(replay.body.clientSecret, undefined);
  // The secret from the first answer is still the one that works.
  a.is((await t.token(c.body.clientId, first.body.clientSecret)).status, 200);
  a.is((await t.token(c.body.clientId, c.body.clientSecret)).status, 401);
});
