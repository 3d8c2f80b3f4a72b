import test from 'ava';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, errors as joseErrors } from 'jose';
import * as oauth from 'oauth4webapi';
import { createLocation } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { createClient, type CreatedClient } from './oauth-test-kit.js';

let doctor: CreatedClient;
let locationId: string;

const t = useTestApp(test);
test.before(async () => {
  locationId = (await createLocation(t)).id;
  doctor = await createClient(t, { role: 'doctor', scopes: ['pets', 'medical', 'analytics.read'], locationIds: [locationId] });
});

const jwks = () => createRemoteJWKSet(new URL(`${t.url}/.well-known/jwks.json`));
const verifyOptions = () => ({
  issuer: 'urn:petcare:appliance',
  audience: 'petcare-api',
  algorithms: ['RS256'],
  typ: 'at+jwt',
  currentDate: new Date(t.clock.now()),
});

async function tokenFor(client: CreatedClient, scope?: string): Promise<{ access_token: string; refresh_token: string; scope: string }> {
  const res = await t.token(client.clientId, client.clientSecret, scope);
  if (res.status !== 200) throw new Error(`token failed: ${res.status} ${res.text}`);
  return res.body;
}

test('jose verifies an access token against /.well-known/jwks.json and sees every documented claim', async (a) => {
  const issuedAt = Math.floor(t.clock.now() / 1000);
  const { access_token: token } = await tokenFor(doctor, 'pets analytics.read');
  const { payload, protectedHeader } = await jwtVerify(token, jwks(), verifyOptions());

  a.is(protectedHeader.alg, 'RS256');
  a.is(protectedHeader.typ, 'at+jwt');
  a.is(typeof protectedHeader.kid, 'string');
  const published = await t.request('GET', '/.well-known/jwks.json');
  a.true(published.body.keys.some((k: { kid: string }) => k.kid === protectedHeader.kid));

  a.is(payload.iss, 'urn:petcare:appliance');
  a.is(payload.aud, 'petcare-api');
  a.is(payload.sub, doctor.id);
  a.regex(String(payload.sub), /^cli_/);
  a.is(payload.client_id, doctor.clientId);
  a.is(payload.tenant, t.tenantId);
  a.is(payload.env, 'live');
  a.is(payload.role, 'doctor');
  a.is(payload.scope, 'analytics.read pets');
  a.deepEqual(payload.locations, [locationId]);
  a.regex(String(payload.jti), /^tok_\w+$/);
  a.is(payload.iat, issuedAt);
  a.is(payload.exp, issuedAt + 3600);
});

test('an unscoped client carries locations: null, and every token has its own jti', async (a) => {
  const admin = await t.adminToken();
  const { payload } = await jwtVerify(admin, jwks(), verifyOptions());
  a.is(payload.locations, null);
  a.is(payload.role, 'admin');
  const first = await tokenFor(doctor);
  const second = await tokenFor(doctor);
  const [p1, p2] = await Promise.all([jwtVerify(first.access_token, jwks(), verifyOptions()), jwtVerify(second.access_token, jwks(), verifyOptions())]);
  a.not(p1.payload.jti, p2.payload.jti);
});

test('jose refuses the token for another audience or issuer (the claims are really checked)', async (a) => {
  const { access_token: token } = await tokenFor(doctor);
  await a.throwsAsync(jwtVerify(token, jwks(), { ...verifyOptions(), audience: 'someone-else' }), { instanceOf: joseErrors.JWTClaimValidationFailed });
  await a.throwsAsync(jwtVerify(token, jwks(), { ...verifyOptions(), issuer: 'https://evil.example' }), { instanceOf: joseErrors.JWTClaimValidationFailed });
  await a.throwsAsync(jwtVerify(token, jwks(), { ...verifyOptions(), currentDate: new Date(t.clock.now() + 3601_000) }), { instanceOf: joseErrors.JWTExpired });
});

test('the JWKS publishes public RSA keys only', async (a) => {
  const res = await t.request('GET', '/.well-known/jwks.json');
  a.is(res.status, 200);
  a.regex(res.headers.get('content-type') ?? '', /^application\/json/);
  a.regex(res.headers.get('cache-control') ?? '', /max-age=\d+/);
  a.true(res.body.keys.length >= 1);
  for (const key of res.body.keys) {
    a.is(key.kty, 'RSA');
    a.is(key.use, 'sig');
    a.is(key.alg, 'RS256');
    a.is(key.e, 'AQAB');
    a.true(Buffer.from(key.n, 'base64url').length >= 256, 'a 2048-bit modulus at least');
    for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi']) a.false(secret in key, `no private member ${secret}`);
  }
  const { access_token: token } = await tokenFor(doctor);
  a.true(res.body.keys.some((k: { kid: string }) => k.kid === decodeProtectedHeader(token).kid));
});

test('/.well-known/oauth-authorization-server carries the RFC 8414 metadata', async (a) => {
  const res = await t.request('GET', '/.well-known/oauth-authorization-server');
  a.is(res.status, 200, res.text);
  a.regex(res.headers.get('content-type') ?? '', /^application\/json/);
  const m = res.body;
  a.is(m.issuer, 'urn:petcare:appliance');
  a.is(m.token_endpoint, `${t.url}/oauth/token`);
  a.is(m.revocation_endpoint, `${t.url}/oauth/revoke`);
  a.is(m.jwks_uri, `${t.url}/.well-known/jwks.json`);
  a.deepEqual([...m.grant_types_supported].sort(), ['client_credentials', 'refresh_token']);
  a.true(m.token_endpoint_auth_methods_supported.includes('client_secret_basic'));
  a.true(m.token_endpoint_auth_methods_supported.includes('client_secret_post'));
  a.true(m.revocation_endpoint_auth_methods_supported.includes('client_secret_basic'));
  a.true(Array.isArray(m.response_types_supported));
  for (const s of ['pets', 'pets.read', 'analytics.read', 'admin', 'ai.read']) a.true(m.scopes_supported.includes(s), s);
  a.false(m.grant_types_supported.includes('implicit'));

  // A browser's Origin header does not leak into the endpoint URLs (Koa 3's ctx.origin is that header).
  const withOrigin = await t.request('GET', '/.well-known/oauth-authorization-server', { headers: { origin: 'https://evil.example' } });
  a.is(withOrigin.body.token_endpoint, `${t.url}/oauth/token`);

  // The advertised endpoints are the live ones.
  const jwksRes = await fetch(m.jwks_uri);
  a.is(jwksRes.status, 200);

  // A standard client accepts the document for the configured issuer.
  const as = await oauth.processDiscoveryResponse(new URL('urn:petcare:appliance'), await fetch(`${t.url}/.well-known/oauth-authorization-server`));
  a.is(as.token_endpoint, m.token_endpoint);
});

// ---- oauth4webapi: a certified, strict OAuth 2.0 client ----

const insecure = { [oauth.allowInsecureRequests]: true } as const; // plain http on loopback only

function authorizationServer(): oauth.AuthorizationServer {
  return {
    issuer: 'urn:petcare:appliance',
    token_endpoint: `${t.url}/oauth/token`,
    revocation_endpoint: `${t.url}/oauth/revoke`,
    jwks_uri: `${t.url}/.well-known/jwks.json`,
  };
}

test('oauth4webapi gets a token with client_secret_basic and client_secret_post', async (a) => {
  const as = authorizationServer();
  const client: oauth.Client = { client_id: doctor.clientId };
  for (const auth of [oauth.ClientSecretBasic(doctor.clientSecret), oauth.ClientSecretPost(doctor.clientSecret)]) {
    const response = await oauth.clientCredentialsGrantRequest(as, client, auth, new URLSearchParams({ scope: 'pets medical' }), insecure);
    const result = await oauth.processClientCredentialsResponse(as, client, response);
    a.is(result.token_type, 'bearer'); // the library lower-cases it
    a.is(result.expires_in, 3600);
    a.is(result.scope, 'medical pets');
    a.is(typeof result.refresh_token, 'string');

    const pets = await t.request('GET', '/v1/pets', { token: result.access_token });
    a.is(pets.status, 200, pets.text);
  }
});

test('oauth4webapi reports a wrong secret as invalid_client', async (a) => {
  const as = authorizationServer();
  const client: oauth.Client = { client_id: doctor.clientId };
  const post = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretPost('sk_live_nope'), {}, insecure);
  const error = await a.throwsAsync(oauth.processClientCredentialsResponse(as, client, post), { instanceOf: oauth.ResponseBodyError });
  a.is(error?.error, 'invalid_client');
  a.is(error?.status, 401);

  // With HTTP Basic the server also sends the Basic challenge RFC 6749 §5.2 asks for; the library surfaces it.
  const basic = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretBasic('sk_live_nope'), {}, insecure);
  const challenge = await a.throwsAsync(oauth.processClientCredentialsResponse(as, client, basic), { instanceOf: oauth.WWWAuthenticateChallengeError });
  a.is(challenge?.cause[0]?.scheme, 'basic');
});

test('oauth4webapi refreshes (rotation) and revokes', async (a) => {
  const as = authorizationServer();
  const client: oauth.Client = { client_id: doctor.clientId };
  const auth = oauth.ClientSecretBasic(doctor.clientSecret);
  const first = await oauth.processClientCredentialsResponse(
    as,
    client,
    await oauth.clientCredentialsGrantRequest(as, client, auth, { scope: 'pets' }, insecure),
  );
  const refreshed = await oauth.processRefreshTokenResponse(
    as,
    client,
    await oauth.refreshTokenGrantRequest(as, client, auth, first.refresh_token as string, insecure),
  );
  a.is(refreshed.scope, 'pets');
  a.not(refreshed.refresh_token, first.refresh_token);

  // The spent refresh token is refused with invalid_grant.
  const replay = await oauth.refreshTokenGrantRequest(as, client, auth, first.refresh_token as string, insecure);
  const error = await a.throwsAsync(oauth.processRefreshTokenResponse(as, client, replay), { instanceOf: oauth.ResponseBodyError });
  a.is(error?.error, 'invalid_grant');

  // The re-use revoked the family, access tokens included (RFC 9700 §4.14.2).
  a.is((await t.request('GET', '/v1/pets', { token: refreshed.access_token })).status, 401);

  // Revocation (RFC 7009) of an access token of a fresh family takes effect at once.
  const fresh = await oauth.processClientCredentialsResponse(
    as,
    client,
    await oauth.clientCredentialsGrantRequest(as, client, auth, { scope: 'pets' }, insecure),
  );
  a.is((await t.request('GET', '/v1/pets', { token: fresh.access_token })).status, 200);
  await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, fresh.access_token, insecure));
  a.is((await t.request('GET', '/v1/pets', { token: fresh.access_token })).status, 401);
});

test('oauth4webapi validates our access token as an RFC 9068 JWT on the resource-server side', async (a) => {
  const as = authorizationServer();
  const { access_token: token } = await tokenFor(doctor, 'pets');
  const request = new Request('http://127.0.0.1/v1/pets', { headers: { authorization: `Bearer ${token}` } });
  const claims = await oauth.validateJwtAccessToken(as, request, 'petcare-api', { ...insecure, signingAlgorithms: ['RS256'] });
  a.is(claims.client_id, doctor.clientId);
  a.is(claims.sub, doctor.id);
  a.is(claims.iss, 'urn:petcare:appliance');
  a.is(claims.scope, 'pets');
});
