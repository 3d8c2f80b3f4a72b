import test from 'ava';
import { adminCredentials, useTestApp } from '../helpers/test-app.js';
import { assertOAuthError, basicAuth, clientCredentials, createClient, decodeJwt, postForm, postJson, type CreatedClient } from './oauth-test-kit.js';

let staff: CreatedClient; // ceiling: pets bookings payments
let doctor: CreatedClient; // ceiling: pets medical analytics.read

const t = useTestApp(test);
test.before(async () => {
  staff = await createClient(t, { role: 'staff', scopes: ['pets', 'bookings', 'payments'] });
  doctor = await createClient(t, { role: 'doctor', scopes: ['pets', 'medical', 'analytics.read'] });
});

test('client_credentials with the seed JSON body returns exactly the seed token response', async (a) => {
  const res = await postJson(t, '/oauth/token', {
    grant_type: 'client_credentials',
    client_id: staff.clientId,
    client_secret: staff.clientSecret,
    scope: 'pets bookings',
  });
  a.is(res.status, 200, res.text);
  a.deepEqual(Object.keys(res.body).sort(), ['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type']);
  a.is(res.body.token_type, 'Bearer');
  a.is(res.body.expires_in, 3600);
  a.is(res.body.scope, 'bookings pets');
  a.regex(res.body.access_token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
  a.regex(res.body.refresh_token, /^rt_live_[\w-]{20,}$/);
  a.is(res.headers.get('cache-control'), 'no-store');
  a.is(res.headers.get('pragma'), 'no-cache');
  a.regex(res.headers.get('content-type') ?? '', /^application\/json/);

  // The token works on the API straight away.
  const pets = await t.request('GET', '/v1/pets', { token: res.body.access_token });
  a.is(pets.status, 200, pets.text);
});

test('client_credentials accepts a form-encoded body (RFC 6749 §4.4.2)', async (a) => {
  const res = await postForm(t, '/oauth/token', {
    grant_type: 'client_credentials',
    client_id: staff.clientId,
    client_secret: staff.clientSecret,
    scope: 'pets',
  });
  a.is(res.status, 200, res.text);
  a.is(res.body.token_type, 'Bearer');
  a.is(res.body.scope, 'pets');
  a.is(res.body.expires_in, 3600);
  a.is(typeof res.body.refresh_token, 'string');
  a.is(res.headers.get('cache-control'), 'no-store');
});

test('client_credentials accepts HTTP Basic client authentication (RFC 6749 §2.3.1)', async (a) => {
  const form = await postForm(
    t,
    '/oauth/token',
    { grant_type: 'client_credentials', scope: 'payments' },
    { authorization: basicAuth(staff.clientId, staff.clientSecret) },
  );
  a.is(form.status, 200, form.text);
  a.is(form.body.scope, 'payments');

  const json = await postJson(t, '/oauth/token', { grant_type: 'client_credentials' }, { authorization: basicAuth(staff.clientId, staff.clientSecret) });
  a.is(json.status, 200, json.text);
  a.is(json.body.scope, 'bookings payments pets');
  a.is(decodeJwt(json.body.access_token).payload.sub, staff.id);
});

test('HTTP Basic and body credentials together are refused (one method per request, RFC 6749 §2.3)', async (a) => {
  const authorization = basicAuth(staff.clientId, staff.clientSecret);
  const otherId = await postForm(t, '/oauth/token', { grant_type: 'client_credentials', client_id: doctor.clientId }, { authorization });
  assertOAuthError(a, otherId, 400, 'invalid_request');
  const twoSecrets = await postForm(
    t,
    '/oauth/token',
    { grant_type: 'client_credentials', client_id: staff.clientId, client_secret: staff.clientSecret },
    { authorization },
  );
  assertOAuthError(a, twoSecrets, 400, 'invalid_request');
  // Repeating the Basic client's own id in the body is fine (RFC 6749 §3.2.1).
  const sameId = await postForm(t, '/oauth/token', { grant_type: 'client_credentials', client_id: staff.clientId }, { authorization });
  a.is(sameId.status, 200, sameId.text);
});

test('a wrong secret answers 401 invalid_client with OAuth and RFC 9457 members', async (a) => {
  const res = await clientCredentials(t, { clientId: staff.clientId, clientSecret: `${staff.clientSecret}x` });
  assertOAuthError(a, res, 401, 'invalid_client');
  a.is(res.body.title, 'Client authentication failed');
  a.is(res.body.instance, '/oauth/token');
  a.false(res.text.includes(staff.clientSecret), 'the secret is never echoed');
  a.falsy(res.body.access_token);
});

test('a wrong secret over HTTP Basic answers 401 with a Basic challenge (RFC 6749 §5.2)', async (a) => {
  const res = await postForm(t, '/oauth/token', { grant_type: 'client_credentials' }, { authorization: basicAuth(staff.clientId, 'sk_live_wrong') });
  assertOAuthError(a, res, 401, 'invalid_client');
  a.regex(res.headers.get('www-authenticate') ?? '', /^Basic realm="petcare"$/);
});

test('an unknown client id, or no credentials at all, answers 401 invalid_client', async (a) => {
  const unknown = await clientCredentials(t, { clientId: 'pk_live_doesnotexist', clientSecret: 'sk_live_whatever' });
  assertOAuthError(a, unknown, 401, 'invalid_client');
  // Same answer as a wrong secret: an attacker cannot tell which client ids exist.
  const wrong = await clientCredentials(t, { clientId: staff.clientId, clientSecret: 'sk_live_whatever' });
  a.is(unknown.body.detail, wrong.body.detail);

  const none = await postJson(t, '/oauth/token', { grant_type: 'client_credentials' });
  assertOAuthError(a, none, 401, 'invalid_client');

  const noSecret = await postJson(t, '/oauth/token', { grant_type: 'client_credentials', client_id: staff.clientId });
  assertOAuthError(a, noSecret, 401, 'invalid_client');
});

test('malformed Basic credentials answer 400 invalid_request', async (a) => {
  const res = await postForm(
    t,
    '/oauth/token',
    { grant_type: 'client_credentials' },
    { authorization: `Basic ${Buffer.from('no-colon-here').toString('base64')}` },
  );
  assertOAuthError(a, res, 400, 'invalid_request');
});

test('an unknown grant type answers 400 unsupported_grant_type; a missing one 400 invalid_request', async (a) => {
  for (const grant of ['password', 'authorization_code', 'urn:ietf:params:oauth:grant-type:jwt-bearer', 'CLIENT_CREDENTIALS']) {
    const res = await postJson(t, '/oauth/token', { grant_type: grant, client_id: staff.clientId, client_secret: staff.clientSecret });
    assertOAuthError(a, res, 400, 'unsupported_grant_type');
  }
  const missing = await postJson(t, '/oauth/token', { client_id: staff.clientId, client_secret: staff.clientSecret });
  assertOAuthError(a, missing, 400, 'invalid_request');
});

test('an unknown scope answers 400 invalid_scope', async (a) => {
  for (const scope of ['pets everything', 'pets.write', 'PETS', 'admin.read.all']) {
    const res = await clientCredentials(t, staff, scope);
    assertOAuthError(a, res, 400, 'invalid_scope');
  }
});

test('omitting scope grants the client ceiling', async (a) => {
  const res = await clientCredentials(t, staff);
  a.is(res.status, 200, res.text);
  a.is(res.body.scope, 'bookings payments pets');
  a.is(decodeJwt(res.body.access_token).payload.scope, 'bookings payments pets');

  const empty = await clientCredentials(t, staff, '');
  a.is(empty.status, 200, empty.text);
  a.is(empty.body.scope, 'bookings payments pets');
});

test('granted scope = requested ∩ client ceiling ∩ role: a staff client cannot get admin', async (a) => {
  const onlyAdmin = await clientCredentials(t, staff, 'admin');
  assertOAuthError(a, onlyAdmin, 400, 'invalid_scope');

  const adminRead = await clientCredentials(t, staff, 'admin.read');
  assertOAuthError(a, adminRead, 400, 'invalid_scope');

  // A partly allowed request is narrowed to what may be held, and the response says so (RFC 6749 §3.3).
  const mixed = await clientCredentials(t, staff, 'pets admin notifications');
  a.is(mixed.status, 200, mixed.text);
  a.is(mixed.body.scope, 'pets');
  const claims = decodeJwt(mixed.body.access_token).payload;
  a.is(claims.scope, 'pets');
  const clients = await t.request('GET', '/v1/clients', { token: mixed.body.access_token });
  a.is(clients.status, 403);

  // Asking for less than the ceiling gets less.
  const readOnly = await clientCredentials(t, staff, 'pets.read');
  a.is(readOnly.status, 200, readOnly.text);
  a.is(readOnly.body.scope, 'pets.read');
  const write = await t.request('POST', '/v1/pets', { token: readOnly.body.access_token, body: {} });
  a.is(write.status, 403);
  a.is(write.body.code, 'insufficient_scope');
});

test('a doctor asking for analytics gets analytics.read, never analytics', async (a) => {
  const analytics = await clientCredentials(t, doctor, 'analytics');
  a.is(analytics.status, 200, analytics.text);
  a.is(analytics.body.scope, 'analytics.read');

  const mixed = await clientCredentials(t, doctor, 'pets analytics payments');
  a.is(mixed.status, 200, mixed.text);
  a.is(mixed.body.scope, 'analytics.read pets');
  a.is(decodeJwt(mixed.body.access_token).payload.scope, 'analytics.read pets');

  const ceiling = await clientCredentials(t, doctor);
  a.is(ceiling.body.scope, 'analytics.read medical pets');
  a.is(decodeJwt(ceiling.body.access_token).payload.role, 'doctor');
});

test('a client cannot be given a ceiling beyond its role', async (a) => {
  const res = await t.request('POST', '/v1/clients', {
    token: await t.adminToken(),
    body: { name: 'greedy doctor', role: 'doctor', scopes: ['pets', 'analytics', 'admin'] },
  });
  a.is(res.status, 400, res.text);
  a.is(res.body.code, 'validation_failed');
  a.deepEqual(
    res.body.errors.map((e: { field: string }) => e.field),
    ['scopes[1]', 'scopes[2]'],
  );
});

test('the bootstrap admin authenticates with the configured credentials and gets every write scope', async (a) => {
  const res = await clientCredentials(t, adminCredentials.live);
  a.is(res.status, 200, res.text);
  const scopes = res.body.scope.split(' ');
  for (const s of ['admin', 'pets', 'medical', 'bookings', 'marketplace', 'payments', 'notifications', 'webhooks', 'ai', 'analytics']) {
    a.true(scopes.includes(s), s);
  }
  a.is(decodeJwt(res.body.access_token).payload.role, 'admin');
});

test('a sandbox client gets a sandbox token', async (a) => {
  const sandbox = await createClient(t, { role: 'staff', scopes: ['pets'], environment: 'sandbox' });
  a.regex(sandbox.clientId, /^pk_test_/);
  a.regex(sandbox.clientSecret, /^sk_test_/);
  const res = await clientCredentials(t, sandbox);
  a.is(res.status, 200, res.text);
  a.regex(res.body.refresh_token, /^rt_test_/);
  const claims = decodeJwt(res.body.access_token).payload;
  a.is(claims.env, 'sandbox');
  a.is(claims.client_id, sandbox.clientId);

  // A live id with a sandbox secret (or the other way round) does not authenticate.
  const crossed = await clientCredentials(t, { clientId: staff.clientId, clientSecret: sandbox.clientSecret });
  assertOAuthError(a, crossed, 401, 'invalid_client');
});

test('a body that is neither JSON nor form-encoded answers 415', async (a) => {
  const res = await t.request('POST', '/oauth/token', {
    rawBody: `grant_type=client_credentials&client_id=${staff.clientId}&client_secret=${staff.clientSecret}`,
    headers: { 'content-type': 'text/plain' },
  });
  a.is(res.status, 415, res.text);
  a.is(res.body.code, 'unsupported_media_type');
});

test('GET on the token endpoint answers 405', async (a) => {
  const res = await t.request('GET', '/oauth/token');
  a.is(res.status, 405, res.text);
});
