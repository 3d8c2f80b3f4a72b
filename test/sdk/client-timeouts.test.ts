import test from 'ava';
import { PetCare, PetCareConnectionError, PetCareError, PetCareTimeoutError, defaultTimeoutMs } from '../../sdk/src/index.js';
import { adminCredentials, useTestApp } from '../helpers/test-app.js';
import { startHeldServer } from './sdk-support.js';

/**
 * The request timeout: one per try, client-wide (`timeoutMs`) and per call (`{ timeoutMs }`),
 * retried like a lost connection and thrown as PetCareTimeoutError after the last try. The server
 * that never answers is a real one on 127.0.0.1 holding its answer, so nothing depends on timing
 * but the timeout itself (of a second or half: the token request, answered at once, is under the
 * client-wide limit too, and a loaded machine must not make it run out).
 */

const t = useTestApp(test, { jobs: false });

const sdk = (baseUrl: string, extra: Partial<ConstructorParameters<typeof PetCare>[0]> = {}) =>
  new PetCare({ baseUrl, clientId: 'pk_live_x', clientSecret: 'sk_live_x', retryBaseDelayMs: 5, ...extra });

test('a call without an answer within timeoutMs fails with PetCareTimeoutError, after its retries, with one Idempotency-Key', async (a) => {
  const server = await startHeldServer();
  try {
    const error = await a.throwsAsync(sdk(server.url, { timeoutMs: 1000, maxRetries: 1 }).pets.update('pet_1', { name: 'Slow' }), {
      instanceOf: PetCareTimeoutError,
    });
    a.true(error instanceof PetCareConnectionError && error instanceof PetCareError);
    a.is(error?.name, 'PetCareTimeoutError');
    a.is(error?.status, 0);
    a.is(error?.code, 'timeout');
    a.is(error?.timeoutMs, 1000);
    a.is(server.calls.length, 2, 'the try and one retry');
    a.truthy(server.calls[0]!.headers['idempotency-key']);
    a.is(server.calls[1]!.headers['idempotency-key'], server.calls[0]!.headers['idempotency-key']);
  } finally {
    await server.close();
  }
});

test('the timeout covers the body too: headers sent and the body held is a timeout', async (a) => {
  const server = await startHeldServer({ headersFirst: true });
  try {
    await a.throwsAsync(sdk(server.url, { timeoutMs: 1000, maxRetries: 0 }).pets.get('pet_1'), { instanceOf: PetCareTimeoutError });
    a.is(server.calls.length, 1);
  } finally {
    await server.close();
  }
});

test('a per-call timeoutMs overrides the client-wide one', async (a) => {
  const server = await startHeldServer();
  try {
    const client = sdk(server.url, { timeoutMs: 1000, maxRetries: 0 });
    const patient = client.pets.get('pet_1', { timeoutMs: 60_000 });
    // The client-wide limit has passed once the default call has timed out; the patient one still waits.
    const hasty = await a.throwsAsync(client.pets.get('pet_2'), { instanceOf: PetCareTimeoutError });
    a.is(hasty?.timeoutMs, 1000);
    server.release({ id: 'pet_1', name: 'Bella' });
    a.deepEqual((await patient) as unknown, { id: 'pet_1', name: 'Bella' });

    const shortOne = await a.throwsAsync(sdk(server.url, { maxRetries: 0 }).pets.get('pet_3', { timeoutMs: 500 }), { instanceOf: PetCareTimeoutError });
    a.is(shortOne?.timeoutMs, 500);
  } finally {
    await server.close();
  }
});

test('against the real server: calls finish well inside the default timeout, and a caller abort is not a timeout', async (a) => {
  a.is(defaultTimeoutMs, 60_000);
  const client = new PetCare({ baseUrl: t.url, ...adminCredentials.live, timeoutMs: 30_000 });
  const page = await client.pets.list({ limit: 1 }, { timeoutMs: 20_000 }).firstPage();
  a.true(Array.isArray(page.data));
  const controller = new AbortController();
  controller.abort();
  const aborted = await a.throwsAsync(client.pets.list({}, { signal: controller.signal }).firstPage());
  a.false(aborted instanceof PetCareError, 'an abort the caller asked for is theirs, not the SDK’s');
});
