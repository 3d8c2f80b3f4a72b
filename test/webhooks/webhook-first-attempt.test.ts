import test from 'ava';
import type { Executor } from '../../src/db/database.js';
import { idFloor, newId } from '../../src/db/ids.js';
import { pruneFinished } from '../../src/modules/webhooks/deliveries.repository.js';
import { eventually } from '../helpers/eventually.js';
import { createHousehold, createPet } from '../helpers/factories.js';
import { TestClock, type TestApp } from '../helpers/test-app.js';
import { attemptsOf, createEndpoint, deliveryCounts, deliveryPass, restartHarness, waitForAttempts } from './webhook-support.js';

/**
 * A delivery's first attempt is written once, when it ends: a success is one row (its attempt), a
 * failure or an interruption writes the delivery's row with the attempt. While it is in flight it
 * lives in the dispatcher's memory only (listed from there), and the fan-out's recorded_seq stays
 * below its event, so a start after a killed process fans out again exactly the events whose
 * deliveries left nothing on disk. Each test runs its own app (its own data dir and endpoints).
 */
const { start, stop, receiver } = restartHarness();

const liveDb = (t: TestApp): Executor => t.stores.get('live').db;

async function cursors(t: TestApp): Promise<{ last_seq: number; recorded_seq: number }> {
  return liveDb(t).selectFrom('webhook_fanout').select(['last_seq', 'recorded_seq']).where('id', '=', 1).executeTakeFirstOrThrow();
}

async function seqOf(t: TestApp, eventId: string): Promise<number> {
  return (await liveDb(t).selectFrom('events').select('seq').where('id', '=', eventId).executeTakeFirstOrThrow()).seq;
}

const deliveryRows = (t: TestApp, endpointId: string) =>
  liveDb(t).selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId).orderBy('id').execute();
const attemptRows = (t: TestApp, endpointId: string) =>
  liveDb(t).selectFrom('webhook_attempts').selectAll().where('endpoint_id', '=', endpointId).orderBy('id').execute();

const header = (value: string | string[] | undefined): string => (Array.isArray(value) ? value.join(',') : (value ?? ''));

test.serial('a first attempt that succeeds is one row: its attempt, listed as a succeeded delivery', async (a) => {
  const r = await receiver();
  const t = await start();
  const endpoint = await createEndpoint(t, { url: r.url, events: ['pet.registered'] });
  await createHousehold(t);
  const [got] = await r.waitFor(1);
  const deliveryId = header(got!.headers['x-service-delivery-id']);
  a.regex(deliveryId, /^whd_/);
  a.is(header(got!.headers['x-service-delivery-attempt']), '1');

  const [listed] = await waitForAttempts(t, endpoint.id, 1);
  a.like(listed, { deliveryId, eventId: got!.body.id, attempt: 1, status: 'succeeded', deliveryStatus: 'succeeded', responseStatus: 200 });

  a.is((await deliveryRows(t, endpoint.id)).length, 0, 'no webhook_deliveries row');
  const attempts = await attemptRows(t, endpoint.id);
  a.is(attempts.length, 1);
  a.like(attempts[0], { id: listed.id, delivery_id: deliveryId, event_id: got!.body.id, attempt: 1, status: 'succeeded' });
  a.deepEqual(await deliveryCounts(t, endpoint.id), { deliveries: 1, attempts: 1 });

  // Nothing is in memory any more: the next pass moves recorded_seq up to the fan-out cursor.
  await deliveryPass(t);
  const { last_seq, recorded_seq } = await cursors(t);
  a.true(last_seq >= (await seqOf(t, got!.body.id)));
  a.is(recorded_seq, last_seq);
  a.is(r.received.length, 1);
  await stop(t);
});

test.serial('a first attempt that fails writes the delivery row with its attempt; the retry finishes that row', async (a) => {
  const r = await receiver((n) => (n === 0 ? { status: 500, body: 'not now' } : { status: 200, body: 'ok' }));
  const t = await start({ clock: new TestClock() });
  const endpoint = await createEndpoint(t, { url: r.url, events: ['pet.registered'] });
  await createHousehold(t);
  const [got] = await r.waitFor(1);
  const deliveryId = header(got!.headers['x-service-delivery-id']);

  const [failed] = await waitForAttempts(t, endpoint.id, 1);
  a.like(failed, { deliveryId, attempt: 1, status: 'failed', deliveryStatus: 'pending', responseStatus: 500 });
  a.truthy(failed.nextRetryAt);

  const deliveries = await deliveryRows(t, endpoint.id);
  a.is(deliveries.length, 1);
  a.like(deliveries[0], {
    id: deliveryId,
    event_id: got!.body.id,
    kind: 'event',
    status: 'pending',
    attempts: 1,
    failures: 1,
    attempt_id: failed.id,
    claimed_by: null,
    finished_at: null,
  });
  a.is(deliveries[0]!.next_attempt_at, failed.nextRetryAt);
  const attempts = await attemptRows(t, endpoint.id);
  a.is(attempts.length, 1);
  a.like(attempts[0], { id: failed.id, delivery_id: deliveryId, attempt: 1, status: 'failed', response_status: 500 });

  // The retry waits for its time: a pass now sends nothing.
  await deliveryPass(t);
  a.is(r.received.length, 1);
  a.deepEqual(await deliveryCounts(t, endpoint.id), { deliveries: 1, attempts: 1 });

  t.clock.advance(1200); // past 1 s + 10 % jitter
  const [, retry] = await r.waitFor(2);
  a.is(header(retry!.headers['x-service-delivery-attempt']), '2');
  a.is(header(retry!.headers['x-service-delivery-id']), deliveryId, 'the same delivery');
  a.is(retry!.body.id, got!.body.id);

  const listed = await eventually(
    async () => {
      const all = await attemptsOf(t, endpoint.id);
      return all.length === 2 && all[1].status === 'succeeded' ? all : undefined;
    },
    { what: 'attempt 2 recorded' },
  );
  a.deepEqual(
    listed.map((x) => [x.attempt, x.status, x.deliveryId, x.deliveryStatus]),
    [
      [1, 'failed', deliveryId, 'succeeded'],
      [2, 'succeeded', deliveryId, 'succeeded'],
    ],
  );
  const after = await deliveryRows(t, endpoint.id);
  a.is(after.length, 1);
  a.like(after[0], { id: deliveryId, status: 'succeeded', attempts: 2, failures: 1, next_attempt_at: null, claimed_by: null });
  a.truthy(after[0]!.finished_at);
  a.is((await attemptRows(t, endpoint.id)).length, 2);
  await stop(t);
});

test.serial(
  'a first attempt in flight is listed from memory, has no row, holds recorded_seq below its event; a clean stop records it interrupted',
  async (a) => {
    const r = await receiver((n) => (n === 0 ? 'hang' : { status: 200, body: 'ok' }));
    const t = await start();
    const endpoint = await createEndpoint(t, { url: r.url, events: ['pet.registered'] });
    await createHousehold(t);
    const [got] = await r.waitFor(1);
    const deliveryId = header(got!.headers['x-service-delivery-id']);
    const eventId = got!.body.id;
    // A pass while it hangs: recorded_seq is set again with the attempt still in memory.
    await deliveryPass(t);

    const listed = await attemptsOf(t, endpoint.id);
    a.is(listed.length, 1);
    a.like(listed[0], { deliveryId, eventId, attempt: 1, status: 'in_flight', deliveryStatus: 'sending', finishedAt: null, url: r.url });
    a.deepEqual(
      t.app.webhooks.firstAttemptsInFlight('live', endpoint.id).map((x) => x.id),
      [listed[0].id],
      "from the dispatcher's memory",
    );
    a.is((await deliveryRows(t, endpoint.id)).length, 0, 'no delivery row while in flight');
    a.is((await attemptRows(t, endpoint.id)).length, 0, 'no attempt row while in flight');

    const seq = await seqOf(t, eventId);
    const inFlightCursors = await cursors(t);
    a.true(inFlightCursors.recorded_seq < seq, `recorded_seq ${inFlightCursors.recorded_seq} < ${seq}`);
    a.true(inFlightCursors.last_seq >= seq, `last_seq ${inFlightCursors.last_seq} >= ${seq}`);

    const ids = (rows: any[]) => rows.map((x) => x.id);
    a.deepEqual(ids(await attemptsOf(t, endpoint.id, '&status=in_flight')), [listed[0].id]);
    a.deepEqual(ids(await attemptsOf(t, endpoint.id, `&eventId=${eventId}`)), [listed[0].id]);
    a.deepEqual(ids(await attemptsOf(t, endpoint.id, `&deliveryId=${deliveryId}`)), [listed[0].id]);
    a.deepEqual(ids(await attemptsOf(t, endpoint.id, '&status=succeeded')), []);
    // Another event or delivery id finds nothing: the filters apply to the attempts in memory too.
    a.deepEqual(ids(await attemptsOf(t, endpoint.id, `&eventId=${newId('evt')}`)), []);
    a.deepEqual(ids(await attemptsOf(t, endpoint.id, `&deliveryId=${newId('whd')}`)), []);

    // A clean stop cuts the request and records the attempt: interrupted, and the delivery's row pending.
    const at = t.clock.now();
    await stop(t);
    const reader = await start({ dataDir: t.dataDir, clock: new TestClock(at), jobs: false });
    const attempts = await attemptRows(reader, endpoint.id);
    a.is(attempts.length, 1);
    a.like(attempts[0], { id: listed[0].id, delivery_id: deliveryId, event_id: eventId, attempt: 1, status: 'interrupted' });
    a.regex(attempts[0]!.error ?? '', /interrupted/);
    const deliveries = await deliveryRows(reader, endpoint.id);
    a.is(deliveries.length, 1);
    a.like(deliveries[0], { id: deliveryId, event_id: eventId, status: 'pending', attempts: 1, failures: 0, claimed_by: null });
    a.truthy(deliveries[0]!.next_attempt_at);
    const stopped = await cursors(reader);
    a.is(stopped.recorded_seq, stopped.last_seq, 'recorded: the next start does not fan the event out again');
    await stop(reader);

    // The next start sends attempt 2 of that delivery, and nothing else.
    const next = await start({ dataDir: t.dataDir, clock: new TestClock(at) });
    const [, second] = await r.waitFor(2);
    a.is(header(second!.headers['x-service-delivery-attempt']), '2');
    a.is(header(second!.headers['x-service-delivery-id']), deliveryId);
    const final = await eventually(
      async () => {
        const all = await attemptsOf(next, endpoint.id);
        return all.length === 2 && all[1].status === 'succeeded' ? all : undefined;
      },
      { what: 'attempt 2 recorded' },
    );
    a.deepEqual(
      final.map((x) => [x.attempt, x.status, x.deliveryId]),
      [
        [1, 'interrupted', deliveryId],
        [2, 'succeeded', deliveryId],
      ],
    );
    await deliveryPass(next);
    a.is(r.received.length, 2);
    a.deepEqual(await deliveryCounts(next, endpoint.id), { deliveries: 1, attempts: 2 });
    await stop(next);
  },
);

test.serial('the first pass after a killed process fans out again only the events whose delivery left nothing on disk', async (a) => {
  const rA = await receiver();
  const rDisabled = await receiver();
  const rLater = await receiver();
  const first = await start();
  const endpoint = await createEndpoint(first, { url: rA.url, events: ['pet.registered'] });
  const disabled = await createEndpoint(first, { url: rDisabled.url, events: ['pet.registered'] });
  const later = await createEndpoint(first, { url: rLater.url, events: ['pet.registered'] });
  const { location, parent } = await createHousehold(first);
  await rA.waitFor(1);
  await createPet(first, parent.id, location.id);
  await rA.waitFor(2);
  await createPet(first, parent.id, location.id);
  const sent = await rA.waitFor(3);
  await rDisabled.waitFor(3);
  await rLater.waitFor(3);
  await waitForAttempts(first, endpoint.id, 3);
  await waitForAttempts(first, disabled.id, 3);
  await waitForAttempts(first, later.id, 3);
  const patched = await first.request('PATCH', `/v1/webhook-endpoints/${disabled.id}`, { token: await first.adminToken(), body: { enabled: false } });
  a.is(patched.status, 200, patched.text);
  // Events a, b, c in commit order, and the delivery each had.
  const [evA, evB, evC] = sent.map((x) => ({ id: x.body.id, delivery: header(x.headers['x-service-delivery-id']) }));
  const at = first.clock.now();
  await stop(first);

  // What a killed process would leave: recorded_seq below the three events, and for `endpoint`
  // (a) nothing on disk, (b) a delivery row only, (c) its succeeded first attempt only. The other two
  // endpoints have nothing for any of the three: one is disabled, the other's since_seq is above them.
  const editor = await start({ dataDir: first.dataDir, clock: new TestClock(at), jobs: false });
  const db = liveDb(editor);
  const seqA = await seqOf(editor, evA!.id);
  const seqC = await seqOf(editor, evC!.id);
  a.is((await deliveryRows(editor, endpoint.id)).length, 0, 'three first attempts that succeeded: attempt rows only');
  const attemptsBefore = await attemptRows(editor, endpoint.id);
  a.deepEqual(
    attemptsBefore.map((x) => [x.event_id, x.delivery_id, x.status]),
    [
      [evA!.id, evA!.delivery, 'succeeded'],
      [evB!.id, evB!.delivery, 'succeeded'],
      [evC!.id, evC!.delivery, 'succeeded'],
    ],
  );
  await db.deleteFrom('webhook_attempts').where('endpoint_id', '=', endpoint.id).where('event_id', '=', evA!.id).execute();
  const attemptB = attemptsBefore[1]!;
  await db
    .insertInto('webhook_deliveries')
    .values({
      id: attemptB.delivery_id,
      tenant_id: attemptB.tenant_id,
      endpoint_id: endpoint.id,
      event_id: evB!.id,
      event_type: attemptB.event_type,
      kind: 'event',
      status: 'succeeded',
      attempts: 1,
      failures: 0,
      next_attempt_at: null,
      attempt_id: attemptB.id,
      claimed_by: null,
      lease_until: null,
      payload: null,
      last_error: null,
      created_at: attemptB.started_at,
      updated_at: attemptB.finished_at!,
      finished_at: attemptB.finished_at,
    })
    .execute();
  await db.deleteFrom('webhook_attempts').where('id', '=', attemptB.id).execute();
  for (const other of [disabled.id, later.id]) {
    await db.deleteFrom('webhook_attempts').where('endpoint_id', '=', other).execute();
    await db.deleteFrom('webhook_deliveries').where('endpoint_id', '=', other).execute();
  }
  const newest = Number(
    (
      await db
        .selectFrom('events')
        .select((eb) => eb.fn.max('seq').as('m'))
        .executeTakeFirstOrThrow()
    ).m,
  );
  await db.updateTable('webhook_endpoints').set({ since_seq: newest }).where('id', '=', later.id).execute();
  const killed = await cursors(editor);
  a.true(killed.last_seq >= seqC, 'the three events were fanned out');
  await db
    .updateTable('webhook_fanout')
    .set({ recorded_seq: seqA - 1 })
    .where('id', '=', 1)
    .execute();
  a.deepEqual(await deliveryCounts(editor, endpoint.id), { deliveries: 2, attempts: 1 });
  const disabledRow = await db.selectFrom('webhook_endpoints').select(['enabled', 'deleted_at']).where('id', '=', disabled.id).executeTakeFirstOrThrow();
  a.deepEqual(disabledRow, { enabled: 0, deleted_at: null });
  await stop(editor);

  for (const r of [rA, rDisabled, rLater]) r.received.length = 0;
  const next = await start({ dataDir: first.dataDir, clock: new TestClock(at) });
  const [again] = await rA.waitFor(1);
  a.is(again!.body.id, evA!.id, 'event (a) is sent again');
  a.is(header(again!.headers['x-service-delivery-attempt']), '1');
  const newDelivery = header(again!.headers['x-service-delivery-id']);
  a.regex(newDelivery, /^whd_/);
  a.not(newDelivery, evA!.delivery, 'as a new delivery');
  await eventually(async () => (await attemptsOf(next, endpoint.id)).some((x) => x.deliveryId === newDelivery && x.status === 'succeeded'), {
    what: 'the re-fanned delivery recorded',
  });
  const refanned = (await deliveryRows(next, endpoint.id)).find((d) => d.id === newDelivery);
  a.like(refanned, { event_id: evA!.id, kind: 'event', status: 'succeeded', attempts: 1, failures: 0 });

  // A further pass: nothing more is sent, to any endpoint, and every delivery is on disk.
  await deliveryPass(next);
  const after = await cursors(next);
  a.is(after.recorded_seq, after.last_seq);
  a.is(rA.received.length, 1);
  a.is(rDisabled.received.length, 0, 'not to the disabled endpoint');
  a.is(rLater.received.length, 0, 'not to the endpoint created after the events');
  a.deepEqual(await deliveryCounts(next, endpoint.id), { deliveries: 3, attempts: 2 });
  a.deepEqual(await deliveryCounts(next, disabled.id), { deliveries: 0, attempts: 0 });
  a.deepEqual(await deliveryCounts(next, later.id), { deliveries: 0, attempts: 0 });
  const byEvent = (await attemptsOf(next, endpoint.id)).map((x) => [x.eventId, x.deliveryId, x.attempt, x.status, x.deliveryStatus]);
  a.deepEqual(byEvent, [
    [evC!.id, evC!.delivery, 1, 'succeeded', 'succeeded'],
    [evA!.id, newDelivery, 1, 'succeeded', 'succeeded'],
  ]);
  await stop(next);
});

test.serial('pruning deletes attempt-only rows older than the cutoff, keeps newer ones and attempts of a delivery still pending', async (a) => {
  const now = Date.now() + 365 * 86_400_000;
  const day = 86_400_000;
  // Ids dated at those instants (newId dates by the real clock only), oldest first.
  let made = 0;
  const idAt = (prefix: string, at: number) => `${idFloor(prefix, at)}${String(++made).padStart(16, '0')}`;
  const oldDelivery = idAt('whd', now - 40 * day);
  const oldAttempt = idAt('wha', now - 40 * day);
  const pendingDelivery = idAt('whd', now - 40 * day);
  const pendingAttempt = idAt('wha', now - 40 * day);
  const newDelivery = idAt('whd', now - day);
  const newAttempt = idAt('wha', now - day);

  const t = await start({ clock: new TestClock(now), jobs: false });
  const endpoint = await createEndpoint(t, { url: 'http://127.0.0.1:9/hooks', events: ['pet.registered'] });
  await createHousehold(t);
  const db = liveDb(t);
  const event = await db.selectFrom('events').select('id').where('type', '=', 'pet.registered').executeTakeFirstOrThrow();
  const iso = (ms: number) => new Date(ms).toISOString();
  const attempt = (id: string, deliveryId: string, at: number, status: 'succeeded' | 'failed') => ({
    id,
    tenant_id: t.tenantId,
    delivery_id: deliveryId,
    endpoint_id: endpoint.id,
    event_id: event.id,
    event_type: 'pet.registered',
    kind: 'event' as const,
    attempt: 1,
    status,
    url: endpoint.url,
    started_at: iso(at),
    finished_at: iso(at + 50),
    latency_ms: 50,
    response_status: status === 'succeeded' ? 200 : 500,
    response_excerpt: null,
    error: null,
    next_retry_at: null,
  });
  await db
    .insertInto('webhook_attempts')
    .values([
      attempt(oldAttempt, oldDelivery, now - 40 * day, 'succeeded'),
      attempt(pendingAttempt, pendingDelivery, now - 40 * day, 'failed'),
      attempt(newAttempt, newDelivery, now - day, 'succeeded'),
    ])
    .execute();
  await db
    .insertInto('webhook_deliveries')
    .values({
      id: pendingDelivery,
      tenant_id: t.tenantId,
      endpoint_id: endpoint.id,
      event_id: event.id,
      event_type: 'pet.registered',
      kind: 'event',
      status: 'pending',
      attempts: 1,
      failures: 1,
      next_attempt_at: iso(now + day),
      attempt_id: pendingAttempt,
      claimed_by: null,
      lease_until: null,
      payload: null,
      last_error: 'HTTP 500',
      created_at: iso(now - 40 * day),
      updated_at: iso(now - 40 * day),
      finished_at: null,
    })
    .execute();

  const removed = await db.transaction().execute((trx) => pruneFinished(trx, now, now - 30 * day));
  a.is(removed, 1);
  const left = (await attemptRows(t, endpoint.id)).map((x) => x.id);
  a.deepEqual(left, [pendingAttempt, newAttempt].sort());
  a.false(left.includes(oldAttempt));
  a.deepEqual(
    (await deliveryRows(t, endpoint.id)).map((d) => [d.id, d.status]),
    [[pendingDelivery, 'pending']],
  );
  await stop(t);
});

test.serial('a clean stop right after a first attempt was answered records it before the database closes: never nothing on disk', async (a) => {
  // The stop lands 3–8 ms after the receiver answered: inside the ~25 ms the result waits for its
  // batch. The drain (WebhookDispatcher.drain, run by the appliance's close) writes it first.
  for (const delay of [3, 5, 8]) {
    let app: TestApp | undefined;
    let closing: Promise<void> | undefined;
    const r = await receiver(() => {
      closing ??= new Promise((resolve) => setTimeout(() => resolve(stop(app!)), delay));
      return { status: 200, body: 'ok' };
    });
    app = await start();
    const endpoint = await createEndpoint(app, { url: r.url, events: ['pet.registered'] });
    await createHousehold(app);
    await r.waitFor(1);
    await eventually(async () => closing !== undefined, { what: 'the stop to start' });
    await closing;
    const reader = await start({ dataDir: app.dataDir, jobs: false, clock: new TestClock(app.clock.now()) });
    const db = reader.stores.get('live').db;
    const attempts = await db.selectFrom('webhook_attempts').select('status').where('endpoint_id', '=', endpoint.id).execute();
    const deliveries = await db.selectFrom('webhook_deliveries').select('status').where('endpoint_id', '=', endpoint.id).execute();
    const cursors = await db.selectFrom('webhook_fanout').selectAll().executeTakeFirstOrThrow();
    // Answered and read: one succeeded attempt. Answered but cut before it was read: interrupted, retried later.
    const seen = JSON.stringify({ attempts, deliveries, delay });
    a.true(
      (attempts.length === 1 && attempts[0]!.status === 'succeeded' && deliveries.length === 0) ||
        (attempts.length === 1 && attempts[0]!.status === 'interrupted' && deliveries.length === 1 && deliveries[0]!.status === 'pending'),
      seen,
    );
    a.is(cursors.recorded_seq, cursors.last_seq, seen);
    await stop(reader);
  }
});

test.serial('a start whose re-fan range holds 150,000 events goes through it in pages, and delivery goes on', async (a) => {
  const r = await receiver();
  const first = await start({ jobs: false });
  // Subscribed to a type none of the range has: the pass only pages through it.
  const endpoint = await createEndpoint(first, { url: r.url, events: ['pet.registered'] });
  const sqlite = first.stores.get('live').sqlite;
  const now = first.clock.now();
  const insert = sqlite.prepare('INSERT INTO events (id, tenant_id, type, data, created_at) VALUES (?, ?, ?, ?, ?)');
  sqlite.transaction(() => {
    for (let i = 0; i < 150_000; i++) insert.run(newId('evt'), first.tenantId, 'booking.created', '{}', new Date(now).toISOString());
  })();
  sqlite.prepare('UPDATE webhook_fanout SET last_seq = (SELECT max(seq) FROM events), recorded_seq = 0').run();
  await stop(first);

  const next = await start({ dataDir: first.dataDir, clock: new TestClock(now) });
  await deliveryPass(next);
  const cursors = next.stores.get('live').sqlite.prepare('SELECT last_seq, recorded_seq FROM webhook_fanout').get() as {
    last_seq: number;
    recorded_seq: number;
  };
  a.is(cursors.recorded_seq, cursors.last_seq);
  a.deepEqual(await deliveryCounts(next, endpoint.id), { deliveries: 0, attempts: 0 });
  // Delivery goes on: a new event reaches the receiver.
  await createHousehold(next);
  const [got] = await r.waitFor(1);
  a.is(got!.body.type, 'pet.registered');
  await stop(next);
});
