import { sql, type Kysely } from 'kysely';

// Migrations are frozen in time: they use Kysely<unknown>, never the app's Database type.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Secrets are kept in the clear: they must sign every delivery (a hash could not).
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    // JSON array of canonical types, aliases and/or "*", as subscribed
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('secret', 'text', (c) => c.notNull())
    // the secret before the last rotation, still signing until previous_secret_expires_at
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_expires_at', 'text')
    // events queued at or before this outbox sequence predate the endpoint (or its re-enabling)
    .addColumn('since_seq', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    // deleted endpoints stay as the parent of their delivery history (secret wiped)
    .addColumn('deleted_at', 'text')
    .execute();
  await db.schema.createIndex('webhook_endpoints_tenant_idx').on('webhook_endpoints').columns(['tenant_id', 'id']).execute();

  // The fan-out queue: one row per event committed while an endpoint is enabled, written by a
  // trigger in the emitting transaction. AUTOINCREMENT keeps the sequence strictly increasing
  // in commit order and never reused, even after the sandbox reset deletes events.
  await db.schema
    .createTable('webhook_event_queue')
    .addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .execute();
  await sql`
    CREATE TRIGGER webhook_event_queue_insert AFTER INSERT ON events
    WHEN EXISTS (SELECT 1 FROM webhook_endpoints WHERE tenant_id = NEW.tenant_id AND enabled = 1 AND deleted_at IS NULL)
    BEGIN
      INSERT INTO webhook_event_queue (event_id) VALUES (NEW.id);
    END`.execute(db);

  // One event (or a replay of it, or a test event) on its way to one endpoint. No foreign key to
  // events: the sandbox reset may delete the event first (the delivery is then cancelled).
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.id'))
    .addColumn('event_id', 'text', (c) => c.notNull())
    // the name delivered (canonical, or the alias the endpoint subscribed by)
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('event', 'replay', 'test')`))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'sending', 'succeeded', 'failed', 'cancelled')`))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    // failed attempts so far: the nth failure waits the nth value of the retry schedule
    .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text')
    // the dispatcher instance holding a `sending` delivery: another instance's claim was cut by a restart
    .addColumn('claimed_by', 'text')
    .addColumn('lease_until', 'text')
    // the whole envelope of a synthetic event (webhook.test), which has no row in `events`
    .addColumn('payload', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute();
  // An endpoint's deliveries by state and due time, in claim order: the dispatcher's scans (due
  // now, in flight) read no other endpoint's backlog and need no sort. The one index kept lean on
  // purpose: every delivery writes it several times. Fan-out runs in one transaction with the
  // removal of its queue rows, so an (endpoint, event) pair is written once without a unique index.
  await db.schema.createIndex('webhook_deliveries_due_idx').on('webhook_deliveries').columns(['endpoint_id', 'status', 'next_attempt_at', 'id']).execute();

  // Every attempt, written `in_flight` before the request leaves (the claim), then finished.
  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id'))
    .addColumn('endpoint_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('in_flight', 'succeeded', 'failed', 'interrupted')`))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .addColumn('latency_ms', 'real')
    .addColumn('response_status', 'integer')
    .addColumn('response_excerpt', 'text')
    .addColumn('error', 'text')
    .addColumn('next_retry_at', 'text')
    .addUniqueConstraint('webhook_attempts_number_uq', ['delivery_id', 'attempt'])
    .execute();
  await db.schema.createIndex('webhook_attempts_endpoint_idx').on('webhook_attempts').columns(['endpoint_id', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS webhook_event_queue_insert`.execute(db);
  for (const table of ['webhook_attempts', 'webhook_deliveries', 'webhook_event_queue', 'webhook_endpoints']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
