import test from 'ava';
import { PetCare, PetCareError } from '../../sdk/src/index.js';
import { adminCredentials, useTestApp } from '../helpers/test-app.js';
import { revoke } from '../oauth/oauth-test-kit.js';
import { grantsOf, recordingFetch } from './sdk-support.js';

/**
 * The SDK's token against the real server: fetched on the first call, refreshed with the
 * refresh_token grant near expiry or after a 401 invalid_token, and client credentials again
 * when the refresh is refused. Serial: the tests move the server's clock.
 */

const t = useTestApp(test, { jobs: false });

const ttlMs = () => t.config.accessTokenTtlSeconds * 1000;

test.serial('fetches a token on the first call, reuses it, and refreshes it near expiry', async (a) => {
  const rec = recordingFetch();
  const sdk = new PetCare({ baseUrl: t.url, ...adminCredentials.live, scope: 'pets admin', fetch: rec.fetch, now: () => t.clock.now() });
  await sdk.pets.list({ limit: 1 }).firstPage();
  await sdk.pets.list({ limit: 1 }).firstPage();
  a.deepEqual(grantsOf(rec.exchanges), ['client_credentials']);
  const tokenRequest = JSON.parse(rec.exchanges[0]!.body!) as Record<string, string>;
  a.like(tokenRequest, { client_id: adminCredentials.live.clientId, client_secret: adminCredentials.live.clientSecret, scope: 'pets admin' });
  a.is(rec.exchanges[0]!.headers.get('content-type'), 'application/json');

  t.clock.advance(ttlMs() - 30_000); // inside the 60 s margin
  try {
    await sdk.pets.list({ limit: 1 }).firstPage();
    a.deepEqual(grantsOf(rec.exchanges), ['client_credentials', 'refresh_token']);
    const calls = rec.exchanges.filter((e) => e.url.pathname === '/v1/pets');
    a.deepEqual(
      calls.map((e) => e.status),
      [200, 200, 200],
    );
    a.not(calls[2]!.headers.get('authorization'), calls[0]!.headers.get('authorization'), 'the new token is used');
  } finally {
    t.clock.advance(-(ttlMs() - 30_000));
  }
});

test.serial('a call answered 401 invalid_token refreshes once and is sent again', async (a) => {
  const rec = recordingFetch();
  // The SDK's own clock does not move: only the server sees the token expire.
  const sdk = new PetCare({ baseUrl: t.url, ...adminCredentials.live, fetch: rec.fetch });
  await sdk.pets.list().firstPage();
  t.clock.advance(ttlMs() + 1000);
  try {
    const page = await sdk.pets.list().firstPage();
    a.true(Array.isArray(page.data));
    a.deepEqual(grantsOf(rec.exchanges), ['client_credentials', 'refresh_token']);
    a.deepEqual(
      rec.exchanges.filter((e) => e.url.pathname === '/v1/pets').map((e) => e.status),
      [200, 401, 200],
    );
  } finally {
    t.clock.advance(-(ttlMs() + 1000));
  }
});

test.serial('a refused refresh falls back to client credentials', async (a) => {
  const refreshTokens: string[] = [];
  const rec = recordingFetch(async (e, real) => {
    const res = await real();
    if (e.url.pathname === '/oauth/token' && res.ok) refreshTokens.push(((await res.clone().json()) as { refresh_token: string }).refresh_token);
    return res;
  });
  const sdk = new PetCare({ baseUrl: t.url, ...adminCredentials.live, fetch: rec.fetch, now: () => t.clock.now() });
  await sdk.pets.list().firstPage();
  a.is((await revoke(t, adminCredentials.live, refreshTokens[0]!)).status, 200);
  t.clock.advance(ttlMs());
  try {
    await sdk.pets.list().firstPage();
    a.deepEqual(grantsOf(rec.exchanges), ['client_credentials', 'refresh_token', 'client_credentials']);
    a.deepEqual(
      rec.exchanges.filter((e) => e.url.pathname === '/oauth/token').map((e) => e.status),
      [200, 400, 200],
    );
  } finally {
    t.clock.advance(-ttlMs());
  }
});

test('wrong credentials fail with the OAuth code as a PetCareError, without retrying', async (a) => {
  const rec = recordingFetch();
  const sdk = new PetCare({ baseUrl: t.url, clientId: adminCredentials.live.clientId, clientSecret: 'sk_live_wrong', fetch: rec.fetch });
  const error = await a.throwsAsync(sdk.pets.get('pet_missing'), { instanceOf: PetCareError });
  a.is(error?.status, 401);
  a.is(error?.code, 'invalid_client');
  a.is(rec.exchanges.length, 1);
});

test('Petcare-Version is sent when apiVersion is given (per client and per call), and not otherwise', async (a) => {
  const rec = recordingFetch();
  const pinned = new PetCare({ baseUrl: t.url, ...adminCredentials.live, apiVersion: '2025-06-01', fetch: rec.fetch });
  await pinned.pets.list().firstPage();
  await pinned.pets.list({}, { apiVersion: '2026-11-01' }).firstPage();
  const calls = rec.exchanges.filter((e) => e.url.pathname === '/v1/pets');
  a.is(calls[0]!.headers.get('petcare-version'), '2025-06-01');
  a.is(calls[0]!.responseHeaders!.get('petcare-version'), '2025-06-01', 'the server answered in that version');
  a.is(calls[1]!.headers.get('petcare-version'), '2026-11-01');
  a.is(calls[1]!.responseHeaders!.get('petcare-version'), '2026-11-01');

  const plain = recordingFetch();
  await new PetCare({ baseUrl: t.url, ...adminCredentials.live, fetch: plain.fetch }).pets.list().firstPage();
  a.is(plain.exchanges.find((e) => e.url.pathname === '/v1/pets')!.headers.get('petcare-version'), null);

  const error = await a.throwsAsync(new PetCare({ baseUrl: t.url, ...adminCredentials.live, apiVersion: '1999-01-01' }).pets.list().firstPage(), {
    instanceOf: PetCareError,
  });
  a.is(error?.status, 400);
  a.is(error?.code, 'unsupported_api_version');
});
