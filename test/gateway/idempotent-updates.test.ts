import test from 'ava';
import { book, createProvider, eventsWith } from '../appointments/scheduling-support.js';
import { createHousehold } from '../helpers/factories.js';
import { TestClock, useTestApp } from '../helpers/test-app.js';
import { createEndpoint, startReceiver, type Receiver } from '../webhooks/webhook-support.js';

/**
 * Idempotency-Key on the PATCH, DELETE and replay routes of the clinical and webhook modules
 * (their POSTs are covered in their own folders): the same key answers the first response,
 * marked replayed, and the write or its side effect happens once.
 */
let admin: string;
let receiver: Receiver;

const t = useTestApp(test, { clock: new TestClock(Date.parse('2026-11-23T08:00:00Z')), config: { webhookAllowHosts: ['127.0.0.1'], jobPollMs: 20 } });
test.before(async () => {
  admin = await t.adminToken();
  receiver = await startReceiver();
});
test.after.always(async () => {
  await receiver?.close();
});

async function twice(method: string, path: string, body: unknown, key: string) {
  const first = await t.request(method, path, { token: admin, body, idempotencyKey: key });
  const second = await t.request(method, path, { token: admin, body, idempotencyKey: key });
  return { first, second };
}

test.serial('PATCH /v1/providers/:id and PATCH /v1/appointment-types/:code replay', async (a) => {
  const { location } = await createHousehold(t);
  const provider = await createProvider(t, { locationIds: [location.id] });
  const p = await twice('PATCH', `/v1/providers/${provider.id}`, { name: 'Dr. Renamed' }, 'prv-patch-1');
  a.is(p.first.status, 200, p.first.text);
  a.is(p.second.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(p.second.body, p.first.body);

  const type = await twice('PATCH', '/v1/appointment-types/checkup', { durationMinutes: 40 }, 'type-patch-1');
  a.is(type.first.status, 200, type.first.text);
  a.is(type.second.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(type.second.body, type.first.body);
});

test.serial('PATCH /v1/appointments/:id: a replayed completion completes once and emits appointment.completed once', async (a) => {
  const { location, pet } = await createHousehold(t);
  const provider = await createProvider(t, { locationIds: [location.id] });
  const booked = await book(t, { petId: pet.id, providerId: provider.id, type: 'checkup', startsAt: '2026-11-23T10:00:00Z' });
  a.is(booked.status, 201, booked.text);
  for (const [status, key] of [
    ['checked_in', 'apt-in'],
    ['in_progress', 'apt-go'],
  ] as const) {
    a.is((await t.request('PATCH', `/v1/appointments/${booked.body.id}`, { token: admin, body: { status }, idempotencyKey: key })).status, 200);
  }
  const done = await twice('PATCH', `/v1/appointments/${booked.body.id}`, { status: 'completed' }, 'apt-done');
  a.is(done.first.status, 200, done.first.text);
  a.is(done.second.status, 200, 'not 409 invalid_state_transition: the first answer is replayed');
  a.is(done.second.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(done.second.body, done.first.body);
  a.is((await eventsWith(t, 'appointment.completed', 'appointmentId', booked.body.id)).length, 1);
});

test.serial('PATCH and DELETE /v1/webhook-endpoints/:id and the range replay answer once', async (a) => {
  const endpoint = await createEndpoint(t, { url: receiver.url, events: ['pet.registered'] }, admin);
  const patched = await twice('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, { description: 'front desk' }, 'whe-patch-1');
  a.is(patched.first.status, 200, patched.first.text);
  a.is(patched.second.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(patched.second.body, patched.first.body);

  t.clock.advance(60_000); // past the pets the other tests registered
  const from = new Date(t.clock.now()).toISOString();
  await createHousehold(t); // one pet.registered
  t.clock.advance(1000);
  const to = new Date(t.clock.now()).toISOString();
  const replayed = await twice('POST', `/v1/webhook-endpoints/${endpoint.id}/replay`, { from, to }, 'whe-range-1');
  a.is(replayed.first.status, 202, replayed.first.text);
  a.is(replayed.first.body.queued, 1);
  a.is(replayed.second.headers.get('idempotent-replayed'), 'true');
  const replays = await t.stores
    .get('live')
    .db.selectFrom('webhook_deliveries')
    .select('id')
    .where('endpoint_id', '=', endpoint.id)
    .where('kind', '=', 'replay')
    .execute();
  a.is(replays.length, 1, 'one replay delivery, not two');

  const deleted = await twice('DELETE', `/v1/webhook-endpoints/${endpoint.id}`, undefined, 'whe-delete-1');
  a.is(deleted.first.status, 200, deleted.first.text);
  a.is(deleted.second.status, 200, 'not 404: the first answer is replayed');
  a.is(deleted.second.headers.get('idempotent-replayed'), 'true');
});
