import test from 'ava';
import { createLocation } from '../helpers/factories.js';
import { TestClock, type TokenSet, useTestApp } from '../helpers/test-app.js';
import { createProvider, weekdays } from './scheduling-support.js';

/** PUT/GET provider schedules: weekly windows in the location's zone, time off, validation, scoping. */
let admin: string;
let desk: TokenSet; // staff, bookings
let reader: TokenSet; // staff, bookings.read
let doctor: TokenSet; // doctor, bookings

const t = useTestApp(test, { clock: new TestClock(Date.parse('2026-11-23T08:00:00Z')) });
test.before(async () => {
  admin = await t.adminToken();
  [desk, reader, doctor] = await Promise.all([
    t.client({ name: 'desk', role: 'staff', scopes: ['bookings'] }),
    t.client({ name: 'reader', role: 'staff', scopes: ['bookings.read'] }),
    t.client({ name: 'doctor', role: 'doctor', scopes: ['bookings'] }),
  ]);
});

const put = (providerId: string, body: unknown, token = desk.accessToken) => t.request('PUT', `/v1/appointments/schedules/${providerId}`, { token, body });

test('PUT stores the weekly pattern (sorted) and time off (dates read in the location zone, answered in UTC)', async (a) => {
  const location = await createLocation(t, { timezone: 'America/New_York' });
  const provider = await createProvider(t, { locationIds: [location.id] });
  const res = await put(provider.id, {
    locationId: location.id,
    weekly: [
      { weekday: 3, start: '13:00', end: '17:00' },
      { weekday: 3, start: '08:00', end: '12:00' },
      { weekday: 1, start: '09:00', end: '24:00' },
    ],
    timeOff: [
      { from: '2026-12-24', to: '2026-12-26', reason: 'Holidays' },
      { from: '2026-12-01T12:00', to: '2026-12-01T14:30:00-05:00' },
    ],
  });
  a.is(res.status, 200, res.text);
  a.regex(res.body.id, /^sch_[a-z0-9]{26}$/);
  a.deepEqual(res.body, {
    id: res.body.id,
    providerId: provider.id,
    locationId: location.id,
    timezone: 'America/New_York',
    weekly: [
      { weekday: 1, start: '09:00', end: '24:00' },
      { weekday: 3, start: '08:00', end: '12:00' },
      { weekday: 3, start: '13:00', end: '17:00' },
    ],
    timeOff: [
      { from: '2026-12-01T17:00:00.000Z', to: '2026-12-01T19:30:00.000Z', reason: null },
      // 24–26 December in New York: midnight EST of the 24th to midnight of the 27th.
      { from: '2026-12-24T05:00:00.000Z', to: '2026-12-27T05:00:00.000Z', reason: 'Holidays' },
    ],
    createdAt: res.body.createdAt,
    updatedAt: res.body.updatedAt,
  });
  // PUT replaces; the schedule keeps its id.
  const again = await put(provider.id, { locationId: location.id, weekly: weekdays([2], '10:00', '11:00') });
  a.is(again.status, 200);
  a.is(again.body.id, res.body.id);
  a.deepEqual(again.body.weekly, [{ weekday: 2, start: '10:00', end: '11:00' }]);
  a.deepEqual(again.body.timeOff, []);
  const listed = await t.request('GET', `/v1/appointments/schedules?providerId=${provider.id}`, { token: reader.accessToken });
  a.is(listed.status, 200);
  a.deepEqual(listed.body.data, [again.body]);
});

test('validation: HH:MM, start < end, overlapping windows, weekday range, from < to', async (a) => {
  const location = await createLocation(t);
  const provider = await createProvider(t, { locationIds: [location.id] });
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ weekly: [{ weekday: 1, start: '9:00', end: '17:00' }] }, 'weekly[0].start'],
    [{ weekly: [{ weekday: 1, start: '09:00', end: '25:00' }] }, 'weekly[0].end'],
    [{ weekly: [{ weekday: 1, start: '09:60', end: '17:00' }] }, 'weekly[0].start'],
    [{ weekly: [{ weekday: 0, start: '09:00', end: '17:00' }] }, 'weekly[0].weekday'],
    [{ weekly: [{ weekday: 8, start: '09:00', end: '17:00' }] }, 'weekly[0].weekday'],
    [{ weekly: [{ weekday: 1, start: '17:00', end: '09:00' }] }, 'weekly[0].end'],
    [{ weekly: [{ weekday: 1, start: '09:00', end: '09:00' }] }, 'weekly[0].end'],
    [{ weekly: [{ weekday: 1, start: '24:00', end: '24:00' }] }, 'weekly[0].start'],
    [
      {
        weekly: [
          { weekday: 1, start: '09:00', end: '13:00' },
          { weekday: 1, start: '12:00', end: '17:00' },
        ],
      },
      'weekly[1]',
    ],
    [
      {
        weekly: [
          { weekday: 1, start: '09:00', end: '17:00' },
          { weekday: 1, start: '10:00', end: '11:00' },
        ],
      },
      'weekly[1]',
    ],
    [{ weekly: [{ weekday: 1, start: '09:00', end: '17:00', note: 'x' }] }, 'weekly[0].note'],
    [{ timeOff: [{ from: '2026-12-02', to: '2026-12-01' }] }, 'timeOff[0].to'],
    [{ timeOff: [{ from: '2026-12-01T10:00Z', to: '2026-12-01T10:00Z' }] }, 'timeOff[0].to'],
    [{ timeOff: [{ from: '2026-02-30', to: '2026-03-01' }] }, 'timeOff[0].from'],
    [{ timeOff: [{ from: 'soon', to: '2026-03-01' }] }, 'timeOff[0].from'],
    [{ timeOff: [{ from: '2026-03-01', to: '2026-03-02', reason: 'x'.repeat(201) }] }, 'timeOff[0].reason'],
    [{ locationId: 'nowhere' }, 'locationId'],
  ];
  for (const [patch, field] of cases) {
    const res = await put(provider.id, { locationId: location.id, weekly: weekdays([1], '09:00', '17:00'), ...patch });
    a.is(res.status, 400, `${JSON.stringify(patch)}: ${res.text}`);
    a.true(
      (res.body.errors as Array<{ field: string }>).some((e) => e.field === field),
      `${JSON.stringify(patch)} → ${JSON.stringify(res.body.errors)}`,
    );
  }
  // Touching windows are fine.
  const touching = await put(provider.id, {
    locationId: location.id,
    weekly: [
      { weekday: 1, start: '09:00', end: '12:00' },
      { weekday: 1, start: '12:00', end: '17:00' },
    ],
  });
  a.is(touching.status, 200, touching.text);
});

test('the provider must work at the location; invisible or unknown ones are 400/404', async (a) => {
  const location = await createLocation(t);
  const elsewhere = await createLocation(t);
  const provider = await createProvider(t, { locationIds: [location.id] });
  const notThere = await put(provider.id, { locationId: elsewhere.id, weekly: [] });
  a.is(notThere.status, 400);
  a.is(notThere.body.errors[0].field, 'locationId');
  const missing = await put(provider.id, { locationId: 'loc_ghost', weekly: [] });
  a.is(missing.status, 400);
  a.is(missing.body.code, 'resource_missing');
  a.is((await put('prv_ghost', { locationId: location.id, weekly: [] })).status, 404);
});

test('auth and location scoping', async (a) => {
  const locA = await createLocation(t);
  const locB = await createLocation(t);
  const provider = await createProvider(t, { locationIds: [locA.id, locB.id] });
  const onlyB = await createProvider(t, { locationIds: [locB.id] });
  const body = { locationId: locB.id, weekly: weekdays([1], '09:00', '17:00') };
  a.is((await t.request('PUT', `/v1/appointments/schedules/${provider.id}`, { body })).status, 401);
  a.is((await put(provider.id, body, reader.accessToken)).body.code, 'insufficient_scope');
  a.is((await put(provider.id, body, doctor.accessToken)).body.code, 'forbidden_role');
  a.is((await put(provider.id, body)).status, 200);
  a.is((await put(onlyB.id, body)).status, 200);
  a.is((await put(provider.id, { ...body, locationId: locA.id }, admin)).status, 200);
  const scopedA = await t.client({ name: 'A', role: 'staff', scopes: ['bookings'], locationIds: [locA.id] });
  // B's schedule of a shared provider is not listed; a provider only at B is 404; naming B is resource_missing.
  const listed = await t.request('GET', `/v1/appointments/schedules?providerId=${provider.id}`, { token: scopedA.accessToken });
  a.deepEqual(
    listed.body.data.map((s: { locationId: string }) => s.locationId),
    [locA.id],
  );
  a.is((await put(onlyB.id, { ...body, locationId: locA.id }, scopedA.accessToken)).status, 404);
  a.is((await put(provider.id, body, scopedA.accessToken)).body.code, 'resource_missing');
  const byLocation = await t.request('GET', `/v1/appointments/schedules?locationId=${locB.id}`, { token: admin });
  a.deepEqual(byLocation.body.data.map((s: { providerId: string }) => s.providerId).sort(), [onlyB.id, provider.id].sort());
  a.is((await t.request('GET', '/v1/appointments/schedules?limit=0', { token: admin })).status, 400);
});

test('removing a location from a provider hides its schedule there', async (a) => {
  const locA = await createLocation(t);
  const locB = await createLocation(t);
  const provider = await createProvider(t, { locationIds: [locA.id, locB.id] });
  await put(provider.id, { locationId: locB.id, weekly: weekdays([1], '09:00', '17:00') });
  await t.request('PATCH', `/v1/providers/${provider.id}`, { token: admin, body: { locationIds: [locA.id] } });
  const listed = await t.request('GET', `/v1/appointments/schedules?providerId=${provider.id}`, { token: admin });
  a.deepEqual(listed.body.data, []);
});

test('idempotent PUT replays', async (a) => {
  const location = await createLocation(t);
  const provider = await createProvider(t, { locationIds: [location.id] });
  const body = { locationId: location.id, weekly: weekdays([1, 2], '08:00', '12:00') };
  const first = await t.request('PUT', `/v1/appointments/schedules/${provider.id}`, { token: desk.accessToken, body, idempotencyKey: `sch-${provider.id}` });
  const second = await t.request('PUT', `/v1/appointments/schedules/${provider.id}`, { token: desk.accessToken, body, idempotencyKey: `sch-${provider.id}` });
  a.is(first.status, 200);
  a.is(second.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(second.body, first.body);
});
