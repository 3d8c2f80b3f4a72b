import test from 'ava';
import { CallerCache } from '../../src/http/authenticate.js';
import { useTestApp } from '../helpers/test-app.js';
import { assertInvalidToken, clientCredentials, createClient } from '../oauth/oauth-test-kit.js';

/**
 * The gateway remembers the caller behind each token (CallerCache). Every test first makes a call
 * so the token is cached, then changes what the cache was built from: the next call must see it.
 */

const t = useTestApp(test);

const pets = (token: string) => t.request('GET', '/v1/pets', { token });
const patchClient = async (id: string, body: Record<string, unknown>) => t.request('PATCH', `/v1/clients/${id}`, { token: await t.adminToken(), body });

test.serial('a cached token still expires on time (the clock is read on every call)', async (a) => {
  const client = await createClient(t, { role: 'staff', scopes: ['pets'] });
  const token = (await clientCredentials(t, client)).body.access_token as string;
  a.is((await pets(token)).status, 200);
  t.clock.advance(t.config.accessTokenTtlSeconds * 1000 - 2000);
  a.is((await pets(token)).status, 200, 'still valid just before exp');
  t.clock.advance(3000);
  try {
    const expired = await pets(token);
    assertInvalidToken(a, expired);
    a.regex(expired.body.detail, /expired/);
  } finally {
    t.clock.advance(-(t.config.accessTokenTtlSeconds * 1000 + 1000));
  }
});

test('an IP allowlist set on a cached caller applies to its next call, and lifting it too', async (a) => {
  const client = await createClient(t, { role: 'staff', scopes: ['pets'] });
  const token = (await clientCredentials(t, client)).body.access_token as string;
  a.is((await pets(token)).status, 200);

  a.is((await patchClient(client.id, { ipAllowlist: ['203.0.113.0/24'] })).status, 200);
  const refused = await pets(token);
  a.is(refused.status, 403, refused.text);
  a.is(refused.body.code, 'ip_not_allowed');

  a.is((await patchClient(client.id, { ipAllowlist: null })).status, 200);
  a.is((await pets(token)).status, 200);
});

test("a new rate limit applies to a cached caller's next call; every call still spends one", async (a) => {
  const client = await createClient(t, { role: 'staff', scopes: ['pets'] });
  const token = (await clientCredentials(t, client)).body.access_token as string;
  const first = await pets(token);
  a.is(first.status, 200);
  a.regex(first.headers.get('ratelimit-policy') ?? '', /q=600;/);

  a.is((await patchClient(client.id, { rateLimitPerMinute: 3 })).status, 200);
  const second = await pets(token);
  a.regex(second.headers.get('ratelimit-policy') ?? '', /q=3;/);
  a.is((await pets(token)).status, 200);
  const limited = await pets(token);
  a.is(limited.status, 429, limited.text);
});

test('a role change takes away what the cached caller may do at once', async (a) => {
  const client = await createClient(t, { role: 'admin', scopes: ['admin', 'pets'] });
  const token = (await clientCredentials(t, client)).body.access_token as string;
  a.is((await t.request('GET', '/v1/clients', { token })).status, 200);

  const changed = await patchClient(client.id, { role: 'staff', scopes: ['pets'] });
  a.is(changed.status, 200, changed.text);
  const refused = await t.request('GET', '/v1/clients', { token });
  a.is(refused.status, 403, refused.text);
  a.is((await pets(token)).status, 200);
});

test('the cache is bounded: the oldest token leaves first', (a) => {
  const cache = new CallerCache(3);
  const entry = (n: number) => ({ env: 'live', version: n, exp: 0, actor: {}, known: {} }) as unknown as Parameters<CallerCache['set']>[1];
  for (let i = 0; i < 5; i++) cache.set(`token-${i}`, entry(i));
  a.is(cache.size, 3);
  a.is(cache.get('token-0'), undefined);
  a.is(cache.get('token-1'), undefined);
  a.is(cache.get('token-4')?.version, 4);
});

test('two tokens that end alike are two entries: a lookup needs the whole token to match', (a) => {
  const cache = new CallerCache(10);
  const entry = (n: number) => ({ env: 'live', version: n, exp: 0, actor: {}, known: {} }) as unknown as Parameters<CallerCache['set']>[1];
  const tail = 'x'.repeat(60);
  cache.set(`first.${tail}`, entry(1));
  a.is(cache.get(`other.${tail}`), undefined, 'same last characters, another token: a miss');
  cache.set(`other.${tail}`, entry(2));
  a.is(cache.get(`other.${tail}`)?.version, 2);
  a.is(cache.get(`first.${tail}`), undefined, 'the slot now holds the other token');
  cache.delete(`first.${tail}`);
  a.is(cache.get(`other.${tail}`)?.version, 2, 'deleting a token that is not stored leaves the slot alone');
});
