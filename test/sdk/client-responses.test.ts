import test from 'ava';
import { PetCare } from '../../sdk/src/index.js';
import { createLocation, createPetParent } from '../helpers/factories.js';
import { adminCredentials, useTestApp } from '../helpers/test-app.js';
import { recordingFetch } from './sdk-support.js';

/**
 * Response headers on success: every call's promise resolves to the plain answer, and its
 * `withResponse()` to `{ data, response }` with the status, the request id, the rate limit, the
 * API version and whether the answer was an idempotent replay, from the same single request.
 */

const t = useTestApp(test, { jobs: false });

test('withResponse() gives the answer with its request id, rate limit and version, from one request', async (a) => {
  const limited = await t.client({ rateLimitPerMinute: 50 });
  const rec = recordingFetch();
  const sdk = new PetCare({ baseUrl: t.url, clientId: limited.clientId, clientSecret: limited.clientSecret, fetch: rec.fetch });
  const location = await createLocation(t);
  const parent = await createPetParent(t, location.id);

  const call = sdk.pets.create({ name: 'Headers', breed: 'Lab', species: 'dog', ownerId: parent.id, locationId: location.id });
  const { data: pet, response } = await call.withResponse();
  a.is(response.status, 201);
  a.regex(pet.id, /^pet_/);
  a.regex(response.requestId ?? '', /.+/);
  a.is(response.requestId, response.headers.get('x-request-id') ?? undefined);
  a.is(response.rateLimit?.limit, 50);
  a.is(response.rateLimit?.remaining, 49);
  a.true((response.rateLimit?.windowSeconds ?? 0) > 0);
  a.regex(response.apiVersion ?? '', /^\d{4}-\d{2}-\d{2}$/);
  a.false(response.idempotentReplayed);
  // The same call awaited directly: the same plain answer, no second request, no extra members.
  a.deepEqual(await call, pet);
  a.deepEqual(Object.keys(pet), Object.keys(JSON.parse(JSON.stringify(pet)) as object));
  a.is(rec.exchanges.filter((e) => e.url.pathname === '/v1/pets').length, 1);

  // A read, a list page and a raw request answer the same way; the caller's request id comes back.
  const read = await sdk.pets.get(pet.id, { headers: { 'x-request-id': 'front-desk-42' } }).withResponse();
  a.is(read.data.id, pet.id);
  a.is(read.response.requestId, 'front-desk-42');
  a.is(read.response.rateLimit?.remaining, 48);
  const page = await sdk.pets.list({ ownerId: parent.id }).firstPage().withResponse();
  a.deepEqual(
    page.data.data.map((p) => p.id),
    [pet.id],
  );
  a.is(page.response.status, 200);
  const raw = await sdk.request('get', '/v1/pets/{id}', { ids: [pet.id] }).withResponse();
  a.is((raw.data as { id: string }).id, pet.id);
  a.is(raw.response.rateLimit?.remaining, 46);
});

test('withResponse() tells an idempotent replay from a first answer', async (a) => {
  const sdk = new PetCare({ baseUrl: t.url, ...adminCredentials.live });
  const location = await createLocation(t);
  const parent = await createPetParent(t, location.id);
  const body = { name: 'Twice', breed: 'Pug', species: 'dog', ownerId: parent.id, locationId: location.id } as const;
  const first = await sdk.pets.create(body, { idempotencyKey: 'responses-replay' }).withResponse();
  const again = await sdk.pets.create(body, { idempotencyKey: 'responses-replay' }).withResponse();
  a.false(first.response.idempotentReplayed);
  a.true(again.response.idempotentReplayed);
  a.is(again.data.id, first.data.id);
});

test('a call used only through withResponse() that fails rejects there, and leaves no unhandled rejection', async (a) => {
  const sdk = new PetCare({ baseUrl: t.url, ...adminCredentials.live });
  const error = await a.throwsAsync(sdk.pets.get('pet_doesnotexist0000').withResponse());
  a.is((error as { status?: number }).status, 404);
  // The promise of the data was never awaited; had its rejection gone unhandled, ava would fail this file.
});
