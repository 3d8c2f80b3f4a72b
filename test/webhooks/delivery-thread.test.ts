import test from 'ava';
import { availableParallelism } from 'node:os';
import type { DeliveryJob } from '../../src/modules/webhooks/delivery-job.js';
import { DeliveryThread, usesWorker } from '../../src/modules/webhooks/delivery-thread.js';
import type { SendOutcome } from '../../src/modules/webhooks/webhook-sender.js';
import { eventually } from '../helpers/eventually.js';
import { startReceiver, verifyStripeStyle } from './webhook-support.js';

/**
 * The delivery thread: jobs built on the API's thread are signed and sent by a worker (or inline
 * with one CPU) and every job's outcome comes back exactly once, whatever happens to the worker.
 */

const secret = 'whsec_deliverythreadtestsecret';
const options = { allowHosts: ['127.0.0.1'], allowPrivate: true };

/** A receiver on 127.0.0.1 (webhook-support's) that answers 204, or holds requests while `hold` is set. */
async function receiver() {
  const r = await startReceiver(() => (control.hold ? 'hang' : { status: 204 }));
  const control = {
    hold: false,
    url: r.url,
    bodies: () => r.received.map((x) => ({ headers: x.headers, body: x.rawBody })),
    close: () => r.close(),
  };
  return control;
}

let n = 0;
function job(url: string, overrides: Partial<DeliveryJob> = {}): DeliveryJob {
  n++;
  return {
    id: `wha_test${n}`,
    url,
    timeoutMs: 5000,
    userAgent: 'PetCare-Webhooks/test',
    deliveryId: `whd_test${n}`,
    attempt: 1,
    kind: 'event',
    eventId: `evt_test${n}`,
    eventType: 'pet.registered',
    payload: null,
    createdAt: '2026-11-26T08:00:00.000Z',
    data: JSON.stringify({ petId: `pet_${n}`, name: 'Ünïcode' }),
    secrets: [secret],
    signedAt: Date.now(),
    ...overrides,
  };
}

const send = (thread: DeliveryThread, j: DeliveryJob) => new Promise<SendOutcome>((resolve) => thread.send(j, resolve));

for (const mode of ['worker', 'inline'] as const) {
  test(`${mode}: jobs are built, signed and sent; each outcome comes back under its id`, async (t) => {
    const r = await receiver();
    const thread = new DeliveryThread(options, mode === 'worker');
    try {
      const jobs = Array.from({ length: 40 }, () => job(r.url));
      const outcomes = await Promise.all(jobs.map((j) => send(thread, j)));
      t.true(
        outcomes.every((o) => o.ok && o.status === 204),
        JSON.stringify(outcomes.find((o) => !o.ok)),
      );
      t.is(r.bodies().length, 40);
      const byEvent = new Map(r.bodies().map((b) => [String(b.headers['x-service-event-id']), b]));
      for (const j of jobs) {
        const got = byEvent.get(j.eventId)!;
        t.truthy(got, j.eventId);
        t.deepEqual(JSON.parse(got.body), { id: j.eventId, type: 'pet.registered', createdAt: j.createdAt, data: JSON.parse(j.data!) });
        t.true(verifyStripeStyle(String(got.headers['x-service-signature']), got.body, secret, Math.floor(j.signedAt / 1000)));
        t.is(got.headers['x-service-delivery-id'], j.deliveryId);
      }
      t.is(thread.inFlight, 0);
    } finally {
      await thread.close();
      await r.close();
    }
  });

  test(`${mode}: abortAll ends every attempt in flight as interrupted at once; a later send works`, async (t) => {
    const r = await receiver();
    r.hold = true;
    const thread = new DeliveryThread(options, mode === 'worker');
    try {
      const pending = [send(thread, job(r.url)), send(thread, job(r.url))];
      await eventually(() => r.bodies().length >= 2, { what: 'both requests at the receiver' });
      thread.abortAll();
      const outcomes = await Promise.all(pending);
      t.true(outcomes.every((o) => o.interrupted && !o.ok));
      t.is(thread.inFlight, 0);
      r.hold = false;
      const again = await send(thread, job(r.url));
      t.true(again.ok);
    } finally {
      await thread.close();
      await r.close();
    }
  });
}

test('worker: a worker that dies fails its attempts (retried on the schedule), and the next send starts a new one', async (t) => {
  const r = await receiver();
  r.hold = true;
  const thread = new DeliveryThread(options, true);
  try {
    const pending = send(thread, job(r.url));
    await eventually(() => r.bodies().length >= 1, { what: 'the request at the receiver' });
    // What a crash of the thread looks like from here: the worker exits.
    await (thread as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    const outcome = await pending;
    t.false(outcome.ok);
    t.false(outcome.interrupted);
    t.regex(outcome.error!, /delivery thread stopped/);
    r.hold = false;
    t.true((await send(thread, job(r.url))).ok);
  } finally {
    await thread.close();
    await r.close();
  }
});

test('a job whose URL the policy refuses fails on the thread without a connection', async (t) => {
  const r = await receiver();
  const thread = new DeliveryThread({ allowHosts: [], allowPrivate: true }, true);
  try {
    const outcome = await send(thread, job(r.url));
    t.false(outcome.ok);
    t.regex(outcome.error!, /refused by the outbound policy: 127\.0\.0\.1 is a loopback address/);
    t.is(r.bodies().length, 0);
  } finally {
    await thread.close();
    await r.close();
  }
});

test('auto uses a worker only where the process may run on two CPUs or more', (t) => {
  t.true(usesWorker('on'));
  t.false(usesWorker('off'));
  t.is(usesWorker('auto'), availableParallelism() >= 2);
});
