import test, { type ExecutionContext } from 'ava';
import { createHousehold } from '../helpers/factories.js';
import { TestClock } from '../helpers/test-app.js';
import { eventually } from '../helpers/eventually.js';
import {
  attemptsOf,
  createEndpoint,
  deliveryCounts,
  deliveryPass,
  restartConfig,
  restartHarness,
  verifyStripeStyle,
  waitForAttempts,
} from './webhook-support.js';

/** Delivery state lives in SQLite: a restart continues a retry sequence and closes attempts cut mid-flight. */
const config = restartConfig;
const { start, stop, receiver } = restartHarness(config);

test.serial('a restart in the middle of a retry sequence: the next attempt is sent by the new process', async (a) => {
  const r = await receiver((n) => (n === 0 ? { status: 500 } : { status: 200 }));
  const first = await start({ config });
  const endpoint = await createEndpoint(first, { url: r.url, events: ['pet.registered'] });
  await createHousehold(first);
  const [failed] = await waitForAttempts(first, endpoint.id, 1);
  a.is(failed.status, 'failed');
  a.truthy(failed.nextRetryAt);
  const at = first.clock.now();
  await stop(first);

  const second = await start({ config, dataDir: first.dataDir, clock: new TestClock(at) });
  await deliveryPass(second);
  a.is((await deliveryCounts(second, endpoint.id)).attempts, 1, 'the retry waits for its time after the restart too');
  a.is(r.received.length, 1);
  second.clock.advance(1200);
  await r.waitFor(2);
  const attempts = await waitForAttempts(second, endpoint.id, 2);
  a.deepEqual(
    attempts.map((x) => [x.attempt, x.status]),
    [
      [1, 'failed'],
      [2, 'succeeded'],
    ],
  );
  a.is(r.received[1]!.headers['x-service-delivery-attempt'], '2');
  a.is(r.received[1]!.body.id, r.received[0]!.body.id);
  a.true(
    verifyStripeStyle(String(r.received[1]!.headers['x-service-signature']), r.received[1]!.rawBody, endpoint.secret, Math.floor(second.clock.now() / 1000)),
  );
  await stop(second);
});

test.serial('an attempt in flight when the service stops is recorded as interrupted; the next attempt follows at once', async (a) => {
  const r = await receiver((n) => (n === 0 ? 'hang' : { status: 200 }));
  const first = await start({ config });
  const endpoint = await createEndpoint(first, { url: r.url, events: ['pet.registered'] });
  await createHousehold(first);
  await r.waitFor(1);
  const at = first.clock.now();
  await stop(first); // the receiver never answered attempt 1

  const second = await start({ config, dataDir: first.dataDir, clock: new TestClock(at) });
  await r.waitFor(2);
  const attempts = await waitForAttempts(second, endpoint.id, 2);
  a.deepEqual(
    attempts.map((x) => [x.attempt, x.status]),
    [
      [1, 'interrupted'],
      [2, 'succeeded'],
    ],
  );
  a.regex(attempts[0].error, /interrupted/);
  a.deepEqual(
    r.received.map((x) => x.headers['x-service-delivery-attempt']),
    ['1', '2'],
    'each attempt number is sent once',
  );
  await deliveryPass(second);
  a.is((await deliveryCounts(second, endpoint.id)).attempts, 2, 'no third attempt');
  a.is(r.received.length, 2);
  await stop(second);
});

/**
 * What a process killed during attempt 1 leaves behind: the event fanned out and the delivery
 * claimed (`sending` under a dead instance), no result. `legacy`: a release before 2026-11-26 also
 * wrote the attempt's row `in_flight` at the claim; now the delivery names its attempt and the row
 * is written when the attempt ends.
 */
async function killedDuringAttempt(a: ExecutionContext, legacy: boolean): Promise<void> {
  const r = await receiver(() => ({ status: 200 }));
  const first = await start({ config, jobs: false });
  const endpoint = await createEndpoint(first, { url: r.url, events: ['pet.registered'] });
  await createHousehold(first);
  const db = first.stores.get('live').db;
  const event = await db.selectFrom('events').select(['id', 'seq']).where('type', '=', 'pet.registered').executeTakeFirstOrThrow();
  const now = new Date(first.clock.now()).toISOString();
  const attemptId = 'wha_01killedprocess0000000000';
  await db
    .insertInto('webhook_deliveries')
    .values({
      id: 'whd_01killedprocess0000000000',
      tenant_id: first.tenantId,
      endpoint_id: endpoint.id,
      event_id: event.id,
      event_type: 'pet.registered',
      kind: 'event',
      status: 'sending',
      attempts: 1,
      failures: 0,
      next_attempt_at: null,
      attempt_id: legacy ? null : attemptId,
      claimed_by: 'wdi_deadprocess',
      lease_until: new Date(first.clock.now() + 3_600_000).toISOString(),
      payload: null,
      last_error: null,
      created_at: now,
      updated_at: now,
      finished_at: null,
    })
    .execute();
  if (legacy) {
    await db
      .insertInto('webhook_attempts')
      .values({
        id: attemptId,
        tenant_id: first.tenantId,
        delivery_id: 'whd_01killedprocess0000000000',
        endpoint_id: endpoint.id,
        event_id: event.id,
        event_type: 'pet.registered',
        kind: 'event',
        attempt: 1,
        status: 'in_flight',
        url: r.url,
        started_at: now,
        finished_at: null,
        latency_ms: null,
        response_status: null,
        response_excerpt: null,
        error: null,
        next_retry_at: null,
      })
      .execute();
  }
  // The killed process had fanned the event out already, and written the delivery's row (a retry,
  // or a first attempt of a release before 2026-11-26, whose upgrade sets recorded_seq to last_seq).
  await db.updateTable('webhook_fanout').set({ last_seq: event.seq, recorded_seq: event.seq }).execute();
  const at = first.clock.now();
  // Listed while in flight, from the delivery (new) or its row (legacy), under the id it keeps.
  const inFlight = await attemptsOf(first, endpoint.id);
  a.deepEqual(
    inFlight.map((x) => [x.id, x.attempt, x.status, x.deliveryStatus, x.startedAt]),
    [[attemptId, 1, 'in_flight', 'sending', now]],
  );
  await stop(first);

  const second = await start({ config, dataDir: first.dataDir, clock: new TestClock(at) });
  const [got] = await r.waitFor(1);
  a.is(got!.headers['x-service-delivery-attempt'], '2');
  a.is(got!.headers['x-service-delivery-id'], 'whd_01killedprocess0000000000');
  const attempts = await eventually(
    async () => {
      const all = await attemptsOf(second, endpoint.id);
      return all.length === 2 && all[1].status === 'succeeded' ? all : undefined;
    },
    { what: 'attempt 2' },
  );
  a.deepEqual(
    attempts.map((x) => [x.attempt, x.status]),
    [
      [1, 'interrupted'],
      [2, 'succeeded'],
    ],
  );
  a.is(attempts[0].id, attemptId);
  a.is(attempts[0].startedAt, now);
  a.is(attempts[0].url, r.url);
  a.regex(attempts[0].error, /interrupted/);
  a.is(r.received.length, 1, 'attempt 2 only: attempt 1 never reached the receiver');
  await stop(second);
}

test.serial('an attempt a killed process left in flight is closed as interrupted by the next start and tried again', (a) => killedDuringAttempt(a, false));

test.serial('an in_flight attempt row an older release left is closed as interrupted by the next start and tried again', (a) => killedDuringAttempt(a, true));
