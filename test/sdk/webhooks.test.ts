import { createHmac } from 'node:crypto';
import test from 'ava';
import { PetCare, WebhookVerificationError, verifyWebhook } from '../../sdk/src/index.js';
import { createLocation, createPetParent } from '../helpers/factories.js';
import { adminCredentials, useTestApp } from '../helpers/test-app.js';
import { eventually } from '../helpers/eventually.js';
import { startReceiver, type Receiver } from '../webhooks/webhook-support.js';

/**
 * webhooks.verify against real signed deliveries: an endpoint on a receiver on 127.0.0.1, a pet
 * created through the SDK, and the raw body and X-Service-Signature header the receiver got.
 */
let r: Receiver;

// The signature's t= comes from the service clock, which this file never moves.
const t = useTestApp(test, { config: { webhookAllowHosts: ['127.0.0.1'], jobPollMs: 20 } });
test.before(async () => {
  r = await startReceiver();
});
test.after.always(async () => {
  await r?.close();
});

const sdk = () => new PetCare({ baseUrl: t.url, ...adminCredentials.live });

const deliveryOf = (receiver: Receiver, petId: string) =>
  eventually(() => receiver.received.find((d) => d.body.type === 'pet.registered' && d.body.data.petId === petId), {
    timeoutMs: 5000,
    what: () => `a pet.registered delivery for ${petId}`,
  });

test.serial('verifies a real delivery and returns the event; a tampered body, another secret or an old timestamp throw', async (a) => {
  const client = sdk();
  const endpoint = await client.webhookEndpoints.create({ url: r.url, events: ['pet.registered'] });
  a.regex(endpoint.secret, /^whsec_/);
  const location = await createLocation(t);
  const parent = await createPetParent(t, location.id);
  const pet = await client.pets.create({ name: 'Signed', breed: 'Spaniel', species: 'dog', ownerId: parent.id, locationId: location.id });
  const delivery = await deliveryOf(r, pet.id);
  const header = String(delivery.headers['x-service-signature']);

  const event = client.webhooks.verify(delivery.rawBody, header, endpoint.secret);
  a.is(event.type, 'pet.registered');
  a.is(event.data.petId, pet.id);
  a.regex(event.id, /^evt_/);
  // The standalone export is the same function; raw bytes work as well as a string.
  a.deepEqual(verifyWebhook(Buffer.from(delivery.rawBody, 'utf8'), header, endpoint.secret), event);
  // A header as node:http hands it over (string | string[] | undefined) is accepted as it is.
  a.deepEqual(verifyWebhook(delivery.rawBody, delivery.headers['x-service-signature'], endpoint.secret), event);

  const tampered = delivery.rawBody.replace(pet.id, 'pet_someoneelse00000');
  a.throws(() => client.webhooks.verify(tampered, header, endpoint.secret), { instanceOf: WebhookVerificationError });
  a.throws(() => verifyWebhook(delivery.rawBody, header, 'whsec_not-the-secret'), { instanceOf: WebhookVerificationError });
  a.throws(() => verifyWebhook(delivery.rawBody, undefined, endpoint.secret), { instanceOf: WebhookVerificationError });
  a.throws(() => verifyWebhook(delivery.rawBody, 't=123', endpoint.secret), { instanceOf: WebhookVerificationError });

  // The timestamp: 301 s later is too old by default; a wider tolerance accepts it.
  const signedAt = Number(/t=(\d+)/.exec(header)![1]) * 1000;
  const error = a.throws(() => verifyWebhook(delivery.rawBody, header, endpoint.secret, { now: signedAt + 301_000 }), { instanceOf: WebhookVerificationError });
  a.regex(error?.message ?? '', /timestamp/);
  a.notThrows(() => verifyWebhook(delivery.rawBody, header, endpoint.secret, { now: new Date(signedAt + 301_000), toleranceSeconds: 600 }));
});

test.serial('during a secret rotation the header has two v1: either secret verifies', async (a) => {
  // Its own receiver: the first test's endpoint gets this pet's event too.
  const own = await startReceiver();
  a.teardown(() => own.close());
  const client = sdk();
  const endpoint = await client.webhookEndpoints.create({ url: own.url, events: ['pet.registered'] });
  const rotated = await client.webhookEndpoints.rotateSecret(endpoint.id, { expiresInHours: 1 });
  a.not(rotated.secret, endpoint.secret);
  const location = await createLocation(t);
  const parent = await createPetParent(t, location.id);
  const pet = await client.pets.create({ name: 'Rotated', breed: 'Spaniel', species: 'dog', ownerId: parent.id, locationId: location.id });
  const got = await deliveryOf(own, pet.id);
  const header = String(got.headers['x-service-signature']);
  a.is(header.split(',').filter((p) => p.startsWith('v1=')).length, 2);
  a.is(verifyWebhook(got.rawBody, header, endpoint.secret).data.petId, pet.id, 'the old secret');
  a.is(verifyWebhook(got.rawBody, header, rotated.secret).data.petId, pet.id, 'the new secret');

  // A header signed by hand the same way verifies too (the scheme, not only the server's output).
  const ts = Math.floor(Date.now() / 1000);
  const body = JSON.stringify({ id: 'evt_x', type: 'pet.registered', createdAt: new Date().toISOString(), data: { petId: 'pet_x' } });
  const v1 = createHmac('sha256', 'whsec_handmade').update(`${ts}.${body}`).digest('hex');
  a.is(verifyWebhook(body, `t=${ts},v1=${'0'.repeat(64)},v1=${v1}`, 'whsec_handmade').id, 'evt_x');
});
