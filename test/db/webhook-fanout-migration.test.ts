import test, { type ExecutionContext } from 'ava';
import type SQLite from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { newId } from '../../src/db/ids.js';
import { createMigrator } from '../../src/db/migrator.js';
import { databaseFile } from '../../src/db/stores.js';
import { eventually } from '../helpers/eventually.js';
import { createHousehold } from '../helpers/factories.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { createEndpoint, deliveryPass, startReceiver, waitForAttempts, type Receiver } from '../webhooks/webhook-support.js';

/**
 * The upgrade from the webhook fan-out queue (webhook_event_queue, filled by trigger, since_seq in
 * queue terms) to fan-out by events.seq (a cursor row, since_seq in events.seq terms): on real
 * SQLite files, every event an endpoint was owed before is owed after, and nothing else.
 */
const previous = '2026_11_25_0900_denormalize_pet_earliest_due';
const migration = '2026_11_26_0900_webhook_fanout_by_event_seq';
/** The migration after it (first attempts written once): the upgrade runs both, the downgrade undoes both. */
const next = '2026_11_26_1030_webhook_first_attempt_one_row';
const at = '2026-11-25T10:00:00.000Z';

interface OldEvent {
  seq: number;
  id: string;
  tenant_id: string;
  type: string;
  data: string;
  created_at: string;
}
interface Endpoint {
  id: string;
  tenant_id: string;
  since_seq: number;
  enabled: number;
  deleted_at: string | null;
}

interface OldWorld {
  handle: DatabaseHandle;
  dir: string;
  events: OldEvent[];
  queue: { seq: number; event_id: string }[];
  endpoints: Endpoint[];
  /** Per live endpoint: the event ids the old dispatcher would still fan out to it (queue seq > since_seq, same tenant, event still there). */
  owed: Record<string, string[]>;
  attempts: unknown[];
  deliveries: Record<string, unknown>[];
  close(): Promise<void>;
}

const all = <T>(sqlite: SQLite.Database, text: string, ...params: unknown[]): T[] => sqlite.prepare(text).all(...params) as T[];

/**
 * A database at the migration before the new one, filled with plain SQL as the old code left it:
 *
 *   rowid  event              queue  note
 *   1, 2   ten_a a1, a2       -      no endpoint yet: never queued
 *   3      ten_c c3           -      ten_c never has an endpoint
 *          (endpoints C of ten_b and A of ten_a created, since_seq 0)
 *   4      ten_a a4           q1     dequeued (fanned out to A)
 *   5      ten_b b5           q2     dequeued (fanned out to C), later deleted
 *   6      ten_c c6           -
 *   7      ten_a a7           q3     still queued, queued before B existed: A's, not B's
 *          (endpoint B of ten_a created, since_seq 3)
 *   8      ten_a a8           q4     A's and B's
 *   9      ten_b b9           q5     deleted by the ten_b reset: its queue row stays
 *   10     ten_a a10          q6
 *   11     ten_c c11          -
 *   12     ten_b b12          q7     the newest, deleted by the reset: rowid 12 is reused
 *          (sandbox-style reset of ten_b: its events deleted, queue rows kept)
 *   12     ten_b b12bis       q8     C's
 *   13     ten_a a13          q9
 *          (endpoint D of ten_b created, since_seq 9: owed nothing; E of ten_a disabled)
 *   14     ten_c c14          -
 */
async function oldWorld(a: ExecutionContext): Promise<OldWorld> {
  const dir = mkdtempSync(path.join(tmpdir(), 'petcare-fanout-migration-'));
  const handle = openDatabase(path.join(dir, 'live.sqlite'));
  const migrated = await createMigrator(handle.db).migrateTo(previous);
  a.falsy(migrated.error);
  a.is(migrated.results?.at(-1)?.migrationName, previous);
  const { sqlite } = handle;
  const queueSeq = (): number => all<{ seq: number }>(sqlite, "SELECT seq FROM sqlite_sequence WHERE name = 'webhook_event_queue'")[0]?.seq ?? 0;

  for (const tenant of ['ten_a', 'ten_b', 'ten_c'])
    sqlite.prepare('INSERT INTO tenants (id, name, created_at) VALUES (?, ?, ?)').run(tenant, `Clinic ${tenant}`, at);
  const insertEvent = sqlite.prepare('INSERT INTO events (id, tenant_id, type, data, created_at) VALUES (?, ?, ?, ?, ?)');
  const event = (id: string, tenant: string, type = 'pet.registered') =>
    insertEvent.run(`evt_${id}`, tenant, type, JSON.stringify({ name: id, n: id.length }), `2026-11-25T10:00:${String(id.length).padStart(2, '0')}.000Z`);
  const insertEndpoint = sqlite.prepare(`
    INSERT INTO webhook_endpoints (id, tenant_id, url, description, events, enabled, secret, since_seq, created_at, updated_at)
    VALUES (?, ?, 'https://hooks.example.com/x', NULL, '["*"]', ?, 'sealed-secret', ?, ?, ?)`);
  // As the old service created one: since_seq is the queue's sequence so far (currentQueueSeq).
  const endpoint = (id: string, tenant: string, enabled = 1) => insertEndpoint.run(id, tenant, enabled, queueSeq(), at, at);

  event('a1', 'ten_a');
  event('a2', 'ten_a', 'pet_parent.created');
  event('c3', 'ten_c');
  endpoint('whe_c', 'ten_b');
  endpoint('whe_a', 'ten_a');
  event('a4', 'ten_a');
  event('b5', 'ten_b');
  event('c6', 'ten_c');
  event('a7', 'ten_a', 'appointment.booked');
  // The old dispatcher fanned out q1 and q2 (their deliveries below), then dequeued them.
  sqlite.prepare('DELETE FROM webhook_event_queue WHERE seq <= 2').run();
  endpoint('whe_b', 'ten_a');
  event('a8', 'ten_a');
  event('b9', 'ten_b');
  event('a10', 'ten_a');
  event('c11', 'ten_c');
  event('b12', 'ten_b');
  sqlite.prepare("DELETE FROM events WHERE tenant_id = 'ten_b'").run();
  event('b12bis', 'ten_b');
  event('a13', 'ten_a');
  endpoint('whe_d', 'ten_b');
  endpoint('whe_e', 'ten_a', 0);
  event('c14', 'ten_c');

  const insertDelivery = sqlite.prepare(`
    INSERT INTO webhook_deliveries (id, tenant_id, endpoint_id, event_id, event_type, kind, status, attempts, failures, next_attempt_at,
                                    claimed_by, lease_until, payload, last_error, created_at, updated_at, finished_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  insertDelivery.run('whd_1', 'ten_a', 'whe_a', 'evt_a4', 'pet.registered', 'event', 'succeeded', 1, 0, null, null, null, null, null, at, at, at);
  insertDelivery.run(
    'whd_2',
    'ten_b',
    'whe_c',
    'evt_b5',
    'pet.registered',
    'event',
    'sending',
    1,
    0,
    null,
    'wdi_old',
    '2026-11-25T10:05:00.000Z',
    null,
    null,
    at,
    at,
    null,
  );
  insertDelivery.run(
    'whd_3',
    'ten_a',
    'whe_a',
    'evt_test',
    'webhook.test',
    'test',
    'pending',
    1,
    1,
    '2026-11-25T10:01:00.000Z',
    null,
    null,
    '{"id":"evt_test"}',
    'HTTP 500',
    at,
    at,
    null,
  );
  insertDelivery.run('whd_4', 'ten_a', 'whe_a', 'evt_a2', 'pet_parent.created', 'replay', 'failed', 2, 2, null, null, null, null, 'timeout', at, at, at);
  const insertAttempt = sqlite.prepare(`
    INSERT INTO webhook_attempts (id, tenant_id, delivery_id, endpoint_id, event_id, event_type, kind, attempt, status, url, started_at,
                                  finished_at, latency_ms, response_status, response_excerpt, error, next_retry_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'https://hooks.example.com/x', ?, ?, ?, ?, ?, ?, ?)`);
  insertAttempt.run('wha_1', 'ten_a', 'whd_1', 'whe_a', 'evt_a4', 'pet.registered', 'event', 1, 'succeeded', at, at, 12.5, 200, 'ok', null, null);
  insertAttempt.run('wha_2', 'ten_b', 'whd_2', 'whe_c', 'evt_b5', 'pet.registered', 'event', 1, 'in_flight', at, null, null, null, null, null, null);
  insertAttempt.run(
    'wha_3',
    'ten_a',
    'whd_3',
    'whe_a',
    'evt_test',
    'webhook.test',
    'test',
    1,
    'failed',
    at,
    at,
    3.25,
    500,
    'boom',
    'HTTP 500',
    '2026-11-25T10:01:00.000Z',
  );
  insertAttempt.run(
    'wha_4',
    'ten_a',
    'whd_4',
    'whe_a',
    'evt_a2',
    'pet_parent.created',
    'replay',
    1,
    'failed',
    at,
    at,
    10000,
    null,
    null,
    'timeout',
    '2026-11-25T10:00:10.000Z',
  );
  insertAttempt.run('wha_5', 'ten_a', 'whd_4', 'whe_a', 'evt_a2', 'pet_parent.created', 'replay', 2, 'failed', at, at, 10000, null, null, 'timeout', null);

  const events = all<OldEvent>(sqlite, 'SELECT rowid AS seq, id, tenant_id, type, data, created_at FROM events ORDER BY rowid');
  const queue = all<{ seq: number; event_id: string }>(sqlite, 'SELECT seq, event_id FROM webhook_event_queue ORDER BY seq');
  const endpoints = all<Endpoint>(sqlite, 'SELECT id, tenant_id, since_seq, enabled, deleted_at FROM webhook_endpoints ORDER BY id');
  // The old dispatcher's rule (delivery-statements before 2026-11-26): queue rows in order, the event joined (gone: skipped),
  // for every enabled, live endpoint of the event's tenant whose since_seq is below the queue seq.
  const owed: Record<string, string[]> = {};
  for (const e of endpoints.filter((x) => x.enabled === 1 && x.deleted_at === null)) {
    owed[e.id] = all<{ id: string }>(
      sqlite,
      'SELECT e.id FROM webhook_event_queue q JOIN events e ON e.id = q.event_id WHERE q.seq > ? AND e.tenant_id = ? ORDER BY q.seq',
      e.since_seq,
      e.tenant_id,
    ).map((r) => r.id);
  }

  // The fixture is what the table above says (else the comparisons below would prove little).
  a.deepEqual(
    events.map((e) => [e.seq, e.id]),
    [
      [1, 'evt_a1'],
      [2, 'evt_a2'],
      [3, 'evt_c3'],
      [4, 'evt_a4'],
      [6, 'evt_c6'],
      [7, 'evt_a7'],
      [8, 'evt_a8'],
      [10, 'evt_a10'],
      [11, 'evt_c11'],
      [12, 'evt_b12bis'],
      [13, 'evt_a13'],
      [14, 'evt_c14'],
    ],
  );
  a.deepEqual(queue, [
    { seq: 3, event_id: 'evt_a7' },
    { seq: 4, event_id: 'evt_a8' },
    { seq: 5, event_id: 'evt_b9' },
    { seq: 6, event_id: 'evt_a10' },
    { seq: 7, event_id: 'evt_b12' },
    { seq: 8, event_id: 'evt_b12bis' },
    { seq: 9, event_id: 'evt_a13' },
  ]);
  a.deepEqual(
    endpoints.map((e) => [e.id, e.since_seq]),
    [
      ['whe_a', 0],
      ['whe_b', 3],
      ['whe_c', 0],
      ['whe_d', 9],
      ['whe_e', 9],
    ],
  );
  a.deepEqual(owed, {
    whe_a: ['evt_a7', 'evt_a8', 'evt_a10', 'evt_a13'],
    whe_b: ['evt_a8', 'evt_a10', 'evt_a13'],
    whe_c: ['evt_b12bis'],
    whe_d: [],
  });

  return {
    handle,
    dir,
    events,
    queue,
    endpoints,
    owed,
    attempts: all(sqlite, 'SELECT * FROM webhook_attempts ORDER BY id'),
    deliveries: all(sqlite, 'SELECT * FROM webhook_deliveries ORDER BY id'),
    async close() {
      await handle.db.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function upgrade(a: ExecutionContext, world: OldWorld): Promise<void> {
  const result = await createMigrator(world.handle.db).migrateToLatest();
  a.falsy(result.error);
  // These two first; later migrations follow them.
  a.deepEqual(
    result.results?.slice(0, 2).map((r) => [r.migrationName, r.status]),
    [
      [migration, 'Success'],
      [next, 'Success'],
    ],
  );
  a.true(result.results?.every((r) => r.status === 'Success'));
  // Nothing was in flight at the upgrade: every delivery of the fanned-out events is on disk.
  const cursors = all<{ last_seq: number; recorded_seq: number }>(world.handle.sqlite, 'SELECT last_seq, recorded_seq FROM webhook_fanout WHERE id = 1')[0]!;
  a.is(cursors.recorded_seq, cursors.last_seq);
}

const cursorOf = (sqlite: SQLite.Database): number => all<{ last_seq: number }>(sqlite, 'SELECT last_seq FROM webhook_fanout WHERE id = 1')[0]!.last_seq;
const sinceOf = (sqlite: SQLite.Database): Record<string, number> =>
  Object.fromEntries(all<{ id: string; since_seq: number }>(sqlite, 'SELECT id, since_seq FROM webhook_endpoints ORDER BY id').map((r) => [r.id, r.since_seq]));

/**
 * What the new dispatcher fans out to each live endpoint (delivery-statements fanOut): events with
 * seq > max(cursor, the oldest live since_seq), in seq order, to the endpoints of their tenant whose
 * since_seq is below the event's seq.
 */
function fannedOut(sqlite: SQLite.Database): Record<string, string[]> {
  const live = all<{ id: string; tenant_id: string; since_seq: number }>(
    sqlite,
    'SELECT id, tenant_id, since_seq FROM webhook_endpoints WHERE enabled = 1 AND deleted_at IS NULL ORDER BY id',
  );
  const from = Math.max(cursorOf(sqlite), Math.min(...live.map((e) => e.since_seq)));
  const events = all<{ seq: number; id: string; tenant_id: string }>(sqlite, 'SELECT seq, id, tenant_id FROM events WHERE seq > ? ORDER BY seq', from);
  return Object.fromEntries(live.map((e) => [e.id, events.filter((x) => x.tenant_id === e.tenant_id && x.seq > e.since_seq).map((x) => x.id)]));
}

test('the upgrade keeps every event under its rowid and owes each endpoint exactly the queued events it was owed', async (a) => {
  const world = await oldWorld(a);
  try {
    await upgrade(a, world);
    const { sqlite } = world.handle;

    // Every event kept, seq = its old rowid, the same values.
    a.deepEqual(all<OldEvent>(sqlite, 'SELECT seq, id, tenant_id, type, data, created_at FROM events ORDER BY seq'), world.events);
    const seqColumn = all<{ name: string; pk: number; type: string }>(sqlite, 'PRAGMA table_info(events)').find((c) => c.name === 'seq');
    a.deepEqual(seqColumn && { pk: seqColumn.pk, type: seqColumn.type }, { pk: 1, type: 'INTEGER' });
    a.deepEqual(
      all<{ seq: number }>(sqlite, 'SELECT rowid AS seq FROM events ORDER BY rowid').map((r) => r.seq),
      world.events.map((e) => e.seq),
      'seq is the rowid',
    );

    // The cursor: just before the oldest event still queued (a7, seq 7).
    const stillQueued = world.queue.map((q) => world.events.find((e) => e.id === q.event_id)).filter((e) => e !== undefined);
    a.is(cursorOf(sqlite), Math.min(...stillQueued.map((e) => e.seq)) - 1);
    a.is(cursorOf(sqlite), 6);

    // Each endpoint is owed exactly what the old queue owed it, in the same order.
    a.deepEqual(fannedOut(sqlite), world.owed);
    a.deepEqual(sinceOf(sqlite), { whe_a: 6, whe_b: 7, whe_c: 6, whe_d: 14, whe_e: 14 });
    // Per endpoint in isolation too (seq > max(cursor, since_seq), its tenant): the dispatcher's from is never above that.
    for (const [id, expected] of Object.entries(world.owed)) {
      const endpoint = world.endpoints.find((e) => e.id === id)!;
      const since = sinceOf(sqlite)[id]!;
      const ids = all<{ id: string }>(
        sqlite,
        'SELECT id FROM events WHERE tenant_id = ? AND seq > max(?, ?) ORDER BY seq',
        endpoint.tenant_id,
        cursorOf(sqlite),
        since,
      ).map((r) => r.id);
      a.deepEqual(ids, expected, id);
    }

    // The queue and its trigger are gone; the cursor table and the delete trigger are there.
    const schema = all<{ type: string; name: string; sql: string | null }>(sqlite, 'SELECT type, name, sql FROM sqlite_master');
    const names = schema.map((s) => s.name);
    a.false(names.includes('webhook_event_queue'));
    a.false(names.includes('webhook_event_queue_insert'));
    a.deepEqual(all(sqlite, "SELECT name FROM sqlite_sequence WHERE name = 'webhook_event_queue'"), []);
    a.true(names.includes('webhook_fanout'));
    a.true(names.includes('events_delete_newest'));
    a.deepEqual(
      schema.filter((s) => s.type === 'trigger' && s.sql?.includes(' ON events')).map((s) => s.name),
      ['events_delete_newest'],
    );
    a.true(names.includes('events_type_idx'));

    // Attempts: every row, the same values; now WITHOUT ROWID keyed by (endpoint_id, id).
    a.deepEqual(all(sqlite, 'SELECT * FROM webhook_attempts ORDER BY id'), world.attempts);
    a.regex(schema.find((s) => s.name === 'webhook_attempts')!.sql!, /WITHOUT ROWID/);
    a.deepEqual(
      all<{ name: string; pk: number }>(sqlite, 'PRAGMA table_info(webhook_attempts)')
        .filter((c) => c.pk > 0)
        .sort((x, y) => x.pk - y.pk)
        .map((c) => c.name),
      ['endpoint_id', 'id'],
    );
    a.deepEqual(
      all<{ status: string }>(sqlite, "SELECT status FROM webhook_attempts WHERE id = 'wha_2'"),
      [{ status: 'in_flight' }],
      'the in_flight attempt an older release left is kept for the restart to close',
    );
    // Deliveries: the same rows, with attempt_id (null: none names an attempt yet).
    a.deepEqual(
      all(sqlite, 'SELECT * FROM webhook_deliveries ORDER BY id'),
      world.deliveries.map((d) => ({ ...d, attempt_id: null })),
    );

    a.deepEqual(all(sqlite, 'PRAGMA foreign_key_check'), []);
    a.deepEqual(all(sqlite, 'PRAGMA integrity_check'), [{ integrity_check: 'ok' }]);

    // The due index is partial and still serves the dispatcher's scan.
    a.regex(schema.find((s) => s.name === 'webhook_deliveries_due_idx')!.sql!, /WHERE status IN \('pending', 'sending'\)/);
    const plan = all<{ detail: string }>(
      sqlite,
      `EXPLAIN QUERY PLAN SELECT d.id, d.attempts FROM webhook_deliveries d
        WHERE d.endpoint_id = ? AND d.status = 'pending' AND d.status IN ('pending', 'sending') AND d.next_attempt_at <= ?`,
      'whe_a',
      at,
    );
    a.true(
      plan.some((p) => p.detail.includes('webhook_deliveries_due_idx')),
      JSON.stringify(plan),
    );
    a.deepEqual(
      all(
        sqlite,
        `SELECT d.id FROM webhook_deliveries d WHERE d.endpoint_id = ? AND d.status = 'pending' AND d.status IN ('pending', 'sending') AND d.next_attempt_at <= ?`,
        'whe_a',
        '2026-11-25T10:02:00.000Z',
      ),
      [{ id: 'whd_3' }],
    );
  } finally {
    await world.close();
  }
});

test('deleting the newest events after the upgrade lowers the cursor and since_seq, so the next event is fanned out', async (a) => {
  const world = await oldWorld(a);
  try {
    await upgrade(a, world);
    const { sqlite } = world.handle;
    a.is(cursorOf(sqlite), 6);
    a.deepEqual(sinceOf(sqlite), { whe_a: 6, whe_b: 7, whe_c: 6, whe_d: 14, whe_e: 14 });

    // Deleting an event that is not the newest changes nothing.
    sqlite.prepare("DELETE FROM events WHERE id = 'evt_a2'").run();
    a.is(cursorOf(sqlite), 6);
    a.deepEqual(sinceOf(sqlite), { whe_a: 6, whe_b: 7, whe_c: 6, whe_d: 14, whe_e: 14 });

    // A reset of ten_c (as the sandbox reset does, by tenant): its events include the newest (14); max(seq) is now 13.
    sqlite.prepare("DELETE FROM events WHERE tenant_id = 'ten_c'").run();
    a.is(all<{ m: number }>(sqlite, 'SELECT max(seq) AS m FROM events')[0]!.m, 13);
    a.is(cursorOf(sqlite), 6, 'below the new maximum: unchanged');
    a.deepEqual(sinceOf(sqlite), { whe_a: 6, whe_b: 7, whe_c: 6, whe_d: 13, whe_e: 13 });

    // Now the newest events down to below the cursor and every since_seq: max(seq) = 4.
    sqlite.prepare('DELETE FROM events WHERE seq > 4').run();
    a.is(all<{ m: number }>(sqlite, 'SELECT max(seq) AS m FROM events')[0]!.m, 4);
    a.is(cursorOf(sqlite), 4);
    a.deepEqual(sinceOf(sqlite), { whe_a: 4, whe_b: 4, whe_c: 4, whe_d: 4, whe_e: 4 });

    // The next event reuses seq 5: after the cursor and after since_seq, so it is fanned out.
    sqlite.prepare("INSERT INTO events (id, tenant_id, type, data, created_at) VALUES ('evt_new', 'ten_a', 'pet.registered', '{}', ?)").run(at);
    const [fresh] = all<{ seq: number }>(sqlite, "SELECT seq FROM events WHERE id = 'evt_new'");
    a.is(fresh!.seq, 5);
    a.true(fresh!.seq > cursorOf(sqlite));
    a.true(fresh!.seq > sinceOf(sqlite).whe_a! && fresh!.seq > sinceOf(sqlite).whe_b!);
    a.deepEqual(fannedOut(sqlite), { whe_a: ['evt_new'], whe_b: ['evt_new'], whe_c: [], whe_d: [] });

    // Emptying the table: everything back to 0, and the first event (seq 1) is new.
    sqlite.prepare('DELETE FROM events').run();
    a.is(cursorOf(sqlite), 0);
    a.deepEqual(sinceOf(sqlite), { whe_a: 0, whe_b: 0, whe_c: 0, whe_d: 0, whe_e: 0 });
    sqlite.prepare("INSERT INTO events (id, tenant_id, type, data, created_at) VALUES ('evt_first', 'ten_b', 'pet.registered', '{}', ?)").run(at);
    a.deepEqual(fannedOut(sqlite), { whe_a: [], whe_b: [], whe_c: ['evt_first'], whe_d: ['evt_first'] });
    a.deepEqual(all(sqlite, 'PRAGMA foreign_key_check'), []);
  } finally {
    await world.close();
  }
});

// ---------------------------------------------------------------- end to end, through the app

const config = { webhookAllowHosts: ['127.0.0.1'], jobPollMs: 20 };
const apps: TestApp[] = [];
const receivers: Receiver[] = [];

test.after.always(async () => {
  for (const app of apps) await app.close().catch(() => undefined);
  for (const r of receivers) await r.close();
});

test.serial('a data dir left at the old schema with queued events: after the upgrade the receiver gets exactly those events, once each', async (a) => {
  const r = await startReceiver();
  receivers.push(r);
  const first = await startTestApp({ config });
  apps.push(first);
  await createHousehold(first); // before the endpoint: never to be sent
  const endpoint = await createEndpoint(first, { url: r.url, events: ['pet.registered'] });
  await createHousehold(first); // after: sent by this process
  await r.waitFor(1);
  await waitForAttempts(first, endpoint.id, 1);
  const { dataDir, tenantId } = first;
  apps.splice(apps.indexOf(first), 1);
  await first.close({ keepData: true });
  const sentBefore = r.received.map((x) => x.body.id);
  a.is(sentBefore.length, 1);

  // Back to the old schema, and two events written by the old code (the restored trigger queues them).
  const handle = openDatabase(databaseFile(dataDir, 'live'));
  let olderIds: string[];
  let newIds: string[];
  let oldWorldQueued: string[];
  let oldWorldOwed: string[];
  let oldWorldState: string;
  try {
    const down = await createMigrator(handle.db).migrateTo(previous);
    a.falsy(down.error);
    // Later migrations go down first; these two last.
    a.deepEqual(
      down.results?.slice(-2).map((x) => [x.migrationName, x.direction, x.status]),
      [
        [next, 'Down', 'Success'],
        [migration, 'Down', 'Success'],
      ],
    );
    a.true(down.results?.every((x) => x.direction === 'Down' && x.status === 'Success'));
    const { sqlite } = handle;
    const names = all<{ name: string }>(sqlite, 'SELECT name FROM sqlite_master').map((x) => x.name);
    a.true(names.includes('webhook_event_queue') && names.includes('webhook_event_queue_insert') && !names.includes('webhook_fanout'));
    olderIds = all<{ id: string }>(sqlite, 'SELECT id FROM events ORDER BY rowid').map((x) => x.id);
    const template = all<{ id: string; data: string }>(
      sqlite,
      "SELECT id, data FROM events WHERE tenant_id = ? AND type = 'pet.registered' ORDER BY rowid DESC LIMIT 1",
      tenantId,
    )[0]!;
    const prefix = template.id.slice(0, template.id.indexOf('_'));
    newIds = [newId(prefix), newId(prefix)];
    const insert = sqlite.prepare("INSERT INTO events (id, tenant_id, type, data, created_at) VALUES (?, ?, 'pet.registered', ?, ?)");
    for (const id of newIds) insert.run(id, tenantId, template.data, new Date().toISOString());

    // The old world's promise, checked after the upgrade below (to show what the upgrade then does):
    // both are queued after the endpoint's since_seq, so the old dispatcher would send them.
    const since = all<{ since_seq: number }>(sqlite, 'SELECT since_seq FROM webhook_endpoints WHERE id = ?', endpoint.id)[0]!.since_seq;
    const mine = all<{ seq: number; event_id: string }>(sqlite, 'SELECT seq, event_id FROM webhook_event_queue ORDER BY seq').filter((q) =>
      newIds.includes(q.event_id),
    );
    oldWorldQueued = mine.map((q) => q.event_id);
    oldWorldOwed = mine.filter((q) => q.seq > since).map((q) => q.event_id);
    oldWorldState =
      `queue seqs ${JSON.stringify(mine.map((q) => q.seq))}, the endpoint's since_seq ${since}, ` +
      `sqlite_sequence ${JSON.stringify(all(sqlite, "SELECT rowid, name, seq FROM sqlite_sequence WHERE name = 'webhook_event_queue'"))}, ` +
      `max(events.seq) ${JSON.stringify(all<{ m: number }>(sqlite, 'SELECT max(rowid) AS m FROM events')[0]!.m)}`;
  } finally {
    await handle.db.destroy();
  }

  // The upgrade runs at start. One delivery pass fans out everything and claims every due attempt;
  // once none of the endpoint's deliveries is pending, sending or in flight, whatever will be sent was sent.
  const second = await startTestApp({ config, dataDir });
  apps.push(second);
  await deliveryPass(second);
  const live = second.stores.get('live').db;
  // Unfinished: a delivery row pending or sending, or a first attempt in flight (no row until it ends).
  const unfinished = async () =>
    (await live.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', endpoint.id).where('status', 'in', ['pending', 'sending']).execute())
      .length + second.app.webhooks.firstAttemptsInFlight('live', endpoint.id).length;
  await eventually(async () => (await unfinished()) === 0, { what: "the endpoint's deliveries to finish" });
  await deliveryPass(second);
  a.is(await unfinished(), 0);
  const afterUpgrade = r.received.slice(1).map((x) => x.body.id);
  a.deepEqual([...afterUpgrade].sort(), [...newIds].sort(), `exactly the two events queued in the old world, once each (old world: ${oldWorldState})`);
  a.is(r.received.length, 3, 'nothing else: no older event is sent again');
  a.false(afterUpgrade.some((id) => olderIds.includes(id)));
  a.deepEqual(oldWorldQueued, newIds, 'old world: both new events are queued by the restored trigger');
  a.deepEqual(oldWorldOwed, newIds, `old world: both are queued above the endpoint's since_seq (${oldWorldState})`);
  apps.splice(apps.indexOf(second), 1);
  await second.close();
});
