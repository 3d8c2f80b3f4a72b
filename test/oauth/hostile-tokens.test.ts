import { generateKeyPairSync } from 'node:crypto';
import test from 'ava';
import { useTestApp } from '../helpers/test-app.js';
import {
  applianceSigningKey,
  assertInvalidToken,
  createClient,
  decodeJwt,
  forgeJwt,
  hs256,
  parseChallenge,
  rs256,
  strangerKey,
  unsigned,
  type CreatedClient,
} from './oauth-test-kit.js';

let staff: CreatedClient;
let validToken: string;
/** Claims of a genuine token, to forge look-alikes from. */
let claims: Record<string, unknown>;
let kid: string;

const t = useTestApp(test);
test.before(async () => {
  staff = await createClient(t, { role: 'staff', scopes: ['pets'] });
  const res = await t.token(staff.clientId, staff.clientSecret);
  validToken = res.body.access_token;
  const decoded = decodeJwt(validToken);
  claims = decoded.payload;
  kid = String(decoded.header.kid);
});

const call = (token: string | undefined, headers: Record<string, string> = {}) =>
  t.request('GET', '/v1/pets', { headers: { ...headers, ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}) } });

const freshClaims = (overrides: Record<string, unknown> = {}): Record<string, unknown> => {
  const iat = Math.floor(t.clock.now() / 1000);
  return { ...claims, iat, exp: iat + 3600, jti: `tok_forged${Math.random().toString(36).slice(2)}`, ...overrides };
};
const rsHeader = () => ({ alg: 'RS256', typ: 'at+jwt', kid });

test('control: a token forged with the real signing key is accepted (so the refusals below are about the attack)', async (a) => {
  const { privateKey } = applianceSigningKey(t);
  const res = await call(forgeJwt(rsHeader(), freshClaims(), rs256(privateKey)));
  a.is(res.status, 200, res.text);
  a.is((await call(validToken)).status, 200);
});

test('the Bearer scheme is case-insensitive (RFC 7235)', async (a) => {
  const res = await t.request('GET', '/v1/pets', { headers: { authorization: `bearer ${validToken}` } });
  a.is(res.status, 200, res.text);
});

test('no Authorization header: 401 with a bare Bearer challenge, no error parameter (RFC 6750 §3.1)', async (a) => {
  const res = await call(undefined);
  a.is(res.status, 401);
  const challenge = parseChallenge(res.headers.get('www-authenticate'));
  a.is(challenge.scheme, 'Bearer');
  a.is(challenge.params.realm, 'petcare');
  a.false('error' in challenge.params);
  a.regex(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  a.is(res.body.code, 'unauthorized');
  a.is(res.body.status, 401);
  a.is(res.body.type, 'urn:petcare:error:unauthorized');
  a.truthy(res.body.requestId);
});

test('another scheme (Basic, Token) is treated as no token: bare challenge (RFC 6750 §3.1)', async (a) => {
  for (const header of [`Token ${validToken}`, `Basic ${Buffer.from('a:b').toString('base64')}`, `Bearertoken ${validToken}`]) {
    const res = await t.request('GET', '/v1/pets', { headers: { authorization: header } });
    a.is(res.status, 401, header);
    const challenge = parseChallenge(res.headers.get('www-authenticate'));
    a.is(challenge.scheme, 'Bearer', header);
    a.false('error' in challenge.params, header);
    a.is(res.body.code, 'unauthorized');
  }
  // A token in the query string is not read (RFC 6750 §2.3 is optional and leaks tokens into logs).
  const query = await t.request('GET', `/v1/pets?access_token=${validToken}`);
  a.is(query.status, 401);
});

test('a malformed Bearer header: 401 with error="invalid_request"', async (a) => {
  for (const header of [
    'Bearer',
    'Bearer ',
    `Bearer ${validToken} extra`,
    `Bearer ${validToken.replace('.', '!')}`,
    `Bearer  ${validToken}`,
    'Bearer "quoted"',
  ]) {
    const res = await t.request('GET', '/v1/pets', { headers: { authorization: header } });
    a.is(res.status, 401, header);
    const challenge = parseChallenge(res.headers.get('www-authenticate'));
    a.is(challenge.scheme, 'Bearer', header);
    a.is(challenge.params.error, 'invalid_request', header);
  }
});

test('garbage tokens: 401 invalid_token', async (a) => {
  for (const token of ['garbage', 'a.b.c', 'eyJhbGciOiJSUzI1NiJ9.e30.', `${validToken}x`, 'x'.repeat(5000)]) {
    assertInvalidToken(a, await call(token));
  }
});

test('alg "none" with our kid and genuine claims: 401', async (a) => {
  for (const alg of ['none', 'None', 'NONE']) {
    assertInvalidToken(a, await call(forgeJwt({ alg, typ: 'at+jwt', kid }, freshClaims(), unsigned)));
  }
  // The genuine signature kept after switching the header to none does not help either.
  const [, payload, signature] = validToken.split('.');
  const noneHeader = Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt', kid })).toString('base64url');
  assertInvalidToken(a, await call(`${noneHeader}.${payload}.${signature}`));
});

test('a token signed with another RSA key under our kid: 401', async (a) => {
  assertInvalidToken(a, await call(forgeJwt(rsHeader(), freshClaims(), rs256(strangerKey()))));
});

test('a token with an unknown kid, or none: 401', async (a) => {
  const { privateKey } = applianceSigningKey(t);
  assertInvalidToken(a, await call(forgeJwt({ ...rsHeader(), kid: 'not-our-key' }, freshClaims(), rs256(privateKey))));
  assertInvalidToken(a, await call(forgeJwt({ alg: 'RS256', typ: 'at+jwt' }, freshClaims(), rs256(privateKey))));
  assertInvalidToken(a, await call(forgeJwt({ ...rsHeader(), kid: '__proto__' }, freshClaims(), rs256(privateKey))));
});

test('algorithm confusion: HS256 keyed with our public key (PEM, DER, JWK) is refused', async (a) => {
  const { publicKey } = applianceSigningKey(t);
  const secrets: (string | Buffer)[] = [
    publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    publicKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    publicKey.export({ type: 'spki', format: 'der' }),
    JSON.stringify(publicKey.export({ format: 'jwk' })),
  ];
  // The PEM served through JWKS, the one an attacker would download.
  const jwks = await t.request('GET', '/.well-known/jwks.json');
  a.is(jwks.body.keys[0].kid, kid);
  for (const secret of secrets) {
    for (const alg of ['HS256', 'HS384', 'HS512']) {
      const token = forgeJwt({ alg, typ: 'at+jwt', kid }, freshClaims(), hs256(secret));
      assertInvalidToken(a, await call(token));
    }
  }
});

test('other asymmetric algorithms are refused even when validly signed (explicit algorithm list)', async (a) => {
  const { privateKey } = applianceSigningKey(t);
  // PS256 with our own key: a valid signature, but not the algorithm we issue.
  const { sign, constants } = await import('node:crypto');
  const ps256 = (input: string) => sign('sha256', Buffer.from(input), { key: privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 });
  assertInvalidToken(a, await call(forgeJwt({ ...rsHeader(), alg: 'PS256' }, freshClaims(), ps256)));
  // ES256 with some EC key under our kid.
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const es256 = (input: string) => sign('sha256', Buffer.from(input), { key: ec, dsaEncoding: 'ieee-p1363' });
  assertInvalidToken(a, await call(forgeJwt({ ...rsHeader(), alg: 'ES256' }, freshClaims(), es256)));
});

test('a JWT not typed as an access token, or demanding unknown critical extensions, is refused even with our key (RFC 9068 §4)', async (a) => {
  const { privateKey } = applianceSigningKey(t);
  for (const typ of ['JWT', 'id_token+jwt', 'logout+jwt', undefined]) {
    assertInvalidToken(a, await call(forgeJwt({ alg: 'RS256', kid, ...(typ ? { typ } : {}) }, freshClaims(), rs256(privateKey))));
  }
  assertInvalidToken(a, await call(forgeJwt({ ...rsHeader(), crit: ['exp-ext'], 'exp-ext': true }, freshClaims(), rs256(privateKey))));
  // The media-type spelling of the same type is fine.
  const res = await call(forgeJwt({ ...rsHeader(), typ: 'application/at+jwt' }, freshClaims(), rs256(privateKey)));
  a.is(res.status, 200, res.text);
});

test('a wrong issuer or audience, even with our key: 401', async (a) => {
  const { privateKey } = applianceSigningKey(t);
  assertInvalidToken(a, await call(forgeJwt(rsHeader(), freshClaims({ iss: 'https://evil.example' }), rs256(privateKey))));
  assertInvalidToken(a, await call(forgeJwt(rsHeader(), freshClaims({ aud: 'some-other-api' }), rs256(privateKey))));
  for (const name of ['iss', 'aud']) {
    const c: Record<string, unknown> = freshClaims();
    delete c[name];
    assertInvalidToken(a, await call(forgeJwt(rsHeader(), c, rs256(privateKey))));
  }
  assertInvalidToken(a, await call(forgeJwt(rsHeader(), freshClaims({ aud: ['some-other-api'] }), rs256(privateKey))));
});

test('required claims missing or wrong, even with our key: 401', async (a) => {
  const { privateKey } = applianceSigningKey(t);
  for (const name of ['sub', 'jti', 'tenant', 'env', 'scope']) {
    const c: Record<string, unknown> = freshClaims();
    delete c[name];
    assertInvalidToken(a, await call(forgeJwt(rsHeader(), c, rs256(privateKey))));
  }
  assertInvalidToken(a, await call(forgeJwt(rsHeader(), freshClaims({ env: 'production' }), rs256(privateKey))));
  // A token naming a client that does not exist, or another tenant.
  assertInvalidToken(a, await call(forgeJwt(rsHeader(), freshClaims({ sub: 'cli_doesnotexist' }), rs256(privateKey))));
  assertInvalidToken(a, await call(forgeJwt(rsHeader(), freshClaims({ tenant: 'ten_other' }), rs256(privateKey))));
  // A token from the future (nbf) is not yet valid.
  assertInvalidToken(a, await call(forgeJwt(rsHeader(), freshClaims({ nbf: Math.floor(t.clock.now() / 1000) + 600 }), rs256(privateKey))));
});

test('a tampered payload or header: 401', async (a) => {
  const [header, payload, signature] = validToken.split('.') as [string, string, string];
  const original = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  const escalate = (changes: Record<string, unknown>) => Buffer.from(JSON.stringify({ ...original, ...changes })).toString('base64url');
  assertInvalidToken(a, await call(`${header}.${escalate({ scope: 'admin pets' })}.${signature}`));
  assertInvalidToken(a, await call(`${header}.${escalate({ role: 'admin' })}.${signature}`));
  assertInvalidToken(a, await call(`${header}.${escalate({ exp: original.exp + 86400 })}.${signature}`));
  assertInvalidToken(a, await call(`${header}.${escalate({ locations: ['loc_elsewhere'] })}.${signature}`));
  const otherHeader = Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid })).toString('base64url');
  assertInvalidToken(a, await call(`${otherHeader}.${payload}.${signature}`));
  // A flipped signature bit.
  const sig = Buffer.from(signature, 'base64url');
  sig[10] = (sig[10] as number) ^ 1;
  assertInvalidToken(a, await call(`${header}.${payload}.${sig.toString('base64url')}`));
  // The genuine token still works: the cache of verified tokens is keyed by the exact string.
  a.is((await call(validToken)).status, 200);
});

test('a token with escalated scope signed correctly still gets only what the client may hold now', async (a) => {
  // Defence in depth: even a genuinely signed token naming scopes beyond the client ceiling grants nothing extra.
  const { privateKey } = applianceSigningKey(t);
  const res = await t.request('GET', '/v1/clients', { token: forgeJwt(rsHeader(), freshClaims({ scope: 'admin pets' }), rs256(privateKey)) });
  a.is(res.status, 403, res.text);
});

// Moves the shared clock, so it runs alone (serial tests run before the concurrent ones) and puts it back.
test.serial('an expired token: 401 invalid_token, whether or not it was seen before', async (a) => {
  const start = t.clock.now();
  const seen = (await t.token(staff.clientId, staff.clientSecret)).body.access_token as string;
  const unseen = (await t.token(staff.clientId, staff.clientSecret)).body.access_token as string;
  try {
    a.is((await call(seen)).status, 200); // now in the verified-token cache
    t.clock.advance(3599_000);
    a.is((await call(seen)).status, 200, 'still valid one second before exp');
    t.clock.advance(1_000);
    const expired = await call(seen);
    assertInvalidToken(a, expired);
    a.regex(parseChallenge(expired.headers.get('www-authenticate')).params.error_description ?? '', /expired/);
    t.clock.advance(60_000);
    const expiredUnseen = await call(unseen);
    assertInvalidToken(a, expiredUnseen);
    a.regex(expiredUnseen.body.detail, /expired/);
  } finally {
    t.clock.set(start);
  }
});
