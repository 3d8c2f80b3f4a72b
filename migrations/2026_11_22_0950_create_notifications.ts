import { sql, type Kysely } from 'kysely';

// Migrations are frozen in time: they use Kysely<unknown>, never the app's Database type.
export async function up(db: Kysely<unknown>): Promise<void> {
  // The notification log doubles as the mail outbox: a row is written `queued` in the caller's
  // transaction and the delivery job sends it later. No foreign keys to parents, pets or
  // locations: the log is a record of what was sent and the sandbox reset may clear those first.
  await db.schema
    .createTable('notifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    // the parent's location when queued: location-scoped clients see their locations' messages
    .addColumn('location_id', 'text', (c) => c.notNull())
    .addColumn('parent_id', 'text', (c) => c.notNull())
    .addColumn('pet_id', 'text')
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('manual', 'vaccination_reminder', 'appointment_reminder')`))
    // the vaccination (vac_) or appointment (apt_) a reminder is about
    .addColumn('related_id', 'text')
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('queued', 'sent', 'failed', 'cancelled')`))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    // a delivery in flight holds the row until lease_until; lease_token proves which one
    .addColumn('lease_until', 'text')
    .addColumn('lease_token', 'text')
    .addColumn('sent_at', 'text')
    .addColumn('provider_message_id', 'text')
    .addColumn('created_by_client_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('notifications_tenant_idx').on('notifications').columns(['tenant_id', 'id']).execute();
  await db.schema.createIndex('notifications_parent_idx').on('notifications').columns(['tenant_id', 'parent_id', 'id']).execute();
  // the delivery job's scan: queued rows by due time
  await db.schema.createIndex('notifications_due_idx').on('notifications').columns(['status', 'next_attempt_at']).execute();

  // Once-only reminders: one row per reminder that fell due, written in the same transaction as
  // its event and notification. The unique key makes a second run (or a concurrent one) a no-op.
  await db.schema
    .createTable('reminder_ledger')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('vaccination', 'appointment')`))
    // vaccination: pet_id|vaccine_key|due_on; appointment: appointment_id|starts_at
    .addColumn('reminder_key', 'text', (c) => c.notNull())
    .addColumn('related_id', 'text', (c) => c.notNull())
    .addColumn('pet_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text')
    .addColumn('notification_id', 'text')
    // notified | no_consent | no_email: decided when the reminder fell due
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('reminder_ledger_pk', ['tenant_id', 'kind', 'reminder_key'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('reminder_ledger').ifExists().execute();
  await db.schema.dropTable('notifications').ifExists().execute();
}
