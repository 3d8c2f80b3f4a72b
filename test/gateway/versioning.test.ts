import test, { type ExecutionContext } from 'ava';
import { createHousehold } from '../helpers/factories.js';
import { startTestApp, TestClock, type Response, useTestApp } from '../helpers/test-app.js';
import { assertProblem, walk } from './gateway-support.js';

const sunset = Date.parse('2026-12-01T00:00:00.000Z');
const deprecatedAt = Date.parse('2026-06-01T00:00:00.000Z');

// A fixed date before the sunset, so the suite does not start failing when the real calendar passes it.
let token: string;
let household: Awaited<ReturnType<typeof createHousehold>>;
const t = useTestApp(test, { clock: new TestClock(Date.parse('2026-07-15T12:00:00.000Z')) });
test.before(async () => {
  token = await t.adminToken();
  household = await createHousehold(t);
});

function assertDeprecationHeaders(a: ExecutionContext, res: Response, successor: string): void {
  const deprecation = res.headers.get('deprecation') ?? '';
  a.regex(deprecation, /^@\d+$/);
  a.is(Number(deprecation.slice(1)) * 1000, deprecatedAt);
  a.is(res.headers.get('sunset'), 'Tue, 01 Dec 2026 00:00:00 GMT');
  a.is(res.headers.get('link'), `<${successor}>; rel="successor-version"`);
}

test('GET /v0/pets/:id answers like /v1 plus Deprecation, Sunset and Link', async (a) => {
  const id = household.pet.id;
  const v1 = await t.request('GET', `/v1/pets/${id}`, { token });
  const v0 = await t.request('GET', `/v0/pets/${id}`, { token });
  a.is(v1.status, 200);
  a.is(v0.status, 200);
  a.deepEqual(v0.body, v1.body);
  a.is(v0.headers.get('content-type'), v1.headers.get('content-type'));
  assertDeprecationHeaders(a, v0, `/v1/pets/${id}`);
  a.is(v0.headers.get('ratelimit-policy'), '"default";q=600;w=60');
  // The current version carries none of them.
  a.is(v1.headers.get('deprecation'), null);
  a.is(v1.headers.get('sunset'), null);
  a.is(v1.headers.get('link'), null);
});

test('the v0 twin keeps the v1 rules: 404, 401 and 403, with the deprecation headers', async (a) => {
  const missing = await t.request('GET', '/v0/pets/pet_missing', { token });
  assertProblem(a, missing, 404, 'not_found', '/v0/pets/pet_missing');
  assertDeprecationHeaders(a, missing, '/v1/pets/pet_missing');

  const anonymous = await t.request('GET', `/v0/pets/${household.pet.id}`);
  assertProblem(a, anonymous, 401, 'unauthorized');
  assertDeprecationHeaders(a, anonymous, `/v1/pets/${household.pet.id}`);

  const noScope = await t.client({ role: 'staff', scopes: ['medical.read'] });
  assertProblem(a, await t.request('GET', `/v0/pets/${household.pet.id}`, { token: noScope.accessToken }), 403, 'insufficient_scope');

  // Out-of-scope rows answer 404 on v0 just as on v1.
  const elsewhere = await t.request('POST', '/v1/locations', { token, body: { name: 'Elsewhere', timezone: 'UTC' } });
  const scoped = await t.client({ role: 'staff', scopes: ['pets'], locationIds: [elsewhere.body.id] });
  assertProblem(a, await t.request('GET', `/v0/pets/${household.pet.id}`, { token: scoped.accessToken }), 404, 'not_found');
});

test('only the listed twins exist under /v0', async (a) => {
  assertProblem(a, await t.request('GET', '/v0/pets', { token }), 404, 'route_not_found');
  assertProblem(a, await t.request('GET', '/v0/pet-parents', { token }), 404, 'route_not_found');
  // GET /v0/payments is the other listed twin (test/payments/payments.test.ts checks its headers); its by-id path is not.
  assertProblem(a, await t.request('GET', '/v0/payments/pay_x', { token }), 404, 'route_not_found', '/v0/payments/pay_x');
  const patch = await t.request('PATCH', `/v0/pets/${household.pet.id}`, { token, body: { name: 'x' } });
  assertProblem(a, patch, 405, 'method_not_allowed');
  a.deepEqual((patch.headers.get('allow') ?? '').split(/,\s*/).sort(), ['GET', 'HEAD']);
});

test('v0 calls are audited under their own route template', async (a) => {
  const requestId = `v0-audit-${Date.now()}`;
  await t.request('GET', `/v0/pets/${household.pet.id}`, { token, headers: { 'x-request-id': requestId } });
  const rows = await walk(t, `/v1/audit-events?resourceId=${household.pet.id}`, token);
  const row = rows.find((e) => e.requestId === requestId);
  a.like(row, { route: 'GET /v0/pets/:id', path: `/v0/pets/${household.pet.id}`, status: 200 });
});

test('from the sunset instant on, /v0 answers 410 gone with the same headers; /v1 is unaffected', async (a) => {
  const start = sunset - 60_000;
  const app = await startTestApp({ clock: new TestClock(start) });
  try {
    const admin = await app.adminToken();
    const home = await createHousehold(app);
    const id = home.pet.id;

    app.clock.set(sunset - 1);
    const lastCall = await app.request('GET', `/v0/pets/${id}`, { token: admin });
    a.is(lastCall.status, 200);

    for (const at of [sunset, sunset + 1, Date.parse('2027-05-01T00:00:00Z')]) {
      app.clock.set(at);
      const fresh = await app.token('pk_live_testadmin', 'sk_live_testadminsecret');
      const gone = await app.request('GET', `/v0/pets/${id}`, { token: fresh.body.access_token });
      assertProblem(a, gone, 410, 'gone', `/v0/pets/${id}`);
      assertDeprecationHeaders(a, gone, `/v1/pets/${id}`);
      a.regex(gone.body.detail, new RegExp(`/v1/pets/${id}`));
      // Gone regardless of the caller: no token, unknown ids.
      assertProblem(a, await app.request('GET', `/v0/pets/${id}`), 410, 'gone');
      assertProblem(a, await app.request('GET', '/v0/pets/pet_missing'), 410, 'gone');

      const current = await app.request('GET', `/v1/pets/${id}`, { token: fresh.body.access_token });
      a.is(current.status, 200);
      a.is(current.body.id, id);
    }
  } finally {
    await app.close();
  }
});
