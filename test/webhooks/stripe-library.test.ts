import test from 'ava';
import Stripe from 'stripe';
import { createHousehold, createPet } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { createEndpoint, startReceiver, type Receiver } from './webhook-support.js';

/**
 * The bar: "a subscriber built for a Stripe-style signature must verify ours unchanged".
 * Here the subscriber is Stripe's own Node library (webhooks.constructEvent), given our header
 * value, the raw body and the whsec_ secret, with its default 300 s tolerance.
 */
const stripe = new Stripe('sk_test_unused_no_network');
let r: Receiver;

// The signature's t= comes from the service clock; Stripe compares it with the real one.
const t = useTestApp(test, { config: { webhookAllowHosts: ['127.0.0.1'], jobPollMs: 20 } });
test.before(async () => {
  r = await startReceiver();
});
test.after.always(async () => {
  await r?.close();
});

test.serial("Stripe's library accepts our signature and parses the envelope", async (a) => {
  const endpoint = await createEndpoint(t, { url: r.url, events: ['pet.registered'] });
  const { location, parent } = await createHousehold(t);
  const pet = await createPet(t, parent.id, location.id);
  const deliveries = await r.waitFor(2);
  const got = deliveries.find((d) => d.body.data.petId === pet.id)!;

  const event = stripe.webhooks.constructEvent(got.rawBody, String(got.headers['x-service-signature']), endpoint.secret) as unknown as {
    id: string;
    type: string;
    data: { petId: string };
  };
  a.is(event.type, 'pet.registered');
  a.is(event.data.petId, pet.id);
  // The same header under its other name, and the library refusing a tampered body or another secret.
  a.notThrows(() => stripe.webhooks.constructEvent(got.rawBody, String(got.headers['service-signature']), endpoint.secret));
  a.throws(() => stripe.webhooks.constructEvent(got.rawBody.replace(pet.id, 'pet_forged'), String(got.headers['x-service-signature']), endpoint.secret));
  a.throws(() => stripe.webhooks.constructEvent(got.rawBody, String(got.headers['x-service-signature']), 'whsec_not_the_secret'));
  await t.request('DELETE', `/v1/webhook-endpoints/${endpoint.id}`, { token: await t.adminToken() });
});

test.serial("during a secret rotation Stripe's library accepts either secret", async (a) => {
  const endpoint = await createEndpoint(t, { url: r.url, events: ['pet.registered'] });
  const rotated = await t.request('POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, { token: await t.adminToken(), body: {} });
  a.is(rotated.status, 200);
  const before = r.received.length;
  const { location, parent } = await createHousehold(t);
  await createPet(t, parent.id, location.id);
  const [signed] = (await r.waitFor(before + 2)).slice(before);
  a.is(
    String(signed!.headers['x-service-signature'])
      .split(',')
      .filter((p) => p.startsWith('v1=')).length,
    2,
    'signed with both secrets',
  );
  a.notThrows(() => stripe.webhooks.constructEvent(signed!.rawBody, String(signed!.headers['x-service-signature']), endpoint.secret));
  a.notThrows(() => stripe.webhooks.constructEvent(signed!.rawBody, String(signed!.headers['x-service-signature']), rotated.body.secret));
});
