import test from 'ava';
import { useTestApp } from '../helpers/test-app.js';
import {
  assertInvalidToken,
  assertOAuthError,
  basicAuth,
  clientCredentials,
  createClient,
  decodeJwt,
  postForm,
  postJson,
  refresh,
  revoke,
  type CreatedClient,
} from './oauth-test-kit.js';

let staff: CreatedClient; // ceiling: pets bookings
let other: CreatedClient;

const t = useTestApp(test);
test.before(async () => {
  staff = await createClient(t, { role: 'staff', scopes: ['pets', 'bookings'] });
  other = await createClient(t, { role: 'staff', scopes: ['pets', 'bookings'] });
});

async function grant(client: CreatedClient = staff, scope?: string): Promise<{ access_token: string; refresh_token: string; scope: string }> {
  const res = await clientCredentials(t, client, scope);
  if (res.status !== 200) throw new Error(`token failed: ${res.status} ${res.text}`);
  return res.body;
}

const pets = (token: string) => t.request('GET', '/v1/pets', { token });

test('refresh_token returns a new access token and a new refresh token (rotation)', async (a) => {
  const first = await grant(staff, 'pets');
  const res = await refresh(t, staff, first.refresh_token);
  a.is(res.status, 200, res.text);
  a.deepEqual(Object.keys(res.body).sort(), ['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type']);
  a.is(res.body.token_type, 'Bearer');
  a.is(res.body.expires_in, 3600);
  a.is(res.body.scope, 'pets');
  a.not(res.body.refresh_token, first.refresh_token);
  a.not(res.body.access_token, first.access_token);
  a.is(res.headers.get('cache-control'), 'no-store');
  const claims = decodeJwt(res.body.access_token).payload;
  a.is(claims.sub, staff.id);
  a.is(claims.scope, 'pets');
  a.is((await pets(res.body.access_token)).status, 200);
  // The earlier access token is not touched by a refresh.
  a.is((await pets(first.access_token)).status, 200);
});

test('a spent refresh token fails with invalid_grant, and its re-use revokes the whole family', async (a) => {
  const r0 = (await grant()).refresh_token;
  const r1 = (await refresh(t, staff, r0)).body.refresh_token as string;
  const r2Res = await refresh(t, staff, r1);
  a.is(r2Res.status, 200, r2Res.text);
  const r2 = r2Res.body.refresh_token as string;

  // Replay of the spent r0: refused…
  const replay = await refresh(t, staff, r0);
  assertOAuthError(a, replay, 400, 'invalid_grant');
  // …and the newest token of the family (r2, never used) dies with it (RFC 9700 §4.14.2).
  assertOAuthError(a, await refresh(t, staff, r2), 400, 'invalid_grant');
  assertOAuthError(a, await refresh(t, staff, r1), 400, 'invalid_grant');

  // Other families of the same client are unaffected.
  const unrelated = await grant();
  a.is((await refresh(t, staff, unrelated.refresh_token)).status, 200);
});

test('re-use of the immediately preceding token also kills the successor', async (a) => {
  const r0 = (await grant()).refresh_token;
  const r1 = (await refresh(t, staff, r0)).body.refresh_token as string;
  assertOAuthError(a, await refresh(t, staff, r0), 400, 'invalid_grant');
  assertOAuthError(a, await refresh(t, staff, r1), 400, 'invalid_grant');
});

test('two refreshes racing with the same token: one wins, the family is revoked', async (a) => {
  const r0 = (await grant()).refresh_token;
  const [x, y] = await Promise.all([refresh(t, staff, r0), refresh(t, staff, r0)]);
  const statuses = [x.status, y.status].sort();
  a.deepEqual(statuses, [200, 400]);
  const winner = x.status === 200 ? x : y;
  assertOAuthError(a, await refresh(t, staff, winner.body.refresh_token), 400, 'invalid_grant');
});

test('refresh works form-encoded and with HTTP Basic', async (a) => {
  const r0 = (await grant()).refresh_token;
  const res = await postForm(
    t,
    '/oauth/token',
    { grant_type: 'refresh_token', refresh_token: r0 },
    { authorization: basicAuth(staff.clientId, staff.clientSecret) },
  );
  a.is(res.status, 200, res.text);
  a.is(res.body.scope, 'bookings pets');
});

test('a refresh cannot add scopes, but may narrow them', async (a) => {
  const { refresh_token: r0 } = await grant(staff, 'pets');
  // 'bookings' is within the client ceiling but was not granted to this family.
  const wider = await refresh(t, staff, r0, 'pets bookings');
  assertOAuthError(a, wider, 400, 'invalid_scope');
  const unknown = await refresh(t, staff, r0, 'pets admin');
  assertOAuthError(a, unknown, 400, 'invalid_scope');

  // The refused request did not spend the token: it still refreshes, to the original scope.
  const same = await refresh(t, staff, r0);
  a.is(same.status, 200, same.text);
  a.is(same.body.scope, 'pets');

  // Narrowing pets → pets.read is allowed (RFC 6749 §6) and sticks for the rest of the family.
  const narrowed = await refresh(t, staff, same.body.refresh_token, 'pets.read');
  a.is(narrowed.status, 200, narrowed.text);
  a.is(narrowed.body.scope, 'pets.read');
  a.is((await t.request('POST', '/v1/pets', { token: narrowed.body.access_token, body: {} })).status, 403);
  const back = await refresh(t, staff, narrowed.body.refresh_token, 'pets');
  assertOAuthError(a, back, 400, 'invalid_scope');
});

test('a refresh needs client authentication, by the same client', async (a) => {
  const { refresh_token: r0 } = await grant();

  const anonymous = await postJson(t, '/oauth/token', { grant_type: 'refresh_token', refresh_token: r0 });
  assertOAuthError(a, anonymous, 401, 'invalid_client');

  const publicIdOnly = await postJson(t, '/oauth/token', { grant_type: 'refresh_token', refresh_token: r0, client_id: staff.clientId });
  assertOAuthError(a, publicIdOnly, 401, 'invalid_client');

  const wrongSecret = await refresh(t, { clientId: staff.clientId, clientSecret: other.clientSecret }, r0);
  assertOAuthError(a, wrongSecret, 401, 'invalid_client');

  const otherClient = await refresh(t, other, r0);
  assertOAuthError(a, otherClient, 400, 'invalid_grant');
});

test('a refresh without refresh_token is invalid_request; an unknown one invalid_grant', async (a) => {
  const missing = await postJson(t, '/oauth/token', { grant_type: 'refresh_token', client_id: staff.clientId, client_secret: staff.clientSecret });
  assertOAuthError(a, missing, 400, 'invalid_request');
  assertOAuthError(a, await refresh(t, staff, 'rt_live_doesnotexist'), 400, 'invalid_grant');
  // An access token is not a refresh token (it is also longer than any refresh token, so the schema refuses it).
  const accessAsRefresh = await refresh(t, staff, (await grant()).access_token);
  a.is(accessAsRefresh.status, 400);
  a.true(['invalid_grant', 'invalid_request'].includes(accessAsRefresh.body.error), accessAsRefresh.text);
  a.falsy(accessAsRefresh.body.access_token);
});

test.serial('a refresh token expires after its lifetime (30 days by default)', async (a) => {
  const start = t.clock.now();
  const { refresh_token: r0 } = await grant();
  const { refresh_token: r1 } = await grant();
  try {
    t.clock.advance(29 * 86400_000);
    const stillValid = await refresh(t, staff, r0);
    a.is(stillValid.status, 200, stillValid.text);
    t.clock.advance(86400_000);
    assertOAuthError(a, await refresh(t, staff, r1), 400, 'invalid_grant');
  } finally {
    t.clock.set(start);
  }
});

// ---- POST /oauth/revoke (RFC 7009) ----

test('revoking an access token makes it 401 at once', async (a) => {
  const { access_token: token } = await grant();
  a.is((await pets(token)).status, 200); // verified and cached
  const res = await revoke(t, staff, token, 'access_token');
  a.is(res.status, 200, res.text);
  a.deepEqual(res.body, {});
  a.is(res.headers.get('cache-control'), 'no-store');
  const after = await pets(token);
  assertInvalidToken(a, after);
  a.regex(after.body.detail, /revoked/);
  // Other tokens of the client keep working.
  a.is((await pets((await grant()).access_token)).status, 200);
});

test('revoking works form-encoded with HTTP Basic, and without a hint', async (a) => {
  const { access_token: token } = await grant();
  const res = await postForm(t, '/oauth/revoke', { token }, { authorization: basicAuth(staff.clientId, staff.clientSecret) });
  a.is(res.status, 200, res.text);
  assertInvalidToken(a, await pets(token));
});

test('revoking a refresh token kills its whole family', async (a) => {
  const r0 = (await grant()).refresh_token;
  const r1 = (await refresh(t, staff, r0)).body.refresh_token as string;
  const r2 = (await refresh(t, staff, r1)).body.refresh_token as string;
  // Revoke the spent r0: the live r2 of the same family must die too.
  const res = await revoke(t, staff, r0, 'refresh_token');
  a.is(res.status, 200, res.text);
  assertOAuthError(a, await refresh(t, staff, r2), 400, 'invalid_grant');

  const s0 = (await grant()).refresh_token;
  a.is((await revoke(t, staff, s0)).status, 200);
  assertOAuthError(a, await refresh(t, staff, s0), 400, 'invalid_grant');
});

test('a revoked family takes its access tokens along (sid claim), and only its own', async (a) => {
  const first = await grant();
  const refreshed = await refresh(t, staff, first.refresh_token);
  a.is(refreshed.status, 200, refreshed.text);
  const sibling = await grant();
  a.is(decodeJwt(refreshed.body.access_token).payload.sid, decodeJwt(first.access_token).payload.sid);
  a.is((await pets(first.access_token)).status, 200);

  // Re-use of the spent refresh token: every access token of the family stops at once (RFC 9700 §4.14.2).
  assertOAuthError(a, await refresh(t, staff, first.refresh_token), 400, 'invalid_grant');
  assertInvalidToken(a, await pets(first.access_token));
  assertInvalidToken(a, await pets(refreshed.body.access_token));
  a.is((await pets(sibling.access_token)).status, 200);

  // Revoking a refresh token (RFC 7009 §2.1) does the same for its family.
  a.is((await revoke(t, staff, sibling.refresh_token, 'refresh_token')).status, 200);
  assertInvalidToken(a, await pets(sibling.access_token));
});

test('revoking an unknown, garbage or already revoked token answers 200', async (a) => {
  for (const token of ['rt_live_unknown', 'garbage', 'a.b.c', 'eyJhbGciOiJub25lIn0.e30.']) {
    const res = await revoke(t, staff, token);
    a.is(res.status, 200, `${token}: ${res.text}`);
    a.deepEqual(res.body, {});
  }
  const { access_token: token } = await grant();
  a.is((await revoke(t, staff, token)).status, 200);
  a.is((await revoke(t, staff, token)).status, 200);
});

test("a client cannot revoke another client's tokens (answered 200, nothing revoked)", async (a) => {
  const mine = await grant(other);
  a.is((await revoke(t, staff, mine.access_token)).status, 200);
  a.is((await revoke(t, staff, mine.refresh_token)).status, 200);
  a.is((await pets(mine.access_token)).status, 200);
  a.is((await refresh(t, other, mine.refresh_token)).status, 200);
});

test('revoke needs client authentication and a token', async (a) => {
  const { access_token: token } = await grant();
  assertOAuthError(a, await postJson(t, '/oauth/revoke', { token }), 401, 'invalid_client');
  assertOAuthError(a, await revoke(t, { clientId: staff.clientId, clientSecret: 'sk_live_wrong' }, token), 401, 'invalid_client');
  a.is((await pets(token)).status, 200, 'an unauthenticated revoke did nothing');
  assertOAuthError(a, await postJson(t, '/oauth/revoke', { client_id: staff.clientId, client_secret: staff.clientSecret }), 400, 'invalid_request');
});
