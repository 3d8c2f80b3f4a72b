import test from 'ava';
import { createLocation } from '../helpers/factories.js';
import { type TokenSet, useTestApp } from '../helpers/test-app.js';
import { createProvider, eventsWith } from '../appointments/scheduling-support.js';

/** Providers (prv_): onboarding, reading, patching, listing; scope, role and location rules. */
const providerKeys = ['id', 'name', 'kind', 'status', 'locationIds', 'services', 'rating', 'ratingCount', 'createdAt', 'updatedAt', 'externalId'];

let admin: string;
let staff: TokenSet; // staff, bookings
let reader: TokenSet; // staff, bookings.read
let doctor: TokenSet; // doctor, bookings (role may not manage providers)
let petsOnly: TokenSet; // staff, pets
let locA: { id: string };
let locB: { id: string };
let scopedA: TokenSet; // staff, bookings, [A]

const t = useTestApp(test);
test.before(async () => {
  admin = await t.adminToken();
  locA = await createLocation(t, { name: 'Provider clinic A' });
  locB = await createLocation(t, { name: 'Provider clinic B' });
  [staff, reader, doctor, petsOnly, scopedA] = await Promise.all([
    t.client({ name: 'desk', role: 'staff', scopes: ['bookings'] }),
    t.client({ name: 'reader', role: 'staff', scopes: ['bookings.read'] }),
    t.client({ name: 'doctor', role: 'doctor', scopes: ['bookings'] }),
    t.client({ name: 'pets only', role: 'staff', scopes: ['pets'] }),
    t.client({ name: 'A desk', role: 'staff', scopes: ['bookings'], locationIds: [locA.id] }),
  ]);
});

test('POST /v1/providers onboards a provider; GET returns exactly the documented fields', async (a) => {
  const res = await t.request('POST', '/v1/providers', {
    token: staff.accessToken,
    body: { name: 'Dr. Ada Byron', kind: 'vet', locationIds: [locB.id, locA.id], services: ['VET_CONSULTATION', 'vaccination', 'vaccination'] },
  });
  a.is(res.status, 201, res.text);
  a.regex(res.body.id, /^prv_[a-z0-9]{26}$/);
  a.deepEqual(Object.keys(res.body).sort(), [...providerKeys].sort());
  a.like(res.body, { name: 'Dr. Ada Byron', kind: 'vet', status: 'active', rating: null, ratingCount: 0 });
  a.deepEqual(res.body.locationIds, [locA.id, locB.id].sort());
  a.deepEqual(res.body.services, ['vaccination', 'vet_consultation']);
  const got = await t.request('GET', `/v1/providers/${res.body.id}`, { token: reader.accessToken });
  a.is(got.status, 200);
  a.deepEqual(got.body, res.body);
});

test('services default to every type ([])', async (a) => {
  const res = await t.request('POST', '/v1/providers', { token: admin, body: { name: 'Walker Wes', kind: 'walker', locationIds: [locA.id] } });
  a.is(res.status, 201, res.text);
  a.deepEqual(res.body.services, []);
});

test('provider.onboarded is emitted once with the provider data', async (a) => {
  const provider = await createProvider(t, { kind: 'groomer', locationIds: [locA.id], services: ['grooming'] });
  const events = await eventsWith(t, 'provider.onboarded', 'providerId', provider.id);
  a.is(events.length, 1);
  a.like(events[0]!.data, { providerId: provider.id, kind: 'groomer', status: 'active', locationIds: [locA.id], services: ['grooming'] });
  a.is(events[0]!.tenant_id, t.tenantId);
});

test('validation: kinds, names, locations, services', async (a) => {
  const cases: Array<[Record<string, unknown>, string, number, string]> = [
    [{ kind: 'plumber' }, 'kind', 400, 'validation_failed'],
    [{ name: '' }, 'name', 400, 'validation_failed'],
    [{ name: 'x'.repeat(201) }, 'name', 400, 'validation_failed'],
    [{ locationIds: [] }, 'locationIds', 400, 'validation_failed'],
    [{ locationIds: ['nowhere'] }, 'locationIds[0]', 400, 'validation_failed'],
    [{ locationIds: ['loc_doesnotexist'] }, 'locationIds[0]', 400, 'resource_missing'],
    [{ services: ['teleportation'] }, 'services[0]', 400, 'validation_failed'],
    [{ services: ['bad-code'] }, 'services[0]', 400, 'validation_failed'],
    [{ id: 'prv_mine' }, 'id', 400, 'validation_failed'],
    [{ status: 'inactive' }, 'status', 400, 'validation_failed'],
  ];
  for (const [patch, field, status, code] of cases) {
    const res = await t.request('POST', '/v1/providers', { token: admin, body: { name: 'V', kind: 'vet', locationIds: [locA.id], ...patch } });
    a.is(res.status, status, `${JSON.stringify(patch)}: ${res.text}`);
    a.is(res.body.code, code, JSON.stringify(patch));
    a.true(
      (res.body.errors as Array<{ field: string }>).some((e) => e.field === field),
      `${JSON.stringify(patch)} → ${JSON.stringify(res.body.errors)}`,
    );
  }
});

test('auth: 401 without a token, 403 without the scope or the role', async (a) => {
  const body = { name: 'Nope', kind: 'vet', locationIds: [locA.id] };
  a.is((await t.request('POST', '/v1/providers', { body })).status, 401);
  const noScope = await t.request('POST', '/v1/providers', { token: reader.accessToken, body });
  a.is(noScope.status, 403);
  a.is(noScope.body.code, 'insufficient_scope');
  const noRole = await t.request('POST', '/v1/providers', { token: doctor.accessToken, body });
  a.is(noRole.status, 403);
  a.is(noRole.body.code, 'forbidden_role');
  const provider = await createProvider(t, { locationIds: [locA.id] });
  a.is((await t.request('GET', `/v1/providers/${provider.id}`, { token: petsOnly.accessToken })).status, 403);
  a.is((await t.request('GET', `/v1/providers/${provider.id}`, { token: doctor.accessToken })).status, 200);
  a.is((await t.request('PATCH', `/v1/providers/${provider.id}`, { token: doctor.accessToken, body: { name: 'X' } })).body.code, 'forbidden_role');
});

test('location scoping: a client of A sees providers working at A, 404 for the others, and only its locations in locationIds', async (a) => {
  const onlyB = await createProvider(t, { locationIds: [locB.id] });
  const both = await createProvider(t, { locationIds: [locA.id, locB.id] });
  const hidden = await t.request('GET', `/v1/providers/${onlyB.id}`, { token: scopedA.accessToken });
  a.is(hidden.status, 404);
  a.is(hidden.body.code, 'not_found');
  const shared = await t.request('GET', `/v1/providers/${both.id}`, { token: scopedA.accessToken });
  a.is(shared.status, 200);
  a.deepEqual(shared.body.locationIds, [locA.id]);
  a.is((await t.request('PATCH', `/v1/providers/${onlyB.id}`, { token: scopedA.accessToken, body: { name: 'Taken' } })).status, 404);
  // A body naming B is a reference the caller cannot see.
  const create = await t.request('POST', '/v1/providers', { token: scopedA.accessToken, body: { name: 'X', kind: 'vet', locationIds: [locB.id] } });
  a.is(create.status, 400);
  a.is(create.body.code, 'resource_missing');
  const list = await t.request('GET', '/v1/providers?limit=100', { token: scopedA.accessToken });
  const ids = (list.body.data as Array<{ id: string }>).map((p) => p.id);
  a.true(ids.includes(both.id));
  a.false(ids.includes(onlyB.id));
});

test('a scoped PATCH of locationIds replaces only the locations the caller sees', async (a) => {
  const locC = await createLocation(t, { name: 'Provider clinic C' });
  const provider = await createProvider(t, { locationIds: [locA.id, locB.id] });
  const scopedAC = await t.client({ name: 'A+C', role: 'staff', scopes: ['bookings'], locationIds: [locA.id, locC.id] });
  const res = await t.request('PATCH', `/v1/providers/${provider.id}`, { token: scopedAC.accessToken, body: { locationIds: [locC.id] } });
  a.is(res.status, 200, res.text);
  a.deepEqual(res.body.locationIds, [locC.id]);
  const full = await t.request('GET', `/v1/providers/${provider.id}`, { token: admin });
  a.deepEqual(full.body.locationIds, [locB.id, locC.id].sort());
});

test('PATCH renames, changes services and status; updatedAt moves', async (a) => {
  const provider = await createProvider(t, { locationIds: [locA.id] });
  t.clock.advance(1000);
  const res = await t.request('PATCH', `/v1/providers/${provider.id}`, {
    token: staff.accessToken,
    body: { name: 'Dr. Renamed', services: ['Dental'], status: 'inactive', kind: 'trainer' },
  });
  a.is(res.status, 200, res.text);
  a.like(res.body, { name: 'Dr. Renamed', services: ['dental'], status: 'inactive', kind: 'trainer' });
  a.not(res.body.updatedAt, res.body.createdAt);
  a.is((await t.request('PATCH', `/v1/providers/${provider.id}`, { token: staff.accessToken, body: {} })).status, 400);
  a.is((await t.request('PATCH', `/v1/providers/${provider.id}`, { token: staff.accessToken, body: { services: ['nope'] } })).body.code, 'validation_failed');
  a.is((await t.request('PATCH', '/v1/providers/prv_missing', { token: staff.accessToken, body: { name: 'X' } })).status, 404);
});

test('GET /v1/providers filters by locationId, kind, service and status, with cursor paging', async (a) => {
  const loc = await createLocation(t, { name: 'Filter clinic' });
  const vet = await createProvider(t, { kind: 'vet', locationIds: [loc.id], services: ['surgery'] });
  const groomer = await createProvider(t, { kind: 'groomer', locationIds: [loc.id], services: ['grooming'] });
  const generalist = await createProvider(t, { kind: 'vet', locationIds: [loc.id] });
  const ids = async (query: string) =>
    ((await t.request('GET', `/v1/providers?${query}`, { token: reader.accessToken })).body.data as Array<{ id: string }>).map((p) => p.id);
  a.deepEqual(await ids(`locationId=${loc.id}`), [generalist.id, groomer.id, vet.id]);
  a.deepEqual(await ids(`locationId=${loc.id}&kind=groomer`), [groomer.id]);
  a.deepEqual(await ids(`locationId=${loc.id}&service=SURGERY`), [generalist.id, vet.id]);
  a.deepEqual(await ids(`locationId=${loc.id}&service=grooming&kind=vet`), [generalist.id]);
  const page1 = await t.request('GET', `/v1/providers?locationId=${loc.id}&limit=2`, { token: reader.accessToken });
  a.is(page1.body.data.length, 2);
  a.true(page1.body.hasMore);
  const page2 = await t.request('GET', `/v1/providers?locationId=${loc.id}&limit=2&cursor=${page1.body.nextCursor}`, { token: reader.accessToken });
  a.deepEqual(
    page2.body.data.map((p: { id: string }) => p.id),
    [vet.id],
  );
  a.false(page2.body.hasMore);
  // Inactive providers leave the default list (the bookable ones) and stay reachable by status.
  await t.request('PATCH', `/v1/providers/${vet.id}`, { token: admin, body: { status: 'inactive' } });
  a.deepEqual(await ids(`locationId=${loc.id}&status=inactive`), [vet.id]);
  a.deepEqual(await ids(`locationId=${loc.id}`), [generalist.id, groomer.id]);
  a.is((await t.request('GET', '/v1/providers?kind=plumber', { token: reader.accessToken })).status, 400);
});

test('idempotent onboarding: same key → same provider, one event, Idempotent-Replayed', async (a) => {
  const body = { name: 'Dr. Once', kind: 'vet', locationIds: [locA.id] };
  const first = await t.request('POST', '/v1/providers', { token: staff.accessToken, body, idempotencyKey: 'prv-once-1' });
  const second = await t.request('POST', '/v1/providers', { token: staff.accessToken, body, idempotencyKey: 'prv-once-1' });
  a.is(first.status, 201);
  a.is(second.status, 201);
  a.is(second.body.id, first.body.id);
  a.is(second.headers.get('idempotent-replayed'), 'true');
  a.is((await eventsWith(t, 'provider.onboarded', 'providerId', first.body.id)).length, 1);
  const mismatch = await t.request('POST', '/v1/providers', { token: staff.accessToken, body: { ...body, name: 'Other' }, idempotencyKey: 'prv-once-1' });
  a.is(mismatch.status, 422);
});
