import test from 'ava';
import { TestClock, type Response, useTestApp } from '../helpers/test-app.js';
import { assertProblem } from './gateway-support.js';

// The tests move the shared clock (forward only), so they run one at a time; each uses its own client.
const tokenLimit = 12;
const app = useTestApp(test, { clock: new TestClock(Date.parse('2026-03-02T10:00:00.000Z')), config: { tokenRateLimitPerMinute: tokenLimit } });

/** Parses `"default";r=4;t=60` into {r, t}. */
function rateLimit(res: Response): { r: number; t: number } {
  const header = res.headers.get('ratelimit') ?? '';
  const match = /^"default";r=(\d+);t=(\d+)$/.exec(header);
  if (!match) throw new Error(`bad RateLimit header: ${JSON.stringify(header)}`);
  return { r: Number(match[1]), t: Number(match[2]) };
}

test.serial('a normal client gets the default 600-per-minute policy on every response', async (a) => {
  const t = app;
  const c = await t.client({ scopes: ['pets'] });
  const first = await t.request('GET', '/v1/pets', { token: c.accessToken });
  a.is(first.status, 200);
  a.is(first.headers.get('ratelimit-policy'), '"default";q=600;w=60');
  a.deepEqual(rateLimit(first), { r: 599, t: 60 });

  t.clock.advance(1500);
  // Refusals after authentication count and carry the headers too.
  const notFound = await t.request('GET', '/v1/pets/pet_missing', { token: c.accessToken });
  a.is(notFound.status, 404);
  a.is(notFound.headers.get('ratelimit-policy'), '"default";q=600;w=60');
  a.deepEqual(rateLimit(notFound), { r: 598, t: 59 }); // the oldest call frees its slot 58.5 s from now, rounded up

  const invalid = await t.request('GET', '/v1/pets?limit=0', { token: c.accessToken });
  a.is(invalid.status, 400);
  a.deepEqual(rateLimit(invalid), { r: 597, t: 59 });
});

test.serial('rateLimitPerMinute 5: five calls pass, the sixth is 429 rate_limited with Retry-After', async (a) => {
  const t = app;
  const c = await t.client({ scopes: ['pets'], rateLimitPerMinute: 5 });
  for (let i = 1; i <= 5; i++) {
    const res = await t.request('GET', '/v1/pets', { token: c.accessToken });
    a.is(res.status, 200, `call ${i}`);
    a.is(res.headers.get('ratelimit-policy'), '"default";q=5;w=60');
    a.deepEqual(rateLimit(res), { r: 5 - i, t: 60 - (i - 1) }); // t: until the first call (at 0 s) leaves the window
    t.clock.advance(1000);
  }
  const limited = await t.request('GET', '/v1/pets', { token: c.accessToken });
  assertProblem(a, limited, 429, 'rate_limited', '/v1/pets');
  a.is(limited.headers.get('ratelimit-policy'), '"default";q=5;w=60');
  // First call at 0 s, now 5 s: its slot frees in 55 s.
  a.deepEqual(rateLimit(limited), { r: 0, t: 55 });
  a.is(limited.headers.get('retry-after'), '55');

  // A refused call is not counted: still limited, still the same reset.
  const again = await t.request('POST', '/v1/pets', { token: c.accessToken, body: {} });
  assertProblem(a, again, 429, 'rate_limited');
  a.is(again.headers.get('retry-after'), '55');

  // Other clients are not affected.
  const other = await t.client({ scopes: ['pets'], rateLimitPerMinute: 5 });
  a.is((await t.request('GET', '/v1/pets', { token: other.accessToken })).status, 200);
});

test.serial('the window rolls: a slot frees exactly 60 s after the call that used it, not at a fixed boundary', async (a) => {
  const t = app;
  const c = await t.client({ scopes: ['pets'], rateLimitPerMinute: 5 });
  const start = t.clock.now();
  a.is((await t.request('GET', '/v1/pets', { token: c.accessToken })).status, 200); // call 1 at 0 s
  t.clock.advance(30_000);
  for (let i = 0; i < 4; i++) a.is((await t.request('GET', '/v1/pets', { token: c.accessToken })).status, 200); // calls 2–5 at 30 s

  const at30 = await t.request('GET', '/v1/pets', { token: c.accessToken });
  assertProblem(a, at30, 429, 'rate_limited');
  a.is(at30.headers.get('retry-after'), '30');

  t.clock.set(start + 59_999);
  const edge = await t.request('GET', '/v1/pets', { token: c.accessToken });
  assertProblem(a, edge, 429, 'rate_limited');
  a.is(edge.headers.get('retry-after'), '1');

  t.clock.set(start + 60_001);
  const freed = await t.request('GET', '/v1/pets', { token: c.accessToken });
  a.is(freed.status, 200, 'the 0 s call has left the window');
  a.is(rateLimit(freed).r, 0);

  // Only that one slot: calls 2–5 (at 30 s) are still inside the window. A fixed minute window would have reset all five.
  const next = await t.request('GET', '/v1/pets', { token: c.accessToken });
  assertProblem(a, next, 429, 'rate_limited');
  a.is(next.headers.get('retry-after'), '30'); // 29.999 s until the 30 s calls leave, rounded up

  t.clock.set(start + 90_000);
  for (let i = 0; i < 4; i++) a.is((await t.request('GET', '/v1/pets', { token: c.accessToken })).status, 200, `slot ${i} after 90 s`);
  assertProblem(a, await t.request('GET', '/v1/pets', { token: c.accessToken }), 429, 'rate_limited');
});

test.serial('a full quiet minute gives the whole quota back', async (a) => {
  const t = app;
  const c = await t.client({ scopes: ['pets'], rateLimitPerMinute: 5 });
  for (let i = 0; i < 5; i++) a.is((await t.request('GET', '/v1/pets', { token: c.accessToken })).status, 200);
  assertProblem(a, await t.request('GET', '/v1/pets', { token: c.accessToken }), 429, 'rate_limited');
  t.clock.advance(60_000);
  const res = await t.request('GET', '/v1/pets', { token: c.accessToken });
  a.is(res.status, 200);
  a.deepEqual(rateLimit(res), { r: 4, t: 60 });
});

test.serial('changing the client limit applies to its next call', async (a) => {
  const t = app;
  const c = await t.client({ scopes: ['pets'], rateLimitPerMinute: 2 });
  for (let i = 0; i < 2; i++) a.is((await t.request('GET', '/v1/pets', { token: c.accessToken })).status, 200);
  assertProblem(a, await t.request('GET', '/v1/pets', { token: c.accessToken }), 429, 'rate_limited');
  const patched = await t.request('PATCH', `/v1/clients/${c.id}`, { token: await t.adminToken(), body: { rateLimitPerMinute: 3 } });
  a.is(patched.status, 200, patched.text);
  const res = await t.request('GET', '/v1/pets', { token: c.accessToken });
  a.is(res.status, 200);
  a.is(res.headers.get('ratelimit-policy'), '"default";q=3;w=60');
});

test.serial('after the limit is lowered, Retry-After waits for enough calls to leave, not just the oldest', async (a) => {
  const t = app;
  const c = await t.client({ scopes: ['pets'], rateLimitPerMinute: 5 });
  for (let i = 0; i < 5; i++) {
    a.is((await t.request('GET', '/v1/pets', { token: c.accessToken })).status, 200); // at 0, 1, 2, 3, 4 s
    t.clock.advance(1000);
  }
  a.is((await t.request('PATCH', `/v1/clients/${c.id}`, { token: await t.adminToken(), body: { rateLimitPerMinute: 2 } })).status, 200);
  // Now at 5 s with five calls counted and a limit of 2: four must leave; the fourth (at 3 s) leaves at 63 s.
  const limited = await t.request('GET', '/v1/pets', { token: c.accessToken });
  assertProblem(a, limited, 429, 'rate_limited');
  a.is(limited.headers.get('retry-after'), '58');
  t.clock.advance(58_000 - 1);
  assertProblem(a, await t.request('GET', '/v1/pets', { token: c.accessToken }), 429, 'rate_limited');
  t.clock.advance(2);
  a.is((await t.request('GET', '/v1/pets', { token: c.accessToken })).status, 200, 'honouring Retry-After succeeds');
});

test.serial('the token endpoint is limited per IP address, failed attempts included', async (a) => {
  const t = app;
  t.clock.advance(61_000); // earlier tests fetched tokens: start from an empty window
  const wrong = { grant_type: 'client_credentials', client_id: 'pk_live_testadmin', client_secret: 'wrong' };
  for (let i = 0; i < tokenLimit; i++) {
    const res = await t.request('POST', '/oauth/token', { body: wrong });
    a.is(res.status, 401, `attempt ${i + 1}`);
    a.is(res.headers.get('ratelimit-policy'), `"default";q=${tokenLimit};w=60`);
  }
  const limited = await t.request('POST', '/oauth/token', { body: { ...wrong, client_secret: 'sk_live_testadminsecret' } });
  a.is(limited.status, 429);
  a.is(limited.body.code, 'rate_limited');
  a.is(limited.body.error, 'slow_down');
  a.is(limited.headers.get('retry-after'), '60');
  t.clock.advance(60_000);
  a.is((await t.request('POST', '/oauth/token', { body: { ...wrong, client_secret: 'sk_live_testadminsecret' } })).status, 200);
});
