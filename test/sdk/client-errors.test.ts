import test from 'ava';
import {
  PetCare,
  PetCareAPIError,
  PetCareAuthenticationError,
  PetCareConflictError,
  PetCareConnectionError,
  PetCareError,
  PetCareInvalidRequestError,
  PetCareNotFoundError,
  PetCarePermissionError,
  PetCareRateLimitError,
  PetCareTimeoutError,
  type CodeWithStatus,
  type ErrorCode,
} from '../../sdk/src/index.js';
import { errorCodes } from '../../src/http/errors.js';
import { createLocation, createPetParent } from '../helpers/factories.js';
import { freePort } from '../helpers/free-port.js';
import { adminCredentials, useTestApp } from '../helpers/test-app.js';
import { problem, startScriptedServer } from './sdk-support.js';

/**
 * The SDK's errors against the real server: each status family is its own subclass of
 * PetCareError (Stripe-style), and `code` is the union of the API's codes, so a typo does not compile.
 */

const t = useTestApp(test, { jobs: false });

const sdkFor = (
  credentials: { clientId: string; clientSecret: string } = adminCredentials.live,
  extra: Partial<ConstructorParameters<typeof PetCare>[0]> = {},
) => new PetCare({ baseUrl: t.url, ...credentials, retryBaseDelayMs: 5, ...extra });

async function household() {
  const location = await createLocation(t);
  const parent = await createPetParent(t, location.id);
  return { locationId: location.id, ownerId: parent.id };
}

test('each status family is its own subclass of PetCareError, from the real server', async (a) => {
  const sdk = sdkFor();
  const { locationId, ownerId } = await household();

  // 400: the request as sent is refused.
  const invalid = await a.throwsAsync(sdk.pets.create({ name: '', breed: 'x', species: 'dog', ownerId, locationId }), {
    instanceOf: PetCareInvalidRequestError,
  });
  a.true(invalid instanceof PetCareError, 'still a PetCareError for code written against it');
  a.is(invalid?.name, 'PetCareInvalidRequestError');
  a.is(invalid?.status, 400);
  a.is(invalid?.code, 'validation_failed');
  a.true(invalid!.errors.some((e) => e.field === 'name'));

  // 404
  const missing = await a.throwsAsync(sdk.pets.get('pet_doesnotexist0000'), { instanceOf: PetCareNotFoundError });
  a.is(missing?.code, 'not_found');
  a.regex(missing?.requestId ?? '', /.+/);

  // 409: a second wallet in the same currency.
  await sdk.wallets.create({ parentId: ownerId, currency: 'USD' });
  const twice = await a.throwsAsync(sdk.wallets.create({ parentId: ownerId, currency: 'USD' }), { instanceOf: PetCareConflictError });
  a.is(twice?.status, 409);
  a.is(twice?.code, 'wallet_exists');

  // 422: an Idempotency-Key reused with another body.
  await sdk.pets.create({ name: 'Once', breed: 'Pug', species: 'dog', ownerId, locationId }, { idempotencyKey: 'errors-test-key' });
  const reused = await a.throwsAsync(
    sdk.pets.create({ name: 'Other', breed: 'Pug', species: 'dog', ownerId, locationId }, { idempotencyKey: 'errors-test-key' }),
    {
      instanceOf: PetCareInvalidRequestError,
    },
  );
  a.is(reused?.status, 422);
  a.is(reused?.code, 'idempotency_key_mismatch');
});

test('401, 403 and 429 from the real server: authentication, permission and rate limit errors', async (a) => {
  const wrongSecret = await a.throwsAsync(sdkFor({ clientId: adminCredentials.live.clientId, clientSecret: 'sk_live_wrong' }).pets.list().firstPage(), {
    instanceOf: PetCareAuthenticationError,
  });
  a.is(wrongSecret?.status, 401);
  a.is(wrongSecret?.code, 'invalid_client');

  const reader = await t.client({ scopes: ['pets.read'] });
  const { locationId, ownerId } = await household();
  const forbidden = await a.throwsAsync(sdkFor(reader).pets.create({ name: 'No', breed: 'x', species: 'dog', ownerId, locationId }), {
    instanceOf: PetCarePermissionError,
  });
  a.is(forbidden?.status, 403);
  a.is(forbidden?.code, 'insufficient_scope');

  const limited = await t.client({ rateLimitPerMinute: 2 });
  const sdk = sdkFor(limited, { maxRetries: 0 });
  await sdk.pets.list().firstPage();
  await sdk.pets.list().firstPage();
  const spent = await a.throwsAsync(sdk.pets.list().firstPage(), { instanceOf: PetCareRateLimitError });
  a.is(spent?.status, 429);
  a.is(spent?.code, 'rate_limited');
  a.true((spent?.retryAfter ?? 0) > 0, `retryAfter ${spent?.retryAfter}`);
  a.is(spent?.rateLimit?.limit, 2);
  a.is(spent?.rateLimit?.remaining, 0);
  a.true((spent?.rateLimit?.resetSeconds ?? 0) > 0);
});

test('5xx is a PetCareAPIError after the retries; no answer at all is a PetCareConnectionError', async (a) => {
  const server = await startScriptedServer(() => ({ status: 503, body: problem(503, 'service_unavailable', 'Starting') }));
  try {
    const down = await a.throwsAsync(
      new PetCare({ baseUrl: server.url, clientId: 'pk_live_x', clientSecret: 'sk_live_x', maxRetries: 1, retryBaseDelayMs: 5 }).pets.get('pet_1'),
      { instanceOf: PetCareAPIError },
    );
    a.is(down?.status, 503);
    a.is(down?.code, 'service_unavailable');
    a.is(server.calls.length, 2);
  } finally {
    await server.close();
  }

  const nobody = `http://127.0.0.1:${await freePort()}`;
  const lost = await a.throwsAsync(new PetCare({ baseUrl: nobody, clientId: 'pk_live_x', clientSecret: 'sk_live_x', maxRetries: 0 }).pets.get('pet_1'), {
    instanceOf: PetCareConnectionError,
  });
  a.false(lost instanceof PetCareTimeoutError);
  a.is(lost?.status, 0);
  a.is(lost?.code, 'connection_error');
});

test('every status an API code answers with has its error class (a new status fails here until it gets one)', (a) => {
  // The registry is complete here: the test app registered every module's codes.
  const plain = Object.entries(errorCodes).filter(([code, { status }]) => PetCareError.from(status, { code }).constructor === PetCareError);
  a.deepEqual(plain, []);
  a.true(PetCareError.from(404, { code: 'not_found' }) instanceof PetCareNotFoundError);
  a.true(PetCareError.from(502, undefined) instanceof PetCareAPIError);
  a.is(PetCareError.from(502, undefined).code, 'http_502', 'an answer without a problem body');
});

test('code is the union of the API codes: a typo does not compile, a class narrows it to its statuses', (a) => {
  // Compile-time checks (`npm run typecheck` runs them: an @ts-expect-error that is not an error fails it).
  const known: ErrorCode = 'slot_unavailable';
  // @ts-expect-error a misspelt code is no code of the API
  const typo: ErrorCode = 'slot_unavailabe';
  const conflicts: CodeWithStatus<409>[] = ['slot_unavailable', 'wallet_exists', 'conflict'];
  // @ts-expect-error not_found is a 404, not a 409
  const wrongFamily: CodeWithStatus<409> = 'not_found';

  const describe = (error: PetCareError): string => {
    // @ts-expect-error comparing with a code that does not exist is a compile error
    if (error.code === 'not_foud') return 'never';
    if (error instanceof PetCareNotFoundError) {
      // @ts-expect-error a 404 is never slot_unavailable
      if (error.code === 'slot_unavailable') return 'never';
      return error.code === 'not_found' ? 'missing' : 'other 404';
    }
    if (error instanceof PetCareTimeoutError) return error.code; // 'timeout'
    return error.code === 'connection_error' || error.code === 'http_502' ? 'transport' : 'api';
  };
  a.is(describe(PetCareError.from(404, { code: 'not_found' })), 'missing');
  a.is(describe(new PetCareTimeoutError(10)), 'timeout');
  a.is(describe(new PetCareConnectionError()), 'transport');
  a.deepEqual([known, typo, wrongFamily, ...conflicts].length, 6);
});
