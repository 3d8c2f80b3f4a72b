import test from 'ava';
import { createLocation } from '../helpers/factories.js';
import { TestClock, type TokenSet, useTestApp } from '../helpers/test-app.js';
import { packageBody } from './grooming-support.js';

/** POST/GET/PATCH /v1/grooming/packages: durations and prices per size, bundles, filters, scoping, idempotency. */
const now = Date.parse('2026-11-23T08:00:00.000Z');
const packageKeys = [
  'id',
  'name',
  'locationId',
  'services',
  'durationMinutes',
  'price',
  'currency',
  'sessions',
  'validDays',
  'active',
  'createdAt',
  'updatedAt',
];

let admin: string;
let desk: TokenSet;
let reader: TokenSet;
let petsOnly: TokenSet;

const t = useTestApp(test, { clock: new TestClock(now) });
test.before(async () => {
  admin = await t.adminToken();
  [desk, reader, petsOnly] = await Promise.all([
    t.client({ name: 'desk', role: 'staff', scopes: ['bookings'] }),
    t.client({ name: 'reader', role: 'staff', scopes: ['bookings.read'] }),
    t.client({ name: 'pets only', role: 'staff', scopes: ['pets'] }),
  ]);
});

const post = (body: unknown, token = desk.accessToken, idempotencyKey?: string) =>
  t.request('POST', '/v1/grooming/packages', { token, body, ...(idempotencyKey ? { idempotencyKey } : {}) });

test('POST creates a package with every documented field; GET by id answers the same', async (a) => {
  const location = await createLocation(t, { currency: 'GBP' });
  const res = await post(packageBody({ locationId: location.id, sessions: 5, validDays: 180 }));
  a.is(res.status, 201, res.text);
  a.deepEqual(Object.keys(res.body), packageKeys);
  a.regex(res.body.id, /^pkg_[a-z0-9]{26}$/);
  a.deepEqual(res.body, {
    id: res.body.id,
    name: 'Full groom',
    locationId: location.id,
    services: ['bath', 'haircut'],
    durationMinutes: { small: 60, medium: 90, large: 120, xlarge: 150 },
    price: { small: 4_000, medium: 5_500, large: 7_000, xlarge: 9_000 },
    currency: 'GBP',
    sessions: 5,
    validDays: 180,
    active: true,
    createdAt: new Date(now).toISOString(),
    updatedAt: new Date(now).toISOString(),
  });
  const got = await t.request('GET', `/v1/grooming/packages/${res.body.id}`, { token: reader.accessToken });
  a.is(got.status, 200);
  a.deepEqual(got.body, res.body);
  // A group-wide package: no location, the default currency, one session, no expiry.
  const wide = await post(packageBody({ name: 'Nail trim', services: ['nail_trim'] }), admin);
  a.is(wide.status, 201, wide.text);
  a.like(wide.body, { locationId: null, currency: 'USD', sessions: 1, validDays: null });
});

test('validation: 400 naming the field, nothing written', async (a) => {
  const location = await createLocation(t);
  const cases: Array<[Record<string, unknown>, string]> = [
    [packageBody({ name: '  ' }), 'name'],
    [packageBody({ services: [] }), 'services'],
    [packageBody({ durationMinutes: { small: 60, medium: 90, large: 120 } }), 'durationMinutes.xlarge'],
    [packageBody({ durationMinutes: { small: 60, medium: 90, large: 120, xlarge: 1_000 } }), 'durationMinutes.xlarge'],
    [packageBody({ price: { small: -1, medium: 1, large: 1, xlarge: 1 } }), 'price.small'],
    [packageBody({ currency: 'usd' }), 'currency'],
    [packageBody({ currency: 'XYZ' }), 'currency'],
    [packageBody({ sessions: 0 }), 'sessions'],
    [packageBody({ locationId: 'loc_nope' }), 'locationId'],
    [packageBody({ extra: true }), 'extra'],
  ];
  for (const [body, field] of cases) {
    const res = await post({ ...body, ...(field === 'locationId' ? {} : { locationId: location.id }) });
    a.is(res.status, 400, `${field}: ${res.text}`);
    a.true(
      res.body.errors.some((e: { field: string }) => e.field === field || e.field.startsWith(field.split('.')[0]!)),
      `${field}: ${res.text}`,
    );
  }
  const atLocation = await t.request('GET', `/v1/grooming/packages?locationId=${location.id}&limit=100`, { token: admin });
  a.is(atLocation.body.data.filter((p: { locationId: string | null }) => p.locationId === location.id).length, 0);
});

test('401 and 403', async (a) => {
  a.is((await t.request('POST', '/v1/grooming/packages', { body: packageBody() })).status, 401);
  a.is((await post(packageBody(), petsOnly.accessToken)).status, 403);
  a.is((await post(packageBody(), reader.accessToken)).status, 403);
  a.is((await t.request('GET', '/v1/grooming/packages', { token: petsOnly.accessToken })).status, 403);
});

test('location scoping: another location’s client gets 404; group-wide packages are everyone’s; a scoped client cannot create group-wide ones', async (a) => {
  const here = await createLocation(t);
  const there = await createLocation(t);
  const scoped = await t.client({ name: 'there', role: 'staff', scopes: ['bookings'], locationIds: [there.id] });
  const mine = await post(packageBody({ locationId: here.id }));
  const wide = await post(packageBody({ name: 'Everywhere' }), admin);
  a.is((await t.request('GET', `/v1/grooming/packages/${mine.body.id}`, { token: scoped.accessToken })).status, 404);
  a.is((await t.request('PATCH', `/v1/grooming/packages/${mine.body.id}`, { token: scoped.accessToken, body: { name: 'Mine now' } })).status, 404);
  a.is((await t.request('GET', `/v1/grooming/packages/${wide.body.id}`, { token: scoped.accessToken })).status, 200);
  const list = await t.request('GET', '/v1/grooming/packages?limit=100', { token: scoped.accessToken });
  a.false(list.body.data.some((p: { id: string }) => p.id === mine.body.id));
  a.true(list.body.data.some((p: { id: string }) => p.id === wide.body.id));
  const refused = await post(packageBody(), scoped.accessToken);
  a.is(refused.status, 400);
  a.is(refused.body.errors[0].field, 'locationId');
});

test('PATCH changes fields; list filters locationId and active', async (a) => {
  const location = await createLocation(t);
  const created = await post(packageBody({ locationId: location.id }));
  const patched = await t.request('PATCH', `/v1/grooming/packages/${created.body.id}`, {
    token: desk.accessToken,
    body: { name: 'Deluxe groom', price: { small: 5_000, medium: 6_000, large: 8_000, xlarge: 10_000 }, validDays: 90, active: false },
  });
  a.is(patched.status, 200, patched.text);
  a.like(patched.body, { name: 'Deluxe groom', validDays: 90, active: false, price: { small: 5_000, medium: 6_000, large: 8_000, xlarge: 10_000 } });
  a.deepEqual(patched.body.durationMinutes, created.body.durationMinutes);
  const emptyPatch = await t.request('PATCH', `/v1/grooming/packages/${created.body.id}`, { token: desk.accessToken, body: {} });
  a.is(emptyPatch.status, 400);
  const active = await post(packageBody({ locationId: location.id, name: 'Bath only', services: ['bath'] }));
  const ids = async (q: string) =>
    (await t.request('GET', `/v1/grooming/packages?${q}`, { token: reader.accessToken })).body.data.map((p: { id: string }) => p.id);
  const atLocation = await ids(`locationId=${location.id}&limit=100`);
  a.true(atLocation.includes(created.body.id) && atLocation.includes(active.body.id));
  a.deepEqual(
    (await ids(`locationId=${location.id}&active=true&limit=100`)).filter((id: string) => id === created.body.id),
    [],
  );
  a.true((await ids(`locationId=${location.id}&active=false&limit=100`)).includes(created.body.id));
  a.is((await t.request('GET', '/v1/grooming/packages/pkg_missing', { token: reader.accessToken })).status, 404);
});

test('Idempotency-Key: a replay answers the first package', async (a) => {
  const location = await createLocation(t);
  const first = await post(packageBody({ locationId: location.id }), desk.accessToken, 'pkg-key-1');
  const again = await post(packageBody({ locationId: location.id }), desk.accessToken, 'pkg-key-1');
  a.is(again.status, 201);
  a.is(again.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(again.body, first.body);
  const list = await t.request('GET', `/v1/grooming/packages?locationId=${location.id}&limit=100`, { token: admin });
  a.is(list.body.data.filter((p: { locationId: string | null }) => p.locationId === location.id).length, 1);
});
