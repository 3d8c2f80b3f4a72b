import test from 'ava';
import { createHousehold } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { clientCredentials, createClient, parseChallenge } from './oauth-test-kit.js';

let reader: { accessToken: string; id: string }; // staff, pets.read
let staff: { accessToken: string; id: string }; // staff, pets + bookings

const t = useTestApp(test);
test.before(async () => {
  reader = await t.client({ role: 'staff', scopes: ['pets.read'] });
  staff = await t.client({ role: 'staff', scopes: ['pets', 'bookings'] });
});

const admin = () => t.adminToken();

// ---- 403: scope and role ----

test('a pets.read client may read pets but not create one: 403 insufficient_scope', async (a) => {
  const { location, parent } = await createHousehold(t);
  a.is((await t.request('GET', '/v1/pets', { token: reader.accessToken })).status, 200);

  const res = await t.request('POST', '/v1/pets', {
    token: reader.accessToken,
    body: { name: 'Rex', breed: 'Beagle', species: 'dog', ownerId: parent.id, locationId: location.id },
  });
  a.is(res.status, 403, res.text);
  a.regex(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  a.is(res.body.code, 'insufficient_scope');
  a.is(res.body.type, 'urn:petcare:error:insufficient_scope');
  a.is(res.body.requiredScope, 'pets');
  const challenge = parseChallenge(res.headers.get('www-authenticate'));
  a.is(challenge.scheme, 'Bearer');
  a.is(challenge.params.error, 'insufficient_scope');
  a.is(challenge.params.scope, 'pets');
  // Nothing was written.
  const list = await t.request('GET', `/v1/pets?ownerId=${parent.id}`, { token: await admin() });
  a.is(list.body.data.length, 1);
});

test('a staff client gets 403 on admin routes', async (a) => {
  for (const [method, path, body] of [
    ['GET', '/v1/clients', undefined],
    ['POST', '/v1/clients', { name: 'x', role: 'staff', scopes: ['pets'] }],
    ['GET', '/v1/audit-events', undefined],
    ['GET', '/v1/locations', undefined],
    ['POST', '/v1/locations', { name: 'x', timezone: 'UTC' }],
  ] as const) {
    const res = await t.request(method, path, { token: staff.accessToken, ...(body ? { body } : {}) });
    a.is(res.status, 403, `${method} ${path}: ${res.text}`);
    a.true(['insufficient_scope', 'forbidden_role'].includes(res.body.code), res.text);
  }
  // A staff client cannot be handed the admin scope in the first place.
  const create = await t.request('POST', '/v1/clients', { token: await admin(), body: { name: 'x', role: 'staff', scopes: ['pets', 'admin.read'] } });
  a.is(create.status, 400);
  a.deepEqual(
    create.body.errors.map((e: { field: string }) => e.field),
    ['scopes[1]'],
  );
});

test('a refused call does not spend the write: 401 and 403 leave no row', async (a) => {
  const name = `sneaky ${Date.now()}`;
  a.is((await t.request('POST', '/v1/clients', { token: staff.accessToken, body: { name, role: 'admin', scopes: ['admin'] } })).status, 403);
  a.is((await t.request('POST', '/v1/clients', { body: { name, role: 'admin', scopes: ['admin'] } })).status, 401);
  const after = await t.request('GET', '/v1/clients?limit=100', { token: await admin() });
  a.false(after.body.data.some((c: { name: string }) => c.name === name));
});

// ---- IP allowlists ----

test('an allowlist without the caller address: 403 ip_not_allowed, on the API and on the token endpoint', async (a) => {
  // Create it open, take a token, then fence it off: an allowlisted client cannot even get a token from here.
  const client = await createClient(t, { role: 'staff', scopes: ['pets'] });
  const token = (await clientCredentials(t, client)).body.access_token as string;
  a.is((await t.request('GET', '/v1/pets', { token })).status, 200);

  const fenced = await t.request('PATCH', `/v1/clients/${client.id}`, { token: await admin(), body: { ipAllowlist: ['10.0.0.0/8'] } });
  a.is(fenced.status, 200, fenced.text);
  a.deepEqual(fenced.body.ipAllowlist, ['10.0.0.0/8']);

  const res = await t.request('GET', '/v1/pets', { token });
  a.is(res.status, 403, res.text);
  a.is(res.body.code, 'ip_not_allowed');
  a.regex(res.body.detail, /127\.0\.0\.1/);

  // A forged X-Forwarded-For does not help (the appliance does not trust proxies unless configured to).
  const spoofed = await t.request('GET', '/v1/pets', { token, headers: { 'x-forwarded-for': '10.1.2.3', 'x-real-ip': '10.1.2.3' } });
  a.is(spoofed.status, 403);

  const tokenRes = await clientCredentials(t, client);
  a.is(tokenRes.status, 403, tokenRes.text);
  a.is(tokenRes.body.code, 'ip_not_allowed');
  a.is(tokenRes.body.error, 'unauthorized_client');
  a.falsy(tokenRes.body.access_token);

  // Opening it again takes effect at once.
  await t.request('PATCH', `/v1/clients/${client.id}`, { token: await admin(), body: { ipAllowlist: null } });
  a.is((await t.request('GET', '/v1/pets', { token })).status, 200);
});

test('allowlists containing the loopback address let the client in', async (a) => {
  for (const ipAllowlist of [['127.0.0.1/32'], ['::1/128', '127.0.0.0/8'], ['127.0.0.1'], ['10.0.0.0/8', '127.0.0.0/8']]) {
    const client = await t.client({ role: 'staff', scopes: ['pets'], ipAllowlist });
    const res = await t.request('GET', '/v1/pets', { token: client.accessToken });
    a.is(res.status, 200, `${JSON.stringify(ipAllowlist)}: ${res.text}`);
  }
});

test('IPv6 addresses and CIDRs are accepted at creation and kept as given', async (a) => {
  const ipAllowlist = ['2001:db8::/32', 'fe80::/10', '::1', '::ffff:10.0.0.0/104', '192.168.0.0/16', '2001:DB8:0:0:0:0:0:1/128'];
  const client = await createClient(t, { role: 'staff', scopes: ['pets'], ipAllowlist });
  a.deepEqual(client.ipAllowlist, ipAllowlist);
  // None of these contains 127.0.0.1.
  const res = await clientCredentials(t, client);
  a.is(res.status, 403, res.text);
  a.is(res.body.code, 'ip_not_allowed');
});

test('an invalid CIDR is refused with 400 and the failing entry named', async (a) => {
  const bad = [
    '10.0.0.0/33',
    '2001:db8::/129',
    'not-an-ip',
    '300.1.1.1',
    '10.0.0.0/',
    '10.0.0.0/8/9',
    '10.0.0.0/-1',
    '10.0.0.0/8.5',
    '2001:db8::/ 32',
    '10.0.0.0/0x8',
    '::1/1e2',
  ];
  for (const entry of bad) {
    const res = await t.request('POST', '/v1/clients', {
      token: await admin(),
      body: { name: 'bad cidr', role: 'staff', scopes: ['pets'], ipAllowlist: ['127.0.0.1/32', entry] },
    });
    a.is(res.status, 400, `${entry}: ${res.text}`);
    a.is(res.body.code, 'validation_failed', entry);
    a.deepEqual(
      res.body.errors.map((e: { field: string }) => e.field),
      ['ipAllowlist[1]'],
      entry,
    );
  }
  // And through PATCH.
  const client = await createClient(t, { role: 'staff', scopes: ['pets'] });
  const patch = await t.request('PATCH', `/v1/clients/${client.id}`, { token: await admin(), body: { ipAllowlist: ['192.168.1.0/24', 'fe80::/200'] } });
  a.is(patch.status, 400, patch.text);
  a.deepEqual(
    patch.body.errors.map((e: { field: string }) => e.field),
    ['ipAllowlist[1]'],
  );
  const unchanged = await t.request('GET', `/v1/clients/${client.id}`, { token: await admin() });
  a.is(unchanged.body.ipAllowlist, null);
});

// ---- Audit of refused calls ----

interface AuditRow {
  requestId: string;
  status: number;
  clientId: string | null;
  role: string | null;
  route: string;
  method: string;
  ip: string;
}

async function auditRows(query: string): Promise<AuditRow[]> {
  const res = await t.request('GET', `/v1/audit-events?${query}&limit=100`, { token: await admin() });
  if (res.status !== 200) throw new Error(`audit list failed: ${res.status} ${res.text}`);
  return res.body.data as AuditRow[];
}

test('refused calls (401, 403) are in the audit trail and found by the status filter', async (a) => {
  const stamp = Date.now().toString(36);
  const unauthenticated = await t.request('GET', '/v1/pets', { headers: { 'x-request-id': `audit-401-${stamp}` } });
  a.is(unauthenticated.status, 401);
  const badToken = await t.request('GET', '/v1/pets', { token: 'garbage', headers: { 'x-request-id': `audit-401b-${stamp}` } });
  a.is(badToken.status, 401);
  const forbidden = await t.request('POST', '/v1/pets', { token: reader.accessToken, body: {}, headers: { 'x-request-id': `audit-403-${stamp}` } });
  a.is(forbidden.status, 403);
  const badClient = await clientCredentials(t, { clientId: 'pk_live_nobody', clientSecret: 'sk_live_nothing' });
  a.is(badClient.status, 401);

  const rows401 = await auditRows('status=401');
  a.true(rows401.length >= 3);
  a.true(rows401.every((r) => r.status === 401));
  const missing = rows401.find((r) => r.requestId === `audit-401-${stamp}`);
  a.truthy(missing, 'the call without a token is audited');
  a.is(missing?.clientId, null);
  a.is(missing?.method, 'GET');
  a.is(missing?.route, 'GET /v1/pets');
  a.is(missing?.ip, '127.0.0.1');
  a.truthy(
    rows401.find((r) => r.requestId === `audit-401b-${stamp}`),
    'the call with a garbage token is audited',
  );
  a.truthy(
    rows401.find((r) => r.requestId === badClient.headers.get('x-request-id') && r.route === 'POST /oauth/token'),
    'a failed token request is audited',
  );

  const rows403 = await auditRows('status=403');
  a.true(rows403.every((r) => r.status === 403));
  const refused = rows403.find((r) => r.requestId === `audit-403-${stamp}`);
  a.truthy(refused, 'the 403 is audited');
  a.is(refused?.clientId, reader.id, 'against the client that was refused');
  a.is(refused?.role, 'staff');
  a.is(refused?.route, 'POST /v1/pets');

  // The trail keeps no secrets or bodies.
  const all = await t.request('GET', '/v1/audit-events?limit=100', { token: await admin() });
  a.false(all.text.includes('sk_live_nothing'));
  a.false(all.text.includes(reader.accessToken));
});

test('a token endpoint error body names the OAuth error for a 403 too', async (a) => {
  const client = await createClient(t, { role: 'staff', scopes: ['pets'], ipAllowlist: ['10.0.0.0/8'] });
  const res = await clientCredentials(t, client);
  a.is(res.status, 403);
  a.is(res.headers.get('cache-control'), 'no-store');
  a.truthy(res.body.error);
  a.is(res.body.status, 403);
  a.is(res.body.code, 'ip_not_allowed');
});

test('a staff client cannot read the audit trail', async (a) => {
  const res = await t.request('GET', '/v1/audit-events?status=401', { token: staff.accessToken });
  a.is(res.status, 403);
});
