import test from 'ava';
import { PetCare, PetCareError } from '../../sdk/src/index.js';
import { problem, recordingFetch, startScriptedServer } from './sdk-support.js';

/**
 * Retries against a scripted server on 127.0.0.1 (the real rate limit's Retry-After is up to a
 * minute): 429 and 5xx are retried with the same Idempotency-Key, honouring Retry-After; other
 * 4xx never are.
 */
const sdk = (baseUrl: string, extra: Partial<ConstructorParameters<typeof PetCare>[0]> = {}) =>
  new PetCare({ baseUrl, clientId: 'pk_live_x', clientSecret: 'sk_live_x', retryBaseDelayMs: 5, ...extra });

const pet = { id: 'pet_1', name: 'Bella' };

test('a 429 is retried after its Retry-After seconds, with the same Idempotency-Key', async (a) => {
  const server = await startScriptedServer((n) =>
    n === 0 ? { status: 429, headers: { 'retry-after': '1' }, body: problem(429, 'rate_limited', 'Slow down') } : { status: 201, body: pet },
  );
  try {
    const created = await sdk(server.url).pets.create({ name: 'Bella', breed: 'Lab', species: 'dog', ownerId: 'usr_1', locationId: 'loc_1' });
    a.deepEqual(created as unknown, pet);
    a.is(server.calls.length, 2);
    const [first, second] = server.calls;
    a.true(second!.at - first!.at >= 950, `waited ${second!.at - first!.at} ms, Retry-After said 1 s`);
    a.truthy(first!.headers['idempotency-key']);
    a.is(second!.headers['idempotency-key'], first!.headers['idempotency-key']);
  } finally {
    await server.close();
  }
});

test('5xx answers are retried up to maxRetries, then surface as a PetCareError', async (a) => {
  const server = await startScriptedServer(() => ({ status: 503, body: problem(503, 'service_unavailable', 'Down for a moment') }));
  try {
    const error = await a.throwsAsync(sdk(server.url, { maxRetries: 2 }).pets.get('pet_1'), { instanceOf: PetCareError });
    a.is(error?.status, 503);
    a.is(error?.code, 'service_unavailable');
    a.is(server.calls.length, 3, 'the first try and two retries');
  } finally {
    await server.close();
  }
});

test('a 500 then a success: the caller only sees the success (three retries by default)', async (a) => {
  const server = await startScriptedServer((n) => (n < 3 ? { status: 500, body: problem(500, 'internal_error', 'Oops') } : { status: 200, body: pet }));
  try {
    a.deepEqual((await sdk(server.url).pets.get('pet_1')) as unknown, pet);
    a.is(server.calls.length, 4);
  } finally {
    await server.close();
  }
});

test('a 400 is not retried, and its problem becomes a PetCareError with code, detail and field errors', async (a) => {
  const server = await startScriptedServer(() => ({
    status: 400,
    body: problem(400, 'validation_failed', 'The request is not valid', [{ field: 'name', message: 'must not be blank' }]),
  }));
  try {
    const error = await a.throwsAsync(sdk(server.url).pets.update('pet_1', { name: ' ' }), { instanceOf: PetCareError });
    a.is(error?.status, 400);
    a.is(error?.code, 'validation_failed');
    a.is(error?.detail, 'The request is not valid');
    a.deepEqual(error?.errors, [{ field: 'name', message: 'must not be blank' }]);
    a.is(error?.requestId, 'req_test');
    a.is(server.calls.length, 1);
  } finally {
    await server.close();
  }
});

test('a network error is retried; when it persists the call fails with status 0', async (a) => {
  const server = await startScriptedServer(() => ({ status: 200, body: pet }));
  try {
    let drops = 1;
    const flaky = recordingFetch(async (e) => {
      if (e.url.pathname.startsWith('/v1/') && drops-- > 0) throw new TypeError('fetch failed');
      return undefined;
    });
    a.deepEqual((await sdk(server.url, { fetch: flaky.fetch }).pets.get('pet_1')) as unknown, pet);
    a.is(flaky.exchanges.filter((e) => e.url.pathname === '/v1/pets/pet_1').length, 2);

    const down = recordingFetch(async (e) => {
      if (e.url.pathname.startsWith('/v1/')) throw new TypeError('fetch failed');
      return undefined;
    });
    const error = await a.throwsAsync(sdk(server.url, { fetch: down.fetch, maxRetries: 1 }).pets.get('pet_1'), { instanceOf: PetCareError });
    a.is(error?.status, 0);
    a.is(error?.code, 'connection_error');
    a.is(down.exchanges.filter((e) => e.url.pathname === '/v1/pets/pet_1').length, 2);
  } finally {
    await server.close();
  }
});
