import test from 'ava';
import { useTestApp } from '../helpers/test-app.js';
import { assertInvalidToken, assertOAuthError, clientCredentials, createClient, refresh, revoke } from './oauth-test-kit.js';

const t = useTestApp(test);

const pets = (token: string) => t.request('GET', '/v1/pets', { token });
const patchClient = async (id: string, body: Record<string, unknown>) => t.request('PATCH', `/v1/clients/${id}`, { token: await t.adminToken(), body });

test('disabling a client stops its existing access tokens at once, and it gets no new ones', async (a) => {
  const client = await createClient(t, { role: 'staff', scopes: ['pets'] });
  const first = (await clientCredentials(t, client)).body;
  const second = (await clientCredentials(t, client)).body;
  a.is((await pets(first.access_token)).status, 200); // verified and cached before the switch

  const disabled = await patchClient(client.id, { disabled: true });
  a.is(disabled.status, 200, disabled.text);
  a.true(disabled.body.disabled);

  const cached = await pets(first.access_token);
  assertInvalidToken(a, cached);
  a.regex(cached.body.detail, /disabled/);
  assertInvalidToken(a, await pets(second.access_token));

  assertOAuthError(a, await clientCredentials(t, client), 401, 'invalid_client');
  assertOAuthError(a, await refresh(t, client, first.refresh_token), 401, 'invalid_client');
  assertOAuthError(a, await revoke(t, client, first.access_token), 401, 'invalid_client');

  // Re-enabling lets it authenticate again, but the tokens it held were cut for good: its refresh
  // tokens were revoked, and access tokens issued before the disable stay dead (not revived).
  a.is((await patchClient(client.id, { disabled: false })).status, 200);
  const again = await clientCredentials(t, client);
  a.is(again.status, 200, again.text);
  a.is((await pets(again.body.access_token)).status, 200);
  assertOAuthError(a, await refresh(t, client, second.refresh_token), 400, 'invalid_grant');
  const revived = await pets(first.access_token);
  assertInvalidToken(a, revived);
  a.regex(revived.body.detail, /issued before/);
  assertInvalidToken(a, await pets(second.access_token));
});

test('disabled clients are listed as such, and the last admin cannot be disabled', async (a) => {
  const client = await createClient(t, { role: 'staff', scopes: ['pets'] });
  await patchClient(client.id, { disabled: true });
  const list = await t.request('GET', '/v1/clients?disabled=true', { token: await t.adminToken() });
  a.is(list.status, 200, list.text);
  a.true(list.body.data.some((c: { id: string }) => c.id === client.id));

  const admins = await t.request('GET', '/v1/clients?role=admin', { token: await t.adminToken() });
  const bootstrap = admins.body.data.find((c: { clientId: string }) => c.clientId === 'pk_live_testadmin');
  a.truthy(bootstrap);
  const refused = await patchClient(bootstrap.id, { disabled: true });
  a.is(refused.status, 409, refused.text);
  a.is(refused.body.code, 'last_admin');
  a.is((await pets(await t.adminToken())).status, 200);
});

test('rotating the secret makes the old one fail at once; the new one works', async (a) => {
  const client = await createClient(t, { role: 'staff', scopes: ['pets'] });
  const before = (await clientCredentials(t, client)).body;

  const rotated = await t.request('POST', `/v1/clients/${client.id}/rotate-secret`, { token: await t.adminToken() });
  a.is(rotated.status, 200, rotated.text);
  a.is(rotated.body.id, client.id);
  a.is(rotated.body.clientId, client.clientId, 'the public id stays');
  a.regex(rotated.body.clientSecret, /^sk_live_/);
  a.not(rotated.body.clientSecret, client.clientSecret);
  a.is(rotated.headers.get('cache-control'), 'no-store');

  assertOAuthError(a, await clientCredentials(t, client), 401, 'invalid_client');
  const fresh = await clientCredentials(t, { clientId: client.clientId, clientSecret: rotated.body.clientSecret });
  a.is(fresh.status, 200, fresh.text);

  // Every token issued under the old secret is dead at once: its refresh tokens are revoked and its
  // access tokens refused; the token issued right after the rotation works.
  assertOAuthError(a, await refresh(t, { clientId: client.clientId, clientSecret: rotated.body.clientSecret }, before.refresh_token), 400, 'invalid_grant');
  const old = await pets(before.access_token);
  assertInvalidToken(a, old);
  a.regex(old.body.detail, /issued before the client's secret was rotated/);
  a.is((await pets(fresh.body.access_token)).status, 200);
  // The secret is never readable again.
  const read = await t.request('GET', `/v1/clients/${client.id}`, { token: await t.adminToken() });
  a.is(read.status, 200);
  a.false('clientSecret' in read.body);
  a.false(read.text.includes(rotated.body.clientSecret));
});

test("narrowing a client's ceiling narrows its live tokens at once", async (a) => {
  const client = await createClient(t, { role: 'staff', scopes: ['pets', 'bookings'] });
  const { access_token: token } = (await clientCredentials(t, client)).body;
  const write = () => t.request('POST', '/v1/pets', { token, body: {} });
  a.is((await write()).status, 400, 'pets scope held: the empty body is a validation error, not a 403');

  a.is((await patchClient(client.id, { scopes: ['pets.read', 'bookings'] })).status, 200);
  const refused = await write();
  a.is(refused.status, 403, refused.text);
  a.is(refused.body.code, 'insufficient_scope');
  a.is((await pets(token)).status, 200, 'reading is still allowed');

  a.is((await patchClient(client.id, { scopes: ['bookings'] })).status, 200);
  a.is((await pets(token)).status, 403);

  // A new token is issued within the new ceiling only.
  const narrowed = await clientCredentials(t, client, 'pets bookings');
  a.is(narrowed.status, 200, narrowed.text);
  a.is(narrowed.body.scope, 'bookings');
});

test("a client's secret works in its own environment only", async (a) => {
  const sandbox = await createClient(t, { role: 'staff', scopes: ['pets'], environment: 'sandbox' });
  const res = await clientCredentials(t, sandbox);
  a.is(res.status, 200, res.text);
  // Disabling it through the sandbox admin stops its token; the live admin does not see the sandbox client.
  const liveView = await t.request('GET', `/v1/clients/${sandbox.id}`, { token: await t.adminToken('live') });
  a.is(liveView.status, 404);
  const off = await t.request('PATCH', `/v1/clients/${sandbox.id}`, { token: await t.adminToken('sandbox'), body: { disabled: true } });
  a.is(off.status, 200, off.text);
  assertInvalidToken(a, await pets(res.body.access_token));
});

test('the cut is exact to the token, not to the second: issued just before a rotation is refused, just after works', async (a) => {
  const client = await createClient(t, { role: 'staff', scopes: ['pets'] });
  // The test clock stands still: the three tokens and the rotation share one millisecond (and one JWT iat).
  const before = (await clientCredentials(t, client)).body;
  a.is((await pets(before.access_token)).status, 200);
  const rotated = await t.request('POST', `/v1/clients/${client.id}/rotate-secret`, { token: await t.adminToken() });
  a.is(rotated.status, 200, rotated.text);
  const after = (await clientCredentials(t, { clientId: client.clientId, clientSecret: rotated.body.clientSecret })).body;
  assertInvalidToken(a, await pets(before.access_token));
  a.is((await pets(after.access_token)).status, 200);
});
