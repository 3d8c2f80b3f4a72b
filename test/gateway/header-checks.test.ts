import test from 'ava';
import { createHousehold } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { apiVersions } from '../../src/http/api-versions.js';
import { assertProblem, countPetsNamed, fieldsOf, petBody, uniqueName } from './gateway-support.js';

/**
 * DESIGN §4 (issue 24 item 2): an empty or malformed Idempotency-Key or Petcare-Version header is a
 * 400, never "no header"; a method the route does not have is 405 with Allow, checked before any header.
 */
let token: string;
let household: Awaited<ReturnType<typeof createHousehold>>;

const t = useTestApp(test, { jobs: false });
test.before(async () => {
  token = await t.adminToken();
  household = await createHousehold(t);
});

const allowOf = (res: { headers: Headers }) => (res.headers.get('allow') ?? '').split(/,\s*/).sort();

test('an empty Idempotency-Key is 400 invalid_idempotency_key on every write, and nothing is written', async (a) => {
  const name = uniqueName('EmptyKey');
  const created = await t.request('POST', '/v1/pets', { token, body: petBody(household, name), headers: { 'Idempotency-Key': '' } });
  assertProblem(a, created, 400, 'invalid_idempotency_key', '/v1/pets');
  a.deepEqual(fieldsOf(created), ['Idempotency-Key']);
  a.is(await countPetsNamed(t, name), 0);

  const patched = await t.request('PATCH', `/v1/pets/${household.pet.id}`, { token, body: { name }, headers: { 'Idempotency-Key': '' } });
  assertProblem(a, patched, 400, 'invalid_idempotency_key');
  a.not((await t.request('GET', `/v1/pets/${household.pet.id}`, { token })).body.name, name);

  // A write that keeps no idempotency record (a ranking, run outside a transaction) refuses it too.
  const ranked = await t.request('POST', '/v1/providers/match', {
    token,
    body: { petId: household.pet.id, type: 'vet_consultation' },
    headers: { 'Idempotency-Key': '' },
  });
  assertProblem(a, ranked, 400, 'invalid_idempotency_key');

  // The same write with a key, or with none at all, goes through.
  const keyed = await t.request('POST', '/v1/pets', { token, body: petBody(household, name), headers: { 'Idempotency-Key': 'k-1' } });
  a.is(keyed.status, 201, keyed.text);
  const unkeyed = await t.request('POST', '/v1/pets', { token, body: petBody(household, uniqueName('NoKey')) });
  a.is(unkeyed.status, 201, unkeyed.text);
});

test('an empty Petcare-Version is 400 unsupported_api_version, before authentication, and not taken as absent', async (a) => {
  for (const opts of [{ token }, {}]) {
    const res = await t.request('GET', '/v1/locations', { ...opts, headers: { 'Petcare-Version': '' } });
    assertProblem(a, res, 400, 'unsupported_api_version', '/v1/locations');
    a.deepEqual(res.body.supportedVersions, [...apiVersions]);
    a.is(res.headers.get('petcare-version'), null, 'no version was used, so none is echoed');
  }
  const name = uniqueName('EmptyVersion');
  const write = await t.request('POST', '/v1/pets', { token, body: petBody(household, name), headers: { 'Petcare-Version': '' } });
  assertProblem(a, write, 400, 'unsupported_api_version');
  a.is(await countPetsNamed(t, name), 0);
});

test('a method the route lacks is 405 with Allow whatever the headers say; an unknown path stays 404', async (a) => {
  const headerSets: Array<Record<string, string>> = [
    { 'Petcare-Version': 'nope' },
    { 'Petcare-Version': '' },
    { 'Idempotency-Key': '' },
    { 'Idempotency-Key': 'has space' },
    { 'Petcare-Version': '2020-01-01', 'Idempotency-Key': '' },
  ];
  for (const headers of headerSets) {
    const list = await t.request('DELETE', '/v1/pets', { token, headers });
    assertProblem(a, list, 405, 'method_not_allowed', '/v1/pets');
    a.deepEqual(allowOf(list), ['GET', 'HEAD', 'POST'], JSON.stringify(headers));
    const anonymous = await t.request('PUT', `/v1/pets/${household.pet.id}`, { headers, body: { name: 'x' } });
    assertProblem(a, anonymous, 405, 'method_not_allowed');
    a.deepEqual(allowOf(anonymous), ['GET', 'HEAD', 'PATCH'], JSON.stringify(headers));
    const nowhere = await t.request('GET', '/v1/no-such-thing', { token, headers });
    assertProblem(a, nowhere, 404, 'route_not_found');
  }
  // On a method the route has, the headers are judged.
  assertProblem(a, await t.request('GET', '/v1/pets', { token, headers: { 'Petcare-Version': 'nope' } }), 400, 'unsupported_api_version');
});
