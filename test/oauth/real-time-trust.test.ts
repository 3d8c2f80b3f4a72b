import test from 'ava';
import { startTestApp, TestClock, type TestApp } from '../helpers/test-app.js';
import { assertProblem } from '../gateway/gateway-support.js';
import { applianceSigningKey, assertInvalidToken, createClient, decodeJwt, forgeJwt, rs256 } from './oauth-test-kit.js';

/**
 * Issue 24.1: the sandbox test clock moves the sandbox's business dates only. Ids carry real time,
 * and token cut-offs (rotation, disable) read no clock at all, so no clock a caller can move, and no
 * restart, lets a cut token back in.
 */
const real = Date.parse('2026-11-26T12:00:00.000Z');
const day = 86_400_000;
const alphabet = '0123456789abcdefghjkmnpqrstvwxyz';
/** The millisecond time inside an id (its first 10 characters after the prefix). */
const idTime = (id: string) => [...id.slice(id.indexOf('_') + 1, id.indexOf('_') + 11)].reduce((value, char) => value * 32 + alphabet.indexOf(char), 0);

let t: TestApp;
const clock = new TestClock(real);

test.before(async () => {
  t = await startTestApp({ clock });
});
test.after.always(async () => {
  await t?.close();
});

const advanceSandbox = async (advanceTo: string) => t.request('POST', '/v1/sandbox/clock', { token: await t.adminToken('sandbox'), body: { advanceTo } });
const pets = (token: string) => t.request('GET', '/v1/pets', { token });
const token = async (client: { clientId: string; clientSecret: string }) => {
  const res = await t.token(client.clientId, client.clientSecret);
  if (res.status !== 200) throw new Error(`token: ${res.status} ${res.text}`);
  return res.body.access_token as string;
};

test.serial('ids carry real time: an advanced sandbox clock reaches neither live nor sandbox ids', async (a) => {
  const moved = await advanceSandbox(new Date(real + 60 * day).toISOString());
  a.is(moved.status, 200, moved.text);
  const live = await t.request('POST', '/v1/locations', { token: await t.adminToken('live'), body: { name: 'After the move', timezone: 'UTC' } });
  a.is(live.status, 201, live.text);
  a.is(idTime(live.body.id), real);
  const sandboxParent = await t.request('POST', '/v1/pet-parents', {
    token: await t.adminToken('sandbox'),
    body: { name: 'Sam Sandbox', email: 'sam@example.com', locationId: 'loc_demo_downtown' },
  });
  a.is(sandboxParent.status, 201, sandboxParent.text);
  a.is(idTime(sandboxParent.body.id), real);
});

test.serial('after an advanced sandbox clock and a restart, rotation, disable and re-enable cut exactly the tokens issued before each', async (a) => {
  await advanceSandbox(new Date(real + 90 * day).toISOString());
  const client = await createClient(t, { role: 'staff', scopes: ['pets'] });
  const beforeRestart = await token(client);
  a.is((await pets(beforeRestart)).status, 200);

  // A restart forgets everything in memory: what cuts tokens must be in the database.
  const dataDir = t.dataDir;
  await t.close({ keepData: true });
  t = await startTestApp({ clock, dataDir });
  a.is((await pets(beforeRestart)).status, 200, 'a token survives a restart');

  const admin = await t.adminToken('live');
  const rotated = await t.request('POST', `/v1/clients/${client.id}/rotate-secret`, { token: admin });
  a.is(rotated.status, 200, rotated.text);
  assertInvalidToken(a, await pets(beforeRestart));
  const afterRotation = await token({ clientId: client.clientId, clientSecret: rotated.body.clientSecret });
  a.is((await pets(afterRotation)).status, 200);

  a.is((await t.request('PATCH', `/v1/clients/${client.id}`, { token: admin, body: { disabled: true } })).status, 200);
  assertInvalidToken(a, await pets(afterRotation));
  a.is((await t.request('PATCH', `/v1/clients/${client.id}`, { token: admin, body: { disabled: false } })).status, 200);
  assertInvalidToken(a, await pets(afterRotation), 'invalid_token');
  assertInvalidToken(a, await pets(beforeRestart));
  const afterReenable = await token({ clientId: client.clientId, clientSecret: rotated.body.clientSecret });
  a.is((await pets(afterReenable)).status, 200);

  // And once more across a restart: the cut is a counter in the client's row, not a time.
  await t.close({ keepData: true });
  t = await startTestApp({ clock, dataDir });
  a.is((await pets(afterReenable)).status, 200);
  assertInvalidToken(a, await pets(afterRotation));
  assertInvalidToken(a, await pets(beforeRestart));
  a.is(decodeJwt(afterReenable).payload.gen, 2, 'one rotation and one disable: generation 2');
});

test.serial('an access token is never valid longer than PETCARE_ACCESS_TOKEN_TTL after its iat, however it is signed', async (a) => {
  const client = await createClient(t, { role: 'staff', scopes: ['pets'] });
  const genuine = decodeJwt(await token(client));
  const { kid, privateKey } = applianceSigningKey(t);
  const iat = Math.floor(clock.now() / 1000);
  const longLived = forgeJwt(
    { alg: 'RS256', typ: 'at+jwt', kid },
    { ...genuine.payload, jti: 'tok_longlived', iat, exp: iat + 365 * 86_400 },
    rs256(privateKey),
  );
  a.is((await pets(longLived)).status, 200, 'within the TTL of its iat it works');
  clock.advance(t.config.accessTokenTtlSeconds * 1000 + 1000);
  const expired = await pets(longLived);
  assertInvalidToken(a, expired);
  a.regex(expired.body.detail, /expired/);
  const future = forgeJwt(
    { alg: 'RS256', typ: 'at+jwt', kid },
    { ...genuine.payload, jti: 'tok_future', iat: iat + 30 * 86_400, exp: iat + 30 * 86_400 + 3600 },
    rs256(privateKey),
  );
  assertInvalidToken(a, await pets(future));
  clock.set(real);
});

test.serial('the sandbox clock moves at most 5 years past real time', async (a) => {
  const tooFar = await advanceSandbox('9999-12-31T00:00:00Z');
  assertProblem(a, tooFar, 422, 'clock_out_of_range');
  const edge = await advanceSandbox(new Date(real + 4 * 365 * day).toISOString());
  a.is(edge.status, 200, edge.text);
});

test.serial('dates derived from vaccinations read the environment clock: GET /v1/pets and the care coordinator agree', async (a) => {
  const sandbox = await t.adminToken('sandbox');
  a.is((await t.request('POST', '/v1/sandbox/reset', { token: sandbox })).status, 200);
  const parent = await t.request('POST', '/v1/pet-parents', {
    token: sandbox,
    body: { name: 'Ava Due', email: 'ava@example.com', locationId: 'loc_demo_downtown' },
  });
  const pet = await t.request('POST', '/v1/pets', {
    token: sandbox,
    body: { name: 'Clocky', species: 'dog', breed: 'Beagle', ownerId: parent.body.id, locationId: 'loc_demo_downtown' },
  });
  a.is(pet.status, 201, pet.text);
  const vaccination = await t.request('POST', `/v1/pets/${pet.body.id}/vaccinations`, {
    token: sandbox,
    body: { vaccine: 'Rabies', administeredOn: '2025-12-15', dueOn: '2026-12-15' },
  });
  a.is(vaccination.status, 201, vaccination.text);
  const status = async () => (await t.request('GET', `/v1/pets/${pet.body.id}`, { token: sandbox })).body.vaccinationStatus;
  const coordinator = async () => (await t.request('GET', `/v1/agents/care-coordinator?petId=${pet.body.id}`, { token: sandbox })).body;
  a.is(await status(), 'Due soon', 'real today is 2026-11-26: due within 30 days');

  a.is((await advanceSandbox('2027-02-01T12:00:00Z')).status, 200);
  a.is(await status(), 'Overdue');
  const care = await coordinator();
  a.is(care.pet?.vaccinationStatus ?? care.vaccinationStatus, 'Overdue', JSON.stringify(care));
  const listed = (await t.request('GET', `/v1/pets?ownerId=${parent.body.id}`, { token: sandbox })).body.data[0];
  a.is(listed.vaccinationStatus, 'Overdue');
  // Live keeps real time.
  a.is((await t.request('POST', '/v1/sandbox/reset', { token: sandbox })).status, 200);
});
