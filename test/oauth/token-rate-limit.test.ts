import test from 'ava';
import { adminCredentials, useTestApp } from '../helpers/test-app.js';
import { clientCredentials, revoke } from './oauth-test-kit.js';

const t = useTestApp(test, { config: { tokenRateLimitPerMinute: 3 } });

const admin = adminCredentials.live;

// One test on purpose: the budget is per IP and every call here comes from 127.0.0.1.
test('the token endpoint allows 3 calls per IP per minute, then 429 with Retry-After and RateLimit headers', async (a) => {
  const remaining: string[] = [];
  let accessToken = '';
  for (let i = 0; i < 3; i++) {
    const res = await clientCredentials(t, admin);
    a.is(res.status, 200, res.text);
    a.is(res.headers.get('ratelimit-policy'), '"default";q=3;w=60');
    remaining.push(res.headers.get('ratelimit') ?? '');
    accessToken = res.body.access_token;
    t.clock.advance(1_000);
  }
  a.deepEqual(remaining, ['"default";r=2;t=60', '"default";r=1;t=59', '"default";r=0;t=58']);

  const limited = await clientCredentials(t, admin);
  a.is(limited.status, 429, limited.text);
  a.is(limited.headers.get('retry-after'), '57'); // the first call leaves the window 60 s after it was made
  a.is(limited.headers.get('ratelimit-policy'), '"default";q=3;w=60');
  a.is(limited.headers.get('ratelimit'), '"default";r=0;t=57');
  a.is(limited.body.code, 'rate_limited');
  a.is(limited.body.status, 429);
  a.is(typeof limited.body.error, 'string'); // OAuth clients read `error`
  a.is(limited.headers.get('cache-control'), 'no-store');
  a.falsy(limited.body.access_token);

  // The limit is checked before the credentials: guessing secrets is throttled too.
  const guess = await clientCredentials(t, { clientId: admin.clientId, clientSecret: 'sk_live_guess' });
  a.is(guess.status, 429);
  // The revocation endpoint shares the budget.
  a.is((await revoke(t, admin, 'rt_live_whatever')).status, 429);
  // The API itself is not limited by the token endpoint's budget.
  a.is((await t.request('GET', '/v1/pets', { token: accessToken })).status, 200);

  // Still limited one second before the first call leaves the window…
  t.clock.advance(56_000);
  const almost = await clientCredentials(t, admin);
  a.is(almost.status, 429);
  a.is(almost.headers.get('retry-after'), '1');

  // …and freed when it has: 60 s after the first call.
  t.clock.advance(1_000);
  const freed = await clientCredentials(t, admin);
  a.is(freed.status, 200, freed.text);
  a.is(freed.headers.get('ratelimit'), '"default";r=0;t=1');

  // A full minute later the whole budget is back.
  t.clock.advance(60_000);
  const again = await clientCredentials(t, admin);
  a.is(again.status, 200);
  a.is(again.headers.get('ratelimit'), '"default";r=2;t=60');

  // Refused calls are audited with their status.
  const audit = await t.request('GET', '/v1/audit-events?status=429', { token: again.body.access_token });
  a.is(audit.status, 200, audit.text);
  a.true(audit.body.data.length >= 4);
  a.true(audit.body.data.every((r: { status: number }) => r.status === 429));
  a.true(audit.body.data.some((r: { route: string }) => r.route === 'POST /oauth/revoke'));
});
