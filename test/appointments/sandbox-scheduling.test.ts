import test from 'ava';
import { TestClock, useTestApp } from '../helpers/test-app.js';

/** The sandbox ships demo providers with working hours, so availability and booking work at once; a reset restores them. */
let sandbox: string;

const t = useTestApp(test, { clock: new TestClock(Date.parse('2026-11-23T08:00:00.000Z')) });
test.before(async () => {
  sandbox = await t.adminToken('sandbox');
});

test.serial('demo providers show slots at the demo locations', async (a) => {
  const res = await t.request('GET', '/v1/appointments/availability?locationId=loc_demo_downtown&type=vet_consultation&from=2026-11-23&to=2026-11-23', {
    token: sandbox,
  });
  a.is(res.status, 200, res.text);
  const providers = new Set(res.body.data.map((s: { providerId: string }) => s.providerId));
  a.deepEqual([...providers].sort(), ['prv_demo_chen', 'prv_demo_okafor']);
  // Dr. Chen: 09:00–12:30 and 13:30–17:00 New York time (UTC−5 in November).
  a.true(res.body.data.some((s: { providerId: string; startsAt: string }) => s.providerId === 'prv_demo_chen' && s.startsAt === '2026-11-23T14:00:00.000Z'));
  const grooming = await t.request('GET', '/v1/appointments/availability?locationId=loc_demo_riverside&type=grooming&from=2026-11-24&to=2026-11-24', {
    token: sandbox,
  });
  a.deepEqual([...new Set(grooming.body.data.map((s: { providerId: string }) => s.providerId))], ['prv_demo_rosa']);
  const schedules = await t.request('GET', '/v1/appointments/schedules?providerId=prv_demo_okafor', { token: sandbox });
  a.is(schedules.body.data.length, 2);
  // Live has none of it.
  const live = await t.request('GET', '/v1/providers/prv_demo_chen', { token: await t.adminToken('live') });
  a.is(live.status, 404);
});

test.serial('a reset removes sandbox bookings, providers and custom types and restores the demo set', async (a) => {
  const booked = await t.request('POST', '/v1/appointments', {
    token: sandbox,
    body: { petId: 'pet_demo_luna', providerId: 'prv_demo_okafor', type: 'checkup', startsAt: '2026-11-25T15:00:00Z' },
  });
  a.is(booked.status, 201, booked.text);
  await t.request('POST', '/v1/providers', { token: sandbox, body: { name: 'Temp', kind: 'sitter', locationIds: ['loc_demo_downtown'] } });
  await t.request('POST', '/v1/appointment-types', { token: sandbox, body: { code: 'temp_type', name: 'Temp', durationMinutes: 10 } });
  await t.request('PATCH', '/v1/appointment-types/checkup', { token: sandbox, body: { durationMinutes: 45 } });
  const reset = await t.request('POST', '/v1/sandbox/reset', { token: sandbox });
  a.is(reset.status, 200, reset.text);
  a.is((await t.request('GET', `/v1/appointments/${booked.body.id}`, { token: sandbox })).status, 404);
  const providers = await t.request('GET', '/v1/providers', { token: sandbox });
  a.deepEqual(providers.body.data.map((p: { id: string }) => p.id).sort(), [
    'prv_demo_barkley',
    'prv_demo_chen',
    'prv_demo_kim',
    'prv_demo_nair',
    'prv_demo_okafor',
    'prv_demo_rosa',
    'prv_demo_sitwell',
    'prv_demo_trails',
    'prv_demo_walsh',
  ]);
  const types = await t.request('GET', '/v1/appointment-types?includeInactive=true', { token: sandbox });
  const codes = types.body.data.map((x: { code: string }) => x.code);
  a.false(codes.includes('temp_type'));
  a.is(types.body.data.find((x: { code: string }) => x.code === 'checkup').durationMinutes, 30);
  const again = await t.request('POST', '/v1/appointments', {
    token: sandbox,
    body: { petId: 'pet_demo_luna', providerId: 'prv_demo_okafor', type: 'checkup', startsAt: '2026-11-25T15:00:00Z' },
  });
  a.is(again.status, 201);
});
