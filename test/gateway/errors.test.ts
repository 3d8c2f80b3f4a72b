import test from 'ava';
import { createHousehold, createPet } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { assertFieldErrors, assertProblem, countPetsNamed, fieldsOf, packageVersion, petBody, uniqueName } from './gateway-support.js';

const bodyLimit = 2048;
let token: string;
let household: Awaited<ReturnType<typeof createHousehold>>;

const t = useTestApp(test, { config: { jsonBodyLimitBytes: bodyLimit } });
test.before(async () => {
  token = await t.adminToken();
  household = await createHousehold(t);
});

const json = { 'content-type': 'application/json' };

test('unknown route: 404 route_not_found problem, with or without a token', async (a) => {
  const anonymous = await t.request('GET', '/v1/no-such-thing');
  assertProblem(a, anonymous, 404, 'route_not_found', '/v1/no-such-thing');
  a.regex(anonymous.body.detail, /GET \/v1\/no-such-thing/);

  const withToken = await t.request('POST', '/nowhere/at/all', { token, body: { a: 1 } });
  assertProblem(a, withToken, 404, 'route_not_found', '/nowhere/at/all');
});

test('wrong method on a known path: 405 method_not_allowed with Allow', async (a) => {
  const list = await t.request('DELETE', '/v1/pets', { token });
  assertProblem(a, list, 405, 'method_not_allowed', '/v1/pets');
  const allowed = (list.headers.get('allow') ?? '').split(/,\s*/).sort();
  a.deepEqual(allowed, ['GET', 'HEAD', 'POST']);

  const item = await t.request('PUT', `/v1/pets/${household.pet.id}`, { token, body: { name: 'x' } });
  assertProblem(a, item, 405, 'method_not_allowed');
  a.deepEqual((item.headers.get('allow') ?? '').split(/,\s*/).sort(), ['GET', 'HEAD', 'PATCH']);

  const probe = await t.request('POST', '/healthz');
  assertProblem(a, probe, 405, 'method_not_allowed', '/healthz');
  a.deepEqual((probe.headers.get('allow') ?? '').split(/,\s*/).sort(), ['GET', 'HEAD']);
});

test('malformed JSON: 400 malformed_json, nothing written', async (a) => {
  const name = uniqueName('Malformed');
  for (const raw of [`{"name":"${name}",`, '{name: 1}', '"just a string"', 'null', '{"a":1}}']) {
    const res = await t.request('POST', '/v1/pets', { token, rawBody: raw, headers: json });
    assertProblem(a, res, 400, 'malformed_json', '/v1/pets');
    a.is(res.body.errors, undefined);
  }
  a.is(await countPetsNamed(t, name), 0);
});

test('a body over jsonBodyLimitBytes: 413 payload_too_large; just under the limit is parsed', async (a) => {
  const name = uniqueName('Big');
  const big = JSON.stringify({ ...petBody(household, name), breed: 'x'.repeat(bodyLimit) });
  a.true(Buffer.byteLength(big) > bodyLimit);
  const res = await t.request('POST', '/v1/pets', { token, rawBody: big, headers: json });
  assertProblem(a, res, 413, 'payload_too_large', '/v1/pets');

  // The same shape just below the limit reaches validation (breed is too long), proving the limit is the configured one.
  const under = JSON.stringify({ ...petBody(household, name), breed: 'x'.repeat(bodyLimit - 250) });
  a.true(Buffer.byteLength(under) < bodyLimit);
  const parsed = await t.request('POST', '/v1/pets', { token, rawBody: under, headers: json });
  assertProblem(a, parsed, 400, 'validation_failed');
  a.deepEqual(fieldsOf(parsed), ['breed']);
  a.is(await countPetsNamed(t, name), 0);
});

test('wrong content type: 415 unsupported_media_type, nothing written', async (a) => {
  const name = uniqueName('Plain');
  const text = await t.request('POST', '/v1/pets', { token, rawBody: JSON.stringify(petBody(household, name)), headers: { 'content-type': 'text/plain' } });
  assertProblem(a, text, 415, 'unsupported_media_type', '/v1/pets');
  a.regex(text.body.detail, /application\/json/);

  const form = await t.request('POST', '/v1/pets', {
    token,
    rawBody: `name=${name}&breed=Beagle`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  assertProblem(a, form, 415, 'unsupported_media_type');

  const patch = await t.request('PATCH', `/v1/pets/${household.pet.id}`, { token, rawBody: `{"name":"${name}"}`, headers: { 'content-type': 'text/plain' } });
  assertProblem(a, patch, 415, 'unsupported_media_type');
  a.is(await countPetsNamed(t, name), 0);
});

test('validation: 400 validation_failed with errors[{field, message}]', async (a) => {
  const missing = await t.request('POST', '/v1/pets', { token, body: { name: '' } });
  assertProblem(a, missing, 400, 'validation_failed', '/v1/pets');
  assertFieldErrors(a, missing);
  a.deepEqual(fieldsOf(missing).sort(), ['breed', 'locationId', 'name', 'ownerId', 'species']);
  a.is(missing.body.errors.find((e: { field: string }) => e.field === 'breed').message, 'is required');

  const wrongTypes = await t.request('POST', '/v1/pets', {
    token,
    body: { ...petBody(household, 'Typed'), species: 'dragon', birthDate: '12/04/2021', name: 7 },
  });
  assertProblem(a, wrongTypes, 400, 'validation_failed');
  assertFieldErrors(a, wrongTypes);
  a.deepEqual(fieldsOf(wrongTypes).sort(), ['birthDate', 'name', 'species']);
  // An enum names its values instead of "Expected union value".
  a.regex(wrongTypes.body.errors.find((e: { field: string }) => e.field === 'species').message, /one of: dog, cat/);

  const notAnObject = await t.request('POST', '/v1/pets', { token, rawBody: '[]', headers: json });
  assertProblem(a, notAnObject, 400, 'validation_failed');
  a.deepEqual(fieldsOf(notAnObject), ['body']);

  const badParam = await t.request('GET', '/v1/pets?limit=lots', { token });
  assertProblem(a, badParam, 400, 'validation_failed');
  a.deepEqual(fieldsOf(badParam), ['limit']);

  const unknownQuery = await t.request('GET', '/v1/pets?colour=brown', { token });
  assertProblem(a, unknownQuery, 400, 'validation_failed');
  a.deepEqual(fieldsOf(unknownQuery), ['colour']);
});

for (const field of ['id', 'createdAt', 'updatedAt', 'tenantId', 'vaccinationStatus', 'lastVisit']) {
  test(`server-owned field ${field} is rejected on create and nothing is written`, async (a) => {
    const name = uniqueName(`Owned-${field}`);
    const value = field === 'vaccinationStatus' ? 'Up to date' : field === 'lastVisit' ? '2026-01-01' : field === 'id' ? 'pet_forged' : '2026-01-01T00:00:00Z';
    const res = await t.request('POST', '/v1/pets', { token, body: { ...petBody(household, name), [field]: value } });
    assertProblem(a, res, 400, 'validation_failed', '/v1/pets');
    assertFieldErrors(a, res);
    a.deepEqual(res.body.errors, [{ field, message: 'is not a recognised field' }]);
    a.is(await countPetsNamed(t, name), 0);
  });
}

// Serial: it compares whole lists, and another test here creates a pet.
test.serial('server-owned fields together on create: each is named, no row appears in the list', async (a) => {
  const before = await t.request('GET', '/v1/pets?limit=100', { token });
  const name = uniqueName('AllOwned');
  const res = await t.request('POST', '/v1/pets', {
    token,
    body: { ...petBody(household, name), id: 'pet_mine', createdAt: '2020-01-01T00:00:00Z', tenantId: 'ten_other', vaccinationStatus: 'Up to date' },
  });
  assertProblem(a, res, 400, 'validation_failed');
  a.deepEqual(fieldsOf(res).sort(), ['createdAt', 'id', 'tenantId', 'vaccinationStatus']);
  const after = await t.request('GET', '/v1/pets?limit=100', { token });
  a.deepEqual(
    after.body.data.map((p: { id: string }) => p.id),
    before.body.data.map((p: { id: string }) => p.id),
  );
  a.is((await t.request('GET', '/v1/pets/pet_mine', { token })).status, 404);
});

test('server-owned fields on PATCH are rejected and the pet is unchanged', async (a) => {
  const pet = await createPet(t, household.parent.id, household.location.id);
  const before = await t.request('GET', `/v1/pets/${pet.id}`, { token });
  for (const body of [
    { vaccinationStatus: 'Up to date' },
    { id: 'pet_other' },
    { tenantId: 'ten_x', name: 'Renamed' },
    { createdAt: '2020-01-01T00:00:00Z' },
  ]) {
    const res = await t.request('PATCH', `/v1/pets/${pet.id}`, { token, body });
    assertProblem(a, res, 400, 'validation_failed', `/v1/pets/${pet.id}`);
    a.true(res.body.errors.some((e: { message: string }) => e.message === 'is not a recognised field'));
  }
  const after = await t.request('GET', `/v1/pets/${pet.id}`, { token });
  a.deepEqual(after.body, before.body);
});

test('auth errors are problem documents too (401 with WWW-Authenticate, 403 with the scope)', async (a) => {
  const none = await t.request('GET', '/v1/pets');
  assertProblem(a, none, 401, 'unauthorized', '/v1/pets');
  a.regex(none.headers.get('www-authenticate') ?? '', /^Bearer realm="petcare"/);

  const garbage = await t.request('GET', '/v1/pets', { token: 'not-a-jwt' });
  assertProblem(a, garbage, 401, 'invalid_token');

  const staff = await t.client({ role: 'staff', scopes: ['pets.read'] });
  const forbidden = await t.request('POST', '/v1/pets', { token: staff.accessToken, body: petBody(household, uniqueName('Scope')) });
  assertProblem(a, forbidden, 403, 'insufficient_scope');
  a.is(forbidden.body.requiredScope, 'pets');

  const notFound = await t.request('GET', '/v1/pets/pet_doesnotexist', { token });
  assertProblem(a, notFound, 404, 'not_found', '/v1/pets/pet_doesnotexist');
});

test('X-Request-Id: a valid one is echoed, in the header and the problem document', async (a) => {
  for (const id of ['req-123', 'a.b:c_d-E', 'x'.repeat(128), '0f8fad5b-d9cb-469f-a165-70867728950e']) {
    const ok = await t.request('GET', '/v1/pets?limit=1', { token, headers: { 'x-request-id': id } });
    a.is(ok.status, 200);
    a.is(ok.headers.get('x-request-id'), id);
    const problem = await t.request('GET', '/v1/nothing-here', { headers: { 'x-request-id': id } });
    a.is(problem.headers.get('x-request-id'), id);
    a.is(problem.body.requestId, id);
  }
});

test('X-Request-Id: generated when missing or not acceptable, and unique per request', async (a) => {
  const seen = new Set<string>();
  for (const sent of [undefined, '', 'has space', 'x'.repeat(129), 'semi;colon', '<script>', 'ünïcode']) {
    const headers: Record<string, string> = sent === undefined ? {} : { 'x-request-id': sent };
    let res;
    try {
      res = await t.request('GET', '/v1/nothing-here', { headers });
    } catch {
      continue; // fetch refuses some header values outright; the server never sees them
    }
    const id = res.headers.get('x-request-id') ?? '';
    a.not(id, sent);
    a.regex(id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    a.is(res.body.requestId, id);
    a.false(seen.has(id));
    seen.add(id);
  }
  a.true(seen.size >= 5);
});

test('X-Platform-Version is the package.json version on every kind of response', async (a) => {
  a.regex(packageVersion, /^\d+\.\d+\.\d+/);
  const responses = await Promise.all([
    t.request('GET', '/healthz'),
    t.request('GET', '/readyz'),
    t.request('GET', '/metrics'),
    t.request('GET', '/version'),
    t.request('GET', '/openapi.json'),
    t.request('GET', '/docs'),
    t.request('GET', '/docs/assets/docs-init.js'),
    t.request('GET', '/v1/pets', { token }),
    t.request('GET', '/v1/pets'),
    t.request('GET', '/nope'),
    t.request('DELETE', '/healthz'),
    t.request('POST', '/v1/pets', { token, rawBody: '{', headers: json }),
    t.request('POST', '/v1/pets', { token, rawBody: 'x'.repeat(bodyLimit * 2), headers: json }),
    t.request('POST', '/oauth/token', { body: { grant_type: 'client_credentials', client_id: 'pk_live_nobody', client_secret: 'nope' } }),
    t.request('OPTIONS', '/v1/pets'),
  ]);
  for (const res of responses) a.is(res.headers.get('x-platform-version'), packageVersion, `status ${res.status}`);
  a.deepEqual(
    responses.map((r) => r.status),
    [200, 200, 200, 200, 200, 200, 200, 200, 401, 404, 405, 400, 413, 401, 200],
  );
});

test('OAuth endpoint errors stay application/json (RFC 6749) and still carry the problem members', async (a) => {
  const res = await t.request('POST', '/oauth/token', { body: { grant_type: 'client_credentials', client_id: 'pk_live_nobody', client_secret: 'nope' } });
  a.is(res.status, 401);
  a.is(res.headers.get('content-type')?.split(';')[0], 'application/json');
  a.is(res.body.error, 'invalid_client');
  a.is(res.body.code, 'invalid_client');
  a.is(res.body.requestId, res.headers.get('x-request-id'));
  a.is(res.headers.get('cache-control'), 'no-store');
});
