import { sql, type Kysely } from 'kysely';

/**
 * A webhook delivery's first attempt is written once, when it ends, and one that succeeds is one
 * row: its attempt. Before, every delivery cost three row writes on the API's thread (the delivery
 * inserted `sending` at the claim, updated at the answer, and the attempt row), ~25 µs of CPU per
 * event delivered on the bench VM; now a success costs one (~9 µs).
 *
 * - `webhook_attempts.delivery_id` no longer references `webhook_deliveries`: a delivery whose first
 *   attempt succeeded has no row there (its status is `succeeded`, read from the attempt). A
 *   delivery row exists for everything with state to keep: retries due, failures, replays, tests.
 * - `webhook_fanout.recorded_seq`: every delivery of events up to here is on disk (a row, or an
 *   attempt). The fan-out cursor (`last_seq`) runs ahead of it by the first attempts in flight,
 *   which live in the dispatcher's memory until they end. A process that stops without recording
 *   them (a hard kill) leaves `recorded_seq < last_seq`: the next start fans those events out again
 *   to the endpoints that have no delivery of them (at-least-once; receivers dedupe on the event id).
 * - The trigger that lowers the cursors when the newest events are deleted lowers this one too.
 * One transaction, as the table rebuild must not stop halfway.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`ALTER TABLE webhook_fanout ADD COLUMN recorded_seq INTEGER NOT NULL DEFAULT 0`.execute(trx);
    await sql`UPDATE webhook_fanout SET recorded_seq = last_seq`.execute(trx);
    await replaceTrigger(trx, true);
    await rebuildAttempts(trx, false);
  });
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // The older code finds every delivery in webhook_deliveries: an attempt-only delivery gets its row back.
    await sql`
      INSERT INTO webhook_deliveries (id, tenant_id, endpoint_id, event_id, event_type, kind, status, attempts, failures, next_attempt_at,
                                      claimed_by, lease_until, payload, last_error, created_at, updated_at, finished_at, attempt_id)
      SELECT a.delivery_id, a.tenant_id, a.endpoint_id, a.event_id, a.event_type, a.kind, 'succeeded', a.attempt, 0, NULL,
             NULL, NULL, NULL, NULL, a.started_at, a.finished_at, a.finished_at, a.id
        FROM webhook_attempts a
       WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = a.delivery_id)`.execute(trx);
    await rebuildAttempts(trx, true);
    await replaceTrigger(trx, false);
    await sql`ALTER TABLE webhook_fanout DROP COLUMN recorded_seq`.execute(trx);
  });
}

async function replaceTrigger(db: Kysely<unknown>, withRecorded: boolean): Promise<void> {
  const newest = 'COALESCE((SELECT max(seq) FROM events), 0)';
  const recorded = withRecorded ? `, recorded_seq = min(recorded_seq, ${newest})` : '';
  await sql`DROP TRIGGER IF EXISTS events_delete_newest`.execute(db);
  await sql`
    CREATE TRIGGER events_delete_newest AFTER DELETE ON events
    WHEN OLD.seq > ${sql.raw(newest)}
    BEGIN
      UPDATE webhook_fanout SET last_seq = min(last_seq, ${sql.raw(newest)})${sql.raw(recorded)} WHERE last_seq > ${sql.raw(newest)};
      UPDATE webhook_endpoints SET since_seq = ${sql.raw(newest)} WHERE since_seq > ${sql.raw(newest)};
    END`.execute(db);
}

async function rebuildAttempts(db: Kysely<unknown>, withForeignKey: boolean): Promise<void> {
  const reference = withForeignKey ? 'REFERENCES webhook_deliveries (id)' : '';
  await sql`
    CREATE TABLE webhook_attempts_rebuilt (
      id TEXT NOT NULL,
      tenant_id TEXT NOT NULL,
      delivery_id TEXT NOT NULL ${sql.raw(reference)},
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
  await sql`INSERT INTO webhook_attempts_rebuilt SELECT id, tenant_id, delivery_id, endpoint_id, event_id, event_type, kind, attempt, status, url, started_at,
              finished_at, latency_ms, response_status, response_excerpt, error, next_retry_at FROM webhook_attempts`.execute(db);
  await sql`DROP TABLE webhook_attempts`.execute(db);
  await sql`ALTER TABLE webhook_attempts_rebuilt RENAME TO webhook_attempts`.execute(db);
}
