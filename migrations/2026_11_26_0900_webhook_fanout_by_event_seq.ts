import { sql, type Kysely } from 'kysely';

/**
 * Webhook fan-out reads the events table in commit order instead of a queue the emitting
 * transaction wrote. The queue cost every event two more writes in the API's own transaction (the
 * queue row by trigger and AUTOINCREMENT's sqlite_sequence row, ~15 µs of CPU and two more WAL
 * pages per write request) only to be read and deleted a few milliseconds later.
 *
 * - `events.seq` INTEGER PRIMARY KEY: the rowid, named. SQLite gives a new row max(seq) + 1 and
 *   allows one writer at a time, so seq order is commit order; VACUUM keeps an INTEGER PRIMARY KEY
 *   (it may renumber a plain rowid). The table is rebuilt to have it, keeping every rowid.
 * - `webhook_fanout.last_seq`: events up to here were fanned out (one row, written once per
 *   dispatcher pass, not per event).
 * - `webhook_endpoints.since_seq` now counts in events.seq (was the queue's sequence).
 * - Deleting the newest events (the sandbox reset) would let new events reuse their seq: a trigger
 *   then lowers the cursor and every since_seq to the new maximum, so no new event is taken as old.
 * - `webhook_deliveries.attempt_id`: the id of the attempt a `sending` delivery has in flight. The
 *   attempt row is now written once, when the attempt ends (it was written in_flight at the claim
 *   and updated at the end); until then the listing shows it from the delivery, and a restart's
 *   recovery writes it as interrupted.
 * - `webhook_deliveries_due_idx` holds only deliveries still to send (pending, sending): the
 *   dispatcher's scans never read the others, and a delivery that succeeds leaves the index
 *   instead of moving in it. Queries name `status IN ('pending', 'sending')` to use it.
 * - `webhook_attempts` becomes WITHOUT ROWID, keyed by (endpoint_id, id), the listing's order: two
 *   b-trees written per attempt instead of four (rowid, id, endpoint and number indexes).
 * One transaction: the migrator runs SQLite migrations without one, and a stop halfway through a
 * table rebuild must not leave half a schema.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.transaction().execute((trx) => upInTransaction(trx));
}

async function upInTransaction(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS webhook_event_queue_insert`.execute(db);

  await sql`
    CREATE TABLE events_by_seq (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      tenant_id TEXT NOT NULL,
      type TEXT NOT NULL,
      data TEXT NOT NULL,
      created_at TEXT NOT NULL
    )`.execute(db);
  await sql`INSERT INTO events_by_seq (seq, id, tenant_id, type, data, created_at) SELECT rowid, id, tenant_id, type, data, created_at FROM events ORDER BY rowid`.execute(
    db,
  );
  await sql`DROP TABLE events`.execute(db);
  await sql`ALTER TABLE events_by_seq RENAME TO events`.execute(db);
  await sql`CREATE INDEX events_type_idx ON events (tenant_id, type, id)`.execute(db);

  // The cursor: just before the oldest event still queued, else every event so far was fanned out.
  await sql`CREATE TABLE webhook_fanout (id INTEGER PRIMARY KEY CHECK (id = 1), last_seq INTEGER NOT NULL)`.execute(db);
  await sql`
    INSERT INTO webhook_fanout (id, last_seq) VALUES (1, COALESCE(
      (SELECT min(e.seq) - 1 FROM webhook_event_queue q JOIN events e ON e.id = q.event_id),
      (SELECT max(seq) FROM events),
      0))`.execute(db);
  // An endpoint gets the queued events after its since_seq: in seq terms, those from the first such one on.
  await sql`
    UPDATE webhook_endpoints SET since_seq = COALESCE(
      (SELECT min(e.seq) - 1 FROM webhook_event_queue q JOIN events e ON e.id = q.event_id WHERE q.seq > webhook_endpoints.since_seq),
      (SELECT max(seq) FROM events),
      0)`.execute(db);
  await sql`DROP TABLE webhook_event_queue`.execute(db);

  await sql`
    CREATE TRIGGER events_delete_newest AFTER DELETE ON events
    WHEN OLD.seq > COALESCE((SELECT max(seq) FROM events), 0)
    BEGIN
      UPDATE webhook_fanout SET last_seq = COALESCE((SELECT max(seq) FROM events), 0) WHERE last_seq > COALESCE((SELECT max(seq) FROM events), 0);
      UPDATE webhook_endpoints SET since_seq = COALESCE((SELECT max(seq) FROM events), 0) WHERE since_seq > COALESCE((SELECT max(seq) FROM events), 0);
    END`.execute(db);

  await sql`ALTER TABLE webhook_deliveries ADD COLUMN attempt_id TEXT`.execute(db);
  await sql`DROP INDEX webhook_deliveries_due_idx`.execute(db);
  await sql`
    CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (endpoint_id, status, next_attempt_at, id)
    WHERE status IN ('pending', 'sending')`.execute(db);

  await sql`
    CREATE TABLE webhook_attempts_by_endpoint (
      id TEXT NOT NULL,
      tenant_id TEXT NOT NULL,
      delivery_id TEXT NOT NULL REFERENCES webhook_deliveries (id),
      endpoint_id TEXT NOT NULL,
      event_id TEXT NOT NULL,
      event_type TEXT NOT NULL,
      kind TEXT NOT NULL,
      attempt INTEGER NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('in_flight', 'succeeded', 'failed', 'interrupted')),
      url TEXT NOT NULL,
      started_at TEXT NOT NULL,
      finished_at TEXT,
      latency_ms REAL,
      response_status INTEGER,
      response_excerpt TEXT,
      error TEXT,
      next_retry_at TEXT,
      PRIMARY KEY (endpoint_id, id),
      CONSTRAINT webhook_attempts_number_uq UNIQUE (delivery_id, attempt)
    ) WITHOUT ROWID`.execute(db);
  await sql`INSERT INTO webhook_attempts_by_endpoint SELECT id, tenant_id, delivery_id, endpoint_id, event_id, event_type, kind, attempt, status, url, started_at,
              finished_at, latency_ms, response_status, response_excerpt, error, next_retry_at FROM webhook_attempts`.execute(db);
  await sql`DROP TABLE webhook_attempts`.execute(db);
  await sql`ALTER TABLE webhook_attempts_by_endpoint RENAME TO webhook_attempts`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.transaction().execute((trx) => downInTransaction(trx));
}

async function downInTransaction(db: Kysely<unknown>): Promise<void> {
  // webhook_attempts stays WITHOUT ROWID: the older code reads and writes it the same way.
  await sql`DROP INDEX webhook_deliveries_due_idx`.execute(db);
  await sql`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (endpoint_id, status, next_attempt_at, id)`.execute(db);
  await sql`ALTER TABLE webhook_deliveries DROP COLUMN attempt_id`.execute(db);
  await sql`DROP TRIGGER IF EXISTS events_delete_newest`.execute(db);
  await sql`CREATE TABLE webhook_event_queue (seq INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL)`.execute(db);
  // Events after the cursor are queued again; endpoints keep seeing only events after their since_seq.
  await sql`INSERT INTO webhook_event_queue (seq, event_id) SELECT seq, id FROM events WHERE seq > (SELECT last_seq FROM webhook_fanout WHERE id = 1) ORDER BY seq`.execute(
    db,
  );
  // sqlite_sequence has no unique name: the INSERT above may have written the queue's row already,
  // and AUTOINCREMENT reads the first one. One row, at the newest event (since_seq counts in seq).
  await sql`DELETE FROM sqlite_sequence WHERE name = 'webhook_event_queue'`.execute(db);
  await sql`INSERT INTO sqlite_sequence (name, seq) VALUES ('webhook_event_queue', COALESCE((SELECT max(seq) FROM events), 0))`.execute(db);
  await sql`DROP TABLE webhook_fanout`.execute(db);
  await sql`
    CREATE TRIGGER webhook_event_queue_insert AFTER INSERT ON events
    WHEN EXISTS (SELECT 1 FROM webhook_endpoints WHERE tenant_id = NEW.tenant_id AND enabled = 1 AND deleted_at IS NULL)
    BEGIN
      INSERT INTO webhook_event_queue (event_id) VALUES (NEW.id);
    END`.execute(db);
}
