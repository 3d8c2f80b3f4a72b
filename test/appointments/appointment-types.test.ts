import test from 'ava';
import { type TokenSet, useTestApp } from '../helpers/test-app.js';
import { createLocation } from '../helpers/factories.js';

/** The appointment type catalogue: seeded per tenant, admin-managed, case-insensitive codes. */
let admin: string;
let desk: TokenSet; // staff, bookings
let scopedAdmin: TokenSet; // admin confined to one location

const t = useTestApp(test);
test.before(async () => {
  admin = await t.adminToken();
  const location = await createLocation(t);
  [desk, scopedAdmin] = await Promise.all([
    t.client({ name: 'desk', role: 'staff', scopes: ['bookings'] }),
    t.client({ name: 'local admin', role: 'admin', scopes: ['bookings'], locationIds: [location.id] }),
  ]);
});

test('every tenant starts with the six default types, in both environments', async (a) => {
  for (const env of ['live', 'sandbox'] as const) {
    const res = await t.request('GET', '/v1/appointment-types', { token: await t.adminToken(env) });
    a.is(res.status, 200);
    const byCode = Object.fromEntries((res.body.data as Array<{ code: string }>).map((x) => [x.code, x]));
    a.deepEqual(
      Object.keys(byCode)
        .filter((c) => ['vaccination', 'vet_consultation', 'checkup', 'dental', 'surgery', 'grooming'].includes(c))
        .sort(),
      ['checkup', 'dental', 'grooming', 'surgery', 'vaccination', 'vet_consultation'],
    );
    a.like(byCode.vet_consultation, { name: 'Vet consultation', durationMinutes: 30, bufferBeforeMinutes: 0, bufferAfterMinutes: 10, active: true });
    a.like(byCode.surgery, { durationMinutes: 120, bufferBeforeMinutes: 30, bufferAfterMinutes: 30 });
  }
});

test('GET /v1/appointment-types/:code is case-insensitive', async (a) => {
  const res = await t.request('GET', '/v1/appointment-types/VET_CONSULTATION', { token: desk.accessToken });
  a.is(res.status, 200);
  a.is(res.body.code, 'vet_consultation');
  a.is((await t.request('GET', '/v1/appointment-types/nope', { token: desk.accessToken })).status, 404);
});

test('admins add types (code stored lower-case); duplicates are 409; staff are 403', async (a) => {
  const created = await t.request('POST', '/v1/appointment-types', {
    token: admin,
    body: { code: 'Acupuncture', name: 'Acupuncture', durationMinutes: 45, bufferAfterMinutes: 15 },
  });
  a.is(created.status, 201, created.text);
  a.like(created.body, { code: 'acupuncture', durationMinutes: 45, bufferBeforeMinutes: 0, bufferAfterMinutes: 15, active: true });
  const dup = await t.request('POST', '/v1/appointment-types', { token: admin, body: { code: 'ACUPUNCTURE', name: 'Again', durationMinutes: 30 } });
  a.is(dup.status, 409);
  a.is(dup.body.code, 'conflict');
  const staff = await t.request('POST', '/v1/appointment-types', { token: desk.accessToken, body: { code: 'x_ray', name: 'X-ray', durationMinutes: 20 } });
  a.is(staff.status, 403);
  a.is(staff.body.code, 'forbidden_role');
  const local = await t.request('POST', '/v1/appointment-types', {
    token: scopedAdmin.accessToken,
    body: { code: 'x_ray', name: 'X-ray', durationMinutes: 20 },
  });
  a.is(local.status, 403);
  a.is((await t.request('POST', '/v1/appointment-types', { body: { code: 'x_ray', name: 'X-ray', durationMinutes: 20 } })).status, 401);
});

test('validation of new types', async (a) => {
  const base = { code: 'physio', name: 'Physiotherapy', durationMinutes: 40 };
  for (const [patch, field] of [
    [{ code: 'bad code' }, 'code'],
    [{ code: '1abc' }, 'code'],
    [{ durationMinutes: 0 }, 'durationMinutes'],
    [{ durationMinutes: 481 }, 'durationMinutes'],
    [{ durationMinutes: 12.5 }, 'durationMinutes'],
    [{ bufferBeforeMinutes: -1 }, 'bufferBeforeMinutes'],
    [{ bufferAfterMinutes: 121 }, 'bufferAfterMinutes'],
    [{ name: ' ' }, 'name'],
    [{ active: false }, 'active'],
  ] as const) {
    const res = await t.request('POST', '/v1/appointment-types', { token: admin, body: { ...base, ...patch } });
    a.is(res.status, 400, JSON.stringify(patch));
    a.is(res.body.errors[0].field, field);
  }
});

test('PATCH changes durations and deactivates; inactive types cannot be booked nor offered', async (a) => {
  await t.request('POST', '/v1/appointment-types', { token: admin, body: { code: 'laser', name: 'Laser therapy', durationMinutes: 20 } });
  const res = await t.request('PATCH', '/v1/appointment-types/LASER', { token: admin, body: { durationMinutes: 25, bufferBeforeMinutes: 5, active: false } });
  a.is(res.status, 200, res.text);
  a.like(res.body, { code: 'laser', durationMinutes: 25, bufferBeforeMinutes: 5, active: false });
  const list = await t.request('GET', '/v1/appointment-types', { token: desk.accessToken });
  a.false((list.body.data as Array<{ code: string }>).some((x) => x.code === 'laser'));
  const all = await t.request('GET', '/v1/appointment-types?includeInactive=true', { token: desk.accessToken });
  a.true((all.body.data as Array<{ code: string }>).some((x) => x.code === 'laser'));
  const location = await createLocation(t);
  const provider = await t.request('POST', '/v1/providers', {
    token: admin,
    body: { name: 'Laser vet', kind: 'vet', locationIds: [location.id], services: ['laser'] },
  });
  a.is(provider.status, 400);
  a.is(provider.body.errors[0].field, 'services[0]');
  a.is((await t.request('PATCH', '/v1/appointment-types/ghost', { token: admin, body: { name: 'Ghost' } })).status, 404);
  a.is((await t.request('PATCH', '/v1/appointment-types/laser', { token: admin, body: {} })).status, 400);
  a.is((await t.request('PATCH', '/v1/appointment-types/laser', { token: admin, body: { code: 'other' } })).status, 400);
});

test('idempotent type creation replays', async (a) => {
  const body = { code: 'hydrotherapy', name: 'Hydrotherapy', durationMinutes: 45 };
  const first = await t.request('POST', '/v1/appointment-types', { token: admin, body, idempotencyKey: 'type-hydro' });
  const second = await t.request('POST', '/v1/appointment-types', { token: admin, body, idempotencyKey: 'type-hydro' });
  a.is(first.status, 201);
  a.is(second.status, 201);
  a.is(second.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(second.body, first.body);
});
