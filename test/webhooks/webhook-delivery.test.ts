import test from 'ava';
import { emit } from '../../src/modules/events/emit.js';
import { canonicalEventTypes, type EventData, type EventType } from '../../src/modules/events/event-types.js';
import { createHousehold, createPet } from '../helpers/factories.js';
import { adminCredentials, useTestApp } from '../helpers/test-app.js';
import {
  attemptsOf,
  createEndpoint,
  deliveryCounts,
  deliveryPass,
  nowSeconds,
  startReceiver,
  v1Count,
  verifyStripeStyle,
  waitForAttempts,
  type Receiver,
} from './webhook-support.js';

/** Deliveries to real HTTP receivers on 127.0.0.1: signatures, retries, timeouts, aliases, test events, rotation, replay. */
const receivers: Receiver[] = [];

/** Room for any receiver here to answer on a loaded machine; the "hang" receiver never does. */
const webhookTimeoutMs = 2_000;

const t = useTestApp(test, {
  config: { webhookAllowHosts: ['127.0.0.1'], jobPollMs: 20, webhookRetrySchedule: [1, 1], webhookTimeoutMs },
});
test.after.always(async () => {
  for (const r of receivers) await r.close();
});

async function receiver(...args: Parameters<typeof startReceiver>) {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
}

/** A token minted now (tests below move the clock past the cached admin token's expiry). */
async function admin(): Promise<string> {
  const res = await t.token(adminCredentials.live.clientId, adminCredentials.live.clientSecret);
  return res.body.access_token as string;
}

/** Ends a test's endpoint so its subscriptions do not see the next test's events. */
async function retire(endpointId: string) {
  await t.request('DELETE', `/v1/webhook-endpoints/${endpointId}`, { token: await admin() });
}

const liveDb = () => t.stores.get('live').db;

test.serial('a new event reaches a healthy endpoint, signed Stripe-style', async (a) => {
  const r = await receiver();
  const endpoint = await createEndpoint(t, { url: r.url, events: ['pet.registered'] });
  const { location, parent } = await createHousehold(t); // its pet.registered predates nothing: the endpoint exists
  await r.waitFor(1);
  r.received.length = 0;
  const pet = await createPet(t, parent.id, location.id);
  const [got] = await r.waitFor(1);

  a.is(got!.method, 'POST');
  a.is(got!.path, '/hooks');
  a.is(got!.headers['content-type'], 'application/json');
  a.regex(String(got!.headers['user-agent']), /^PetCare-Webhooks\/\d+\.\d+\.\d+/);
  a.is(got!.headers['x-service-signature'], got!.headers['service-signature']);
  a.is(got!.headers['x-service-event-id'], got!.body.id);
  a.is(got!.headers['x-service-event-type'], 'pet.registered');
  a.is(got!.headers['x-service-delivery-attempt'], '1');
  a.is(got!.headers['x-service-delivery-kind'], 'event');
  a.regex(String(got!.headers['x-service-delivery-id']), /^whd_/);
  a.regex(String(got!.headers['x-service-signature']), /^t=\d+,v1=[0-9a-f]{64}$/);

  // The subscriber's own verifier accepts it; a wrong secret or a changed byte does not.
  const header = String(got!.headers['x-service-signature']);
  a.true(verifyStripeStyle(header, got!.rawBody, endpoint.secret, nowSeconds(t)));
  a.false(verifyStripeStyle(header, got!.rawBody, 'whsec_wrong', nowSeconds(t)));
  a.false(verifyStripeStyle(header, got!.rawBody.replace('"pet.registered"', '"pet.registeree"'), endpoint.secret, nowSeconds(t)));
  a.false(verifyStripeStyle(header, got!.rawBody, endpoint.secret, nowSeconds(t) + 3600), 'outside the tolerance');

  // The envelope exactly: {id, type, createdAt, data}, the same as the events API.
  a.deepEqual(Object.keys(got!.body), ['id', 'type', 'createdAt', 'data']);
  a.like(got!.body, { type: 'pet.registered', data: { petId: pet.id, ownerId: parent.id, locationId: location.id } });
  const event = await t.request('GET', `/v1/events/${got!.body.id}`, { token: await admin() });
  a.deepEqual(event.body, got!.body);

  const [attempt] = await waitForAttempts(t, endpoint.id, 2).then((all) => all.filter((x) => x.eventId === got!.body.id));
  a.like(attempt, {
    eventId: got!.body.id,
    type: 'pet.registered',
    kind: 'event',
    attempt: 1,
    status: 'succeeded',
    deliveryStatus: 'succeeded',
    responseStatus: 200,
    responseBody: 'ok',
    error: null,
    nextRetryAt: null,
    url: r.url,
  });
  a.is(typeof attempt.latencyMs, 'number');
  await retire(endpoint.id);
});

test.serial('a failed attempt is retried after the schedule delay: 500, then 200', async (a) => {
  const r = await receiver((n) => (n === 0 ? { status: 500, body: 'boom' } : { status: 204 }));
  const endpoint = await createEndpoint(t, { url: r.url, events: ['pet.registered'] });
  const { pet } = await createHousehold(t);
  await r.waitFor(1);
  const [first] = await waitForAttempts(t, endpoint.id, 1);
  a.like(first, { attempt: 1, status: 'failed', deliveryStatus: 'pending', responseStatus: 500, responseBody: 'boom', error: 'HTTP 500' });
  const delay = Date.parse(first.nextRetryAt) - t.clock.now();
  a.true(delay >= 900 && delay <= 1100, `retry in ${delay} ms (1 s ± 10 %)`);
  await deliveryPass(t);
  a.is((await deliveryCounts(t, endpoint.id)).attempts, 1, 'nothing is sent before the retry is due');

  t.clock.advance(1200);
  const [, second] = await r.waitFor(2);
  a.is(second!.body.id, r.received[0]!.body.id);
  a.is(second!.body.data.petId, pet.id);
  a.is(second!.headers['x-service-delivery-attempt'], '2');
  a.is(second!.headers['x-service-delivery-id'], r.received[0]!.headers['x-service-delivery-id']);
  a.true(verifyStripeStyle(String(second!.headers['x-service-signature']), second!.rawBody, endpoint.secret, nowSeconds(t)));
  const attempts = await waitForAttempts(t, endpoint.id, 2);
  a.deepEqual(
    attempts.map((x) => [x.attempt, x.status, x.responseStatus]),
    [
      [1, 'failed', 500],
      [2, 'succeeded', 204],
    ],
  );
  a.is(attempts[1].deliveryStatus, 'succeeded');
  await retire(endpoint.id);
});

test.serial('after the schedule is exhausted the delivery is failed; a replay sends it again as a new delivery', async (a) => {
  const r = await receiver(() => ({ status: 503 }));
  const endpoint = await createEndpoint(t, { url: r.url, events: ['pet.registered'] });
  await createHousehold(t);
  await r.waitFor(1);
  await waitForAttempts(t, endpoint.id, 1);
  t.clock.advance(1200);
  await r.waitFor(2);
  await waitForAttempts(t, endpoint.id, 2);
  t.clock.advance(1200);
  await r.waitFor(3);
  const attempts = await waitForAttempts(t, endpoint.id, 3);
  a.deepEqual(
    attempts.map((x) => [x.attempt, x.status]),
    [
      [1, 'failed'],
      [2, 'failed'],
      [3, 'failed'],
    ],
  );
  a.truthy(attempts[0].nextRetryAt);
  a.truthy(attempts[1].nextRetryAt);
  a.is(attempts[2].nextRetryAt, null, 'the last attempt of the schedule has no successor');
  a.true(attempts.every((x) => x.deliveryStatus === 'failed'));
  t.clock.advance(60_000);
  await deliveryPass(t);
  a.is((await deliveryCounts(t, endpoint.id)).attempts, 3, 'a failed delivery is not retried again');

  // Replay: a new delivery of the same event, freshly signed.
  r.behaviour = () => ({ status: 200 });
  const eventId = attempts[0].eventId as string;
  const replay = await t.request('POST', `/v1/events/${eventId}/replay`, { token: await admin(), body: { endpointId: endpoint.id } });
  a.is(replay.status, 202, replay.text);
  a.is(replay.body.eventId, eventId);
  a.is(replay.body.queued.length, 1);
  a.like(replay.body.queued[0], { endpointId: endpoint.id, type: 'pet.registered' });
  const [, , , again] = await r.waitFor(4);
  a.is(again!.body.id, eventId);
  a.is(again!.headers['x-service-delivery-kind'], 'replay');
  a.is(again!.headers['x-service-delivery-attempt'], '1');
  a.is(again!.headers['x-service-delivery-id'], replay.body.queued[0].deliveryId);
  a.true(verifyStripeStyle(String(again!.headers['x-service-signature']), again!.rawBody, endpoint.secret, nowSeconds(t)));
  const all = await waitForAttempts(t, endpoint.id, 4);
  a.like(all[3], { kind: 'replay', status: 'succeeded', deliveryId: replay.body.queued[0].deliveryId });
  const filtered = await attemptsOf(t, endpoint.id, `&deliveryId=${replay.body.queued[0].deliveryId}`);
  a.is(filtered.length, 1);
  a.is((await attemptsOf(t, endpoint.id, '&status=failed')).length, 3);
  await retire(endpoint.id);
});

test.serial('a receiver that does not answer in time fails the attempt (timeout)', async (a) => {
  const r = await receiver(() => 'hang');
  const endpoint = await createEndpoint(t, { url: r.url, events: ['pet.registered'] });
  await createHousehold(t);
  const [attempt] = await waitForAttempts(t, endpoint.id, 1);
  a.is(attempt.status, 'failed');
  a.regex(attempt.error, /^timeout/);
  a.is(attempt.responseStatus, null);
  a.true(attempt.latencyMs >= webhookTimeoutMs - 50, `latency ${attempt.latencyMs}`); // not before the deadline
  await retire(endpoint.id);
});

test.serial('redirects are not followed; a large answer is read at most 64 KiB', async (a) => {
  const target = await receiver();
  const redirecting = await receiver(() => ({ status: 302, headers: { location: target.url } }));
  const endpoint = await createEndpoint(t, { url: redirecting.url, events: ['pet.registered'] });
  await createHousehold(t);
  const [attempt] = await waitForAttempts(t, endpoint.id, 1);
  a.is(attempt.status, 'failed');
  a.is(attempt.responseStatus, 302);
  a.regex(attempt.error, /redirect not followed/);
  // The attempt is over: a followed redirect would have reached the target within it.
  a.is(target.received.length, 0);
  await retire(endpoint.id);

  const big = await receiver(() => ({ status: 200, body: Buffer.alloc(1024 * 1024, 'a') }));
  const bigEndpoint = await createEndpoint(t, { url: big.url, events: ['pet.registered'] });
  await createHousehold(t);
  const [ok] = await waitForAttempts(t, bigEndpoint.id, 1);
  a.is(ok.status, 'succeeded');
  a.true(ok.responseBody.length <= 1024);
  await retire(bigEndpoint.id);
});

// Typed by the catalogue: a sample that does not match its type's data schema does not compile.
const samples: { [T in EventType]: EventData<T> } = {
  'pet.registered': { petId: 'pet_x', ownerId: 'usr_x', locationId: 'loc_x', name: 'Rex', species: 'dog' },
  'appointment.created': {
    appointmentId: 'apt_x',
    petId: 'pet_x',
    providerId: 'prv_x',
    locationId: 'loc_x',
    type: 'vaccination',
    status: 'confirmed',
    startsAt: '2026-12-01T10:00:00.000Z',
    endsAt: '2026-12-01T10:30:00.000Z',
  },
  'appointment.completed': {
    appointmentId: 'apt_x',
    petId: 'pet_x',
    providerId: 'prv_x',
    locationId: 'loc_x',
    type: 'vaccination',
    status: 'completed',
    startsAt: '2026-12-01T10:00:00.000Z',
    endsAt: '2026-12-01T10:30:00.000Z',
    completedAt: '2026-12-01T10:31:00.000Z',
  },
  'pet.vaccination_due': { petId: 'pet_x', vaccine: 'Rabies', dueOn: '2026-12-20' },
  'boarding.checked_in': { bookingId: 'bkg_x', petId: 'pet_x' },
  'boarding.checked_out': { bookingId: 'bkg_x', petId: 'pet_x' },
  'payment.completed': { paymentId: 'pay_x', amount: 4500, currency: 'USD' },
  'provider.onboarded': { providerId: 'prv_x', name: 'Dr. Vet', kind: 'vet', status: 'active', locationIds: [] },
  'provider.approved': { providerId: 'prv_x' },
  'booking.created': { bookingId: 'bkg_x', petId: 'pet_x', service: 'boarding', amount: 9000, currency: 'USD' },
  'booking.cancelled': { bookingId: 'bkg_x', petId: 'pet_x', service: 'boarding' },
  'marketplace.booking_created': { bookingId: 'bkg_x', providerId: 'prv_x', petId: 'pet_x', service: 'walking', amount: 2000, currency: 'USD' },
  'invoice.finalized': { invoiceId: 'inv_x', number: 'DT-000001', parentId: 'usr_x', locationId: 'loc_x', total: 1000, amountDue: 1000, currency: 'USD' },
  'invoice.paid': { invoiceId: 'inv_x', number: 'DT-000001', parentId: 'usr_x', locationId: 'loc_x', total: 1000, amountDue: 0, currency: 'USD' },
  'refund.created': { refundId: 'ref_x', paymentId: 'pay_x', invoiceId: null, amount: 500, currency: 'USD' },
  'subscription.created': { subscriptionId: 'sub_x', parentId: 'usr_x', status: 'active', latestInvoiceId: null },
  'subscription.past_due': { subscriptionId: 'sub_x', parentId: 'usr_x', status: 'past_due', latestInvoiceId: 'inv_x' },
  'subscription.canceled': { subscriptionId: 'sub_x', parentId: 'usr_x', status: 'canceled', latestInvoiceId: 'inv_x' },
  'boarding.dose_overdue': {
    carePlanId: 'cpl_x',
    bookingId: 'bkg_x',
    petId: 'pet_x',
    locationId: 'loc_x',
    medication: 'Apoquel',
    scheduledFor: '2026-12-01T08:00:00.000Z',
  },
  'order.created': {
    orderId: 'ord_x',
    parentId: 'usr_x',
    petId: 'pet_x',
    locationId: 'loc_x',
    status: 'pending_payment',
    total: 2000,
    amountRefunded: 0,
    currency: 'USD',
    invoiceId: 'inv_x',
  },
  'order.paid': {
    orderId: 'ord_x',
    parentId: 'usr_x',
    petId: 'pet_x',
    locationId: 'loc_x',
    status: 'paid',
    total: 2000,
    amountRefunded: 0,
    currency: 'USD',
    invoiceId: 'inv_x',
  },
  'order.cancelled': {
    orderId: 'ord_x',
    parentId: 'usr_x',
    petId: 'pet_x',
    locationId: 'loc_x',
    status: 'cancelled',
    total: 2000,
    amountRefunded: 0,
    currency: 'USD',
    invoiceId: 'inv_x',
  },
  'order.refunded': {
    orderId: 'ord_x',
    parentId: 'usr_x',
    petId: 'pet_x',
    locationId: 'loc_x',
    status: 'refunded',
    total: 2000,
    amountRefunded: 2000,
    currency: 'USD',
    invoiceId: 'inv_x',
    refundIds: ['ref_x'],
    amount: 2000,
  },
  'marketplace.booking_completed': { bookingId: 'bkg_x', orderId: 'ord_x', providerId: 'prv_x', petId: 'pet_x', completedAt: '2026-12-01T08:00:00.000Z' },
  'ai.recall_sent': { campaignId: 'rcl_x', locationId: null, dueThrough: '2026-12-31', recipients: 3, sent: 2, skipped: 1 },
};

test.serial('every catalogue type delivers; an alias subscription receives the alias name, "*" the canonical one, both: once, canonical', async (a) => {
  const all = await receiver();
  const alias = await receiver();
  const both = await receiver();
  const canonical = await receiver();
  const endpoints = [
    await createEndpoint(t, { url: all.url, events: ['*'] }),
    await createEndpoint(t, { url: alias.url, events: ['payment.succeeded', 'vaccination.due'] }),
    await createEndpoint(t, { url: both.url, events: ['vaccination.due', 'pet.vaccination_due', 'payment.succeeded', '*'] }),
    await createEndpoint(t, { url: canonical.url, events: ['payment.completed'] }),
  ];
  const emitted = new Map<string, string>();
  for (const type of canonicalEventTypes()) {
    const event = await emit(liveDb(), type, samples[type], t.tenantId, t.clock.now());
    emitted.set(event.id, type);
  }
  const got = await all.waitFor(canonicalEventTypes().length);
  a.deepEqual(got.map((g) => g.body.type).sort(), canonicalEventTypes().sort());
  for (const g of got) {
    a.is(emitted.get(g.body.id), g.body.type);
    a.deepEqual(g.body.data, samples[g.body.type as EventType]);
  }
  const aliased = await alias.waitFor(2);
  a.deepEqual(aliased.map((g) => g.body.type).sort(), ['payment.succeeded', 'vaccination.due']);
  a.deepEqual(aliased.map((g) => emitted.get(g.body.id)).sort(), ['payment.completed', 'pet.vaccination_due']);
  a.is(aliased.find((g) => g.body.type === 'payment.succeeded')!.headers['x-service-event-type'], 'payment.succeeded');
  const twice = await both.waitFor(canonicalEventTypes().length);
  a.deepEqual(twice.map((g) => g.body.type).sort(), canonicalEventTypes().sort(), 'once per event, under the canonical name');
  a.deepEqual(
    (await canonical.waitFor(1)).map((g) => g.body.type),
    ['payment.completed'],
  );
  await deliveryPass(t);
  const deliveries = await Promise.all(endpoints.slice(1).map(async (e) => (await deliveryCounts(t, e.id)).deliveries));
  a.deepEqual(deliveries, [2, canonicalEventTypes().length, 1], 'one delivery per event and endpoint');
  a.is(alias.received.length, 2);
  a.is(both.received.length, canonicalEventTypes().length);
  a.is(canonical.received.length, 1);
  for (const e of endpoints) await retire(e.id);
});

test.serial('the test event is signed, outside the catalogue, sent to a disabled endpoint too, and not retried', async (a) => {
  const r = await receiver(() => ({ status: 500 }));
  const endpoint = await createEndpoint(t, { url: r.url, events: ['pet.registered'] });
  await t.request('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, { token: await admin(), body: { enabled: false } });
  const res = await t.request('POST', `/v1/webhook-endpoints/${endpoint.id}/test`, { token: await admin() });
  a.is(res.status, 202, res.text);
  a.like(res.body, { endpointId: endpoint.id, type: 'webhook.test' });
  a.regex(res.body.eventId, /^evt_/);
  const [got] = await r.waitFor(1);
  a.is(got!.body.type, 'webhook.test');
  a.is(got!.body.id, res.body.eventId);
  a.is(got!.body.data.endpointId, endpoint.id);
  a.is(got!.headers['x-service-delivery-kind'], 'test');
  a.true(verifyStripeStyle(String(got!.headers['x-service-signature']), got!.rawBody, endpoint.secret, nowSeconds(t)));
  const [attempt] = await waitForAttempts(t, endpoint.id, 1);
  a.like(attempt, { kind: 'test', status: 'failed', deliveryStatus: 'failed', nextRetryAt: null, deliveryId: res.body.deliveryId });
  t.clock.advance(5000);
  await deliveryPass(t);
  a.is((await deliveryCounts(t, endpoint.id)).attempts, 1, 'not retried');
  a.is(r.received.length, 1);
  a.is((await t.request('GET', `/v1/events/${res.body.eventId}`, { token: await admin() })).status, 404, 'not part of the event stream');
  // Idempotent: a replayed test request sends nothing more.
  const k1 = await t.request('POST', `/v1/webhook-endpoints/${endpoint.id}/test`, { token: await admin(), idempotencyKey: 'test-once' });
  const k2 = await t.request('POST', `/v1/webhook-endpoints/${endpoint.id}/test`, { token: await admin(), idempotencyKey: 'test-once' });
  a.is(k2.headers.get('idempotent-replayed'), 'true');
  a.is(k2.body.deliveryId, k1.body.deliveryId);
  await r.waitFor(2);
  await deliveryPass(t);
  a.deepEqual(await deliveryCounts(t, endpoint.id), { deliveries: 2, attempts: 2 });
  a.is(r.received.length, 2);
  await retire(endpoint.id);
});

test.serial('a disabled endpoint gets nothing; enabled again it gets only newer events; deleted it gets nothing', async (a) => {
  const r = await receiver();
  const endpoint = await createEndpoint(t, { url: r.url, events: ['pet.registered'] });
  await t.request('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, { token: await admin(), body: { enabled: false } });
  const { location, parent } = await createHousehold(t);
  await deliveryPass(t);
  a.is((await deliveryCounts(t, endpoint.id)).deliveries, 0);
  a.is(r.received.length, 0);
  await t.request('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, { token: await admin(), body: { enabled: true } });
  const pet = await createPet(t, parent.id, location.id);
  const [got] = await r.waitFor(1);
  a.is(got!.body.data.petId, pet.id);
  await retire(endpoint.id);
  await createPet(t, parent.id, location.id);
  await deliveryPass(t);
  a.is((await deliveryCounts(t, endpoint.id)).deliveries, 1);
  a.is(r.received.length, 1);
});

test.serial('replay of a time range re-sends the endpoint’s events as new deliveries', async (a) => {
  const r = await receiver();
  const endpoint = await createEndpoint(t, { url: r.url, events: ['pet.registered'] });
  t.clock.advance(100); // earlier tests' events share the frozen clock's instant
  const from = new Date(t.clock.now()).toISOString();
  const { location, parent } = await createHousehold(t);
  await createPet(t, parent.id, location.id);
  t.clock.advance(10);
  const to = new Date(t.clock.now()).toISOString();
  t.clock.advance(10);
  await createPet(t, parent.id, location.id); // after `to`: not replayed
  const originals = await r.waitFor(3);
  await emit(liveDb(), 'payment.completed', samples['payment.completed'], t.tenantId, Date.parse(from)); // not subscribed: not replayed

  const res = await t.request('POST', `/v1/webhook-endpoints/${endpoint.id}/replay`, { token: await admin(), body: { from, to } });
  a.is(res.status, 202, res.text);
  a.like(res.body, { endpointId: endpoint.id, from, to, queued: 2, hasMore: false, nextFrom: null });
  const replayed = (await r.waitFor(5)).slice(3);
  a.deepEqual(
    replayed.map((g) => g.body.id).sort(),
    originals
      .slice(0, 2)
      .map((g) => g.body.id)
      .sort(),
  );
  a.true(replayed.every((g) => g.headers['x-service-delivery-kind'] === 'replay'));
  a.true(replayed.every((g) => verifyStripeStyle(String(g.headers['x-service-signature']), g.rawBody, endpoint.secret, nowSeconds(t))));
  await deliveryPass(t);
  a.is((await deliveryCounts(t, endpoint.id)).attempts, 5);
  a.is(r.received.length, 5);

  const backwards = await t.request('POST', `/v1/webhook-endpoints/${endpoint.id}/replay`, { token: await admin(), body: { from: to, to: from } });
  a.is(backwards.status, 400);
  a.is(backwards.body.errors[0].field, 'to');
  await t.request('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, { token: await admin(), body: { enabled: false } });
  const disabled = await t.request('POST', `/v1/webhook-endpoints/${endpoint.id}/replay`, { token: await admin(), body: { from, to } });
  a.is(disabled.status, 409);
  await retire(endpoint.id);
});

test.serial('replay of one event goes to every enabled endpoint subscribed to it, under each one’s name', async (a) => {
  const one = await receiver();
  const two = await receiver();
  const other = await receiver();
  const e1 = await createEndpoint(t, { url: one.url, events: ['vaccination.due'] });
  const e2 = await createEndpoint(t, { url: two.url, events: ['*'] });
  const e3 = await createEndpoint(t, { url: other.url, events: ['pet.registered'] });
  const event = await emit(liveDb(), 'pet.vaccination_due', samples['pet.vaccination_due'], t.tenantId, t.clock.now());
  await one.waitFor(1);
  await two.waitFor(1);
  const res = await t.request('POST', `/v1/events/${event.id}/replay`, { token: await admin(), body: {}, idempotencyKey: `replay-${event.id}` });
  a.is(res.status, 202, res.text);
  a.deepEqual(
    res.body.queued.map((q: { endpointId: string; type: string }) => [q.endpointId, q.type]).sort(),
    [
      [e1.id, 'vaccination.due'],
      [e2.id, 'pet.vaccination_due'],
    ].sort(),
  );
  const again = await t.request('POST', `/v1/events/${event.id}/replay`, { token: await admin(), body: {}, idempotencyKey: `replay-${event.id}` });
  a.is(again.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(again.body, res.body);
  const [, second] = await one.waitFor(2);
  a.is(second!.body.type, 'vaccination.due');
  a.is((await two.waitFor(2))[1]!.body.type, 'pet.vaccination_due');
  await deliveryPass(t);
  a.is((await deliveryCounts(t, e1.id)).deliveries, 2, 'the idempotent retry queued nothing more');
  a.is((await deliveryCounts(t, e3.id)).deliveries, 0);
  a.is(one.received.length, 2);
  a.is(other.received.length, 0);

  const notSubscribed = await t.request('POST', `/v1/events/${event.id}/replay`, { token: await admin(), body: { endpointId: e3.id } });
  a.is(notSubscribed.status, 409);
  const missing = await t.request('POST', `/v1/events/${event.id}/replay`, { token: await admin(), body: { endpointId: 'whe_nope' } });
  a.is(missing.status, 400);
  a.is(missing.body.code, 'resource_missing');
  a.is((await t.request('POST', '/v1/events/evt_nope/replay', { token: await admin(), body: {} })).status, 404);
  for (const e of [e1, e2, e3]) await retire(e.id);
});

test.serial('events of the sandbox go to sandbox endpoints only', async (a) => {
  const live = await receiver();
  const sandbox = await receiver();
  const liveEndpoint = await createEndpoint(t, { url: live.url, events: ['pet.registered'] }, await admin());
  const sandboxEndpoint = await createEndpoint(t, { url: sandbox.url, events: ['pet.registered'] }, await t.adminToken('sandbox'));
  const res = await t.request('POST', '/v1/pets', {
    token: await t.adminToken('sandbox'),
    body: { name: 'Sandy', breed: 'x', species: 'dog', ownerId: 'usr_demo_alex', locationId: 'loc_demo_downtown' },
  });
  a.is(res.status, 201, res.text);
  const [got] = await sandbox.waitFor(1);
  a.is(got!.body.data.petId, res.body.id);
  a.true(verifyStripeStyle(String(got!.headers['x-service-signature']), got!.rawBody, sandboxEndpoint.secret, nowSeconds(t)));
  await deliveryPass(t, 'sandbox');
  await deliveryPass(t, 'live');
  a.is((await deliveryCounts(t, liveEndpoint.id)).deliveries, 0);
  a.is(live.received.length, 0);
  await retire(liveEndpoint.id);
});

test.serial('deliveries of a deleted endpoint stop: a pending retry is cancelled', async (a) => {
  const r = await receiver(() => ({ status: 500 }));
  const endpoint = await createEndpoint(t, { url: r.url, events: ['pet.registered'] });
  await createHousehold(t);
  await waitForAttempts(t, endpoint.id, 1);
  await retire(endpoint.id);
  t.clock.advance(5000);
  await deliveryPass(t);
  a.is((await deliveryCounts(t, endpoint.id)).attempts, 1);
  a.is(r.received.length, 1);
  const deliveries = await liveDb().selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpoint.id).execute();
  a.deepEqual(
    deliveries.map((d) => [d.status, d.last_error]),
    [['cancelled', 'endpoint deleted']],
  );
});

test.serial('a range replay queues at most 1000 events per call and says where to continue', async (a) => {
  const r = await receiver();
  const endpoint = await createEndpoint(t, { url: r.url, events: ['booking.cancelled'] }, await admin());
  t.clock.advance(1000);
  const from = new Date(t.clock.now()).toISOString();
  const ids: string[] = [];
  for (let i = 0; i < 1001; i++) {
    ids.push((await emit(liveDb(), 'booking.cancelled', samples['booking.cancelled'], t.tenantId, t.clock.now())).id);
    t.clock.advance(1);
  }
  const to = new Date(t.clock.now()).toISOString();
  await r.waitFor(1001, 20_000);
  const first = await t.request('POST', `/v1/webhook-endpoints/${endpoint.id}/replay`, { token: await admin(), body: { from, to } });
  a.is(first.status, 202, first.text);
  a.like(first.body, { queued: 1000, hasMore: true, firstEventId: ids[0], lastEventId: ids[999] });
  a.is(first.body.nextFrom, new Date(Date.parse(from) + 1000).toISOString());
  const rest = await t.request('POST', `/v1/webhook-endpoints/${endpoint.id}/replay`, { token: await admin(), body: { from: first.body.nextFrom, to } });
  a.like(rest.body, { queued: 1, hasMore: false, nextFrom: null, firstEventId: ids[1000], lastEventId: ids[1000] });
  const all = await r.waitFor(2002, 20_000);
  const replayed = all
    .slice(1001)
    .map((g) => g.body.id)
    .sort();
  a.deepEqual(replayed, [...ids].sort(), 'each event replayed exactly once');
  await retire(endpoint.id);
});

test.serial('a range replay whose first 1001 events share one instant takes that whole instant and moves on', async (a) => {
  const r = await receiver();
  const endpoint = await createEndpoint(t, { url: r.url, events: ['booking.created'] }, await admin());
  t.clock.advance(1000);
  const from = new Date(t.clock.now()).toISOString();
  const ids: string[] = [];
  for (let i = 0; i < 1001; i++) ids.push((await emit(liveDb(), 'booking.created', samples['booking.created'], t.tenantId, t.clock.now())).id);
  t.clock.advance(5);
  const later = (await emit(liveDb(), 'booking.created', samples['booking.created'], t.tenantId, t.clock.now())).id;
  t.clock.advance(1);
  const to = new Date(t.clock.now()).toISOString();
  await r.waitFor(1002, 20_000);
  const first = await t.request('POST', `/v1/webhook-endpoints/${endpoint.id}/replay`, { token: await admin(), body: { from, to } });
  a.is(first.status, 202, first.text);
  a.like(first.body, { queued: 1001, hasMore: true, nextFrom: new Date(Date.parse(from) + 1).toISOString() });
  const rest = await t.request('POST', `/v1/webhook-endpoints/${endpoint.id}/replay`, { token: await admin(), body: { from: first.body.nextFrom, to } });
  a.like(rest.body, { queued: 1, hasMore: false, nextFrom: null, firstEventId: later });
  await r.waitFor(2004, 20_000);
  await retire(endpoint.id);
});

test.serial('the webhook-delivery job is listed and can be run on demand', async (a) => {
  const r = await receiver();
  const endpoint = await createEndpoint(t, { url: r.url, events: ['provider.approved'] }, await admin());
  await emit(liveDb(), 'provider.approved', samples['provider.approved'], t.tenantId, t.clock.now());
  const run = await t.request('POST', '/v1/jobs/webhook-delivery/run', { token: await admin(), body: { wait: true } });
  a.is(run.status, 200, run.text);
  a.is(run.body.status, 'succeeded');
  await r.waitFor(1);
  const jobs = await t.request('GET', '/v1/jobs', { token: await admin() });
  const job = jobs.body.data.find((j: { name: string }) => j.name === 'webhook-delivery');
  a.truthy(job, jobs.text);
  await retire(endpoint.id);
});

test.serial('secret rotation: both signatures verify during the overlap, only the new one after it', async (a) => {
  const r = await receiver();
  const endpoint = await createEndpoint(t, { url: r.url, events: ['payment.succeeded'] });
  const rotated = await t.request('POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, { token: await admin() });
  const fresh = rotated.body.secret as string;
  await emit(liveDb(), 'payment.completed', samples['payment.completed'], t.tenantId, t.clock.now());
  const [during] = await r.waitFor(1);
  const header = String(during!.headers['x-service-signature']);
  a.is(v1Count(header), 2);
  a.true(verifyStripeStyle(header, during!.rawBody, endpoint.secret, nowSeconds(t)), 'the old secret verifies');
  a.true(verifyStripeStyle(header, during!.rawBody, fresh, nowSeconds(t)), 'the new secret verifies');
  a.true(header.split(',')[1]!.startsWith('v1='));

  t.clock.advance(24 * 3_600_000 + 1000);
  await emit(liveDb(), 'payment.completed', samples['payment.completed'], t.tenantId, t.clock.now());
  const [, after] = await r.waitFor(2);
  const later = String(after!.headers['x-service-signature']);
  a.is(v1Count(later), 1);
  a.true(verifyStripeStyle(later, after!.rawBody, fresh, nowSeconds(t)));
  a.false(verifyStripeStyle(later, after!.rawBody, endpoint.secret, nowSeconds(t)));
  await retire(endpoint.id);
});
