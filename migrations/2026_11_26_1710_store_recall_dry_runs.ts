import { sql, type Kysely } from 'kysely';

/**
 * A recall dry run is a stored campaign too (DESIGN §13: 201, `dryRun: true`, an id, readable at
 * GET /v1/ai/recall/{id}): `ai_recall_campaigns.dry_run` and `would_send`, and recipients may be
 * `would_send`. A dry run sends nothing, so it never holds a `sent` recipient and the campaign
 * never counts one; the one-message-per-pet+vaccine+due-date index still covers `sent` rows only.
 *
 * SQLite cannot change a CHECK in place: both tables are rebuilt (the new ones are filled, the old
 * ones dropped child first, then renamed, which carries the recipients' reference over to the new
 * campaigns table). One transaction, as a rebuild must not stop halfway.
 */
async function rebuild(db: Kysely<unknown>, withDryRuns: boolean): Promise<void> {
  const counts = withDryRuns
    ? `dry_run INTEGER NOT NULL DEFAULT 0 CHECK (dry_run IN (0, 1)),
      would_send INTEGER NOT NULL DEFAULT 0 CHECK (would_send >= 0),
      CHECK (sent + would_send + skipped = recipient_count),
      CHECK (dry_run = 1 OR would_send = 0),
      CHECK (dry_run = 0 OR sent = 0)`
    : 'CHECK (sent + skipped = recipient_count)';
  await sql`
    CREATE TABLE ai_recall_campaigns_rebuilt (
      id TEXT PRIMARY KEY,
      tenant_id TEXT NOT NULL REFERENCES tenants(id),
      location_id TEXT,
      scope_location_ids TEXT,
      vaccines TEXT,
      due_within_days INTEGER NOT NULL CHECK (due_within_days BETWEEN 0 AND 365),
      today TEXT NOT NULL,
      due_through TEXT NOT NULL,
      recipient_count INTEGER NOT NULL CHECK (recipient_count >= 0),
      sent INTEGER NOT NULL CHECK (sent >= 0),
      skipped INTEGER NOT NULL CHECK (skipped >= 0),
      created_by_client_id TEXT NOT NULL,
      created_at TEXT NOT NULL,
      ${sql.raw(counts)}
    )`.execute(db);
  const common =
    'id, tenant_id, location_id, scope_location_ids, vaccines, due_within_days, today, due_through, recipient_count, sent, skipped, created_by_client_id, created_at';
  await sql`INSERT INTO ai_recall_campaigns_rebuilt (${sql.raw(common)}) SELECT ${sql.raw(common)} FROM ai_recall_campaigns`.execute(db);

  const statuses = withDryRuns ? "'sent', 'would_send', 'skipped'" : "'sent', 'skipped'";
  await sql`
    CREATE TABLE ai_recall_recipients_rebuilt (
      campaign_id TEXT NOT NULL REFERENCES ai_recall_campaigns_rebuilt(id),
      position INTEGER NOT NULL,
      tenant_id TEXT NOT NULL,
      pet_id TEXT NOT NULL,
      parent_id TEXT NOT NULL,
      location_id TEXT NOT NULL,
      vaccination_id TEXT NOT NULL,
      vaccine TEXT NOT NULL,
      vaccine_key TEXT NOT NULL,
      due_on TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN (${sql.raw(statuses)})),
      reason TEXT CHECK (reason IN ('already_reminded', 'no_consent', 'no_email')),
      notification_id TEXT,
      CHECK ((status = 'skipped') = (reason IS NOT NULL)),
      CHECK ((status = 'sent') = (notification_id IS NOT NULL)),
      PRIMARY KEY (campaign_id, position),
      UNIQUE (campaign_id, pet_id, vaccine_key)
    ) WITHOUT ROWID`.execute(db);
  await sql`INSERT INTO ai_recall_recipients_rebuilt SELECT * FROM ai_recall_recipients`.execute(db);

  await sql`DROP TABLE ai_recall_recipients`.execute(db);
  await sql`DROP TABLE ai_recall_campaigns`.execute(db);
  await sql`ALTER TABLE ai_recall_campaigns_rebuilt RENAME TO ai_recall_campaigns`.execute(db);
  await sql`ALTER TABLE ai_recall_recipients_rebuilt RENAME TO ai_recall_recipients`.execute(db);
  await sql`CREATE INDEX ai_recall_campaigns_tenant_idx ON ai_recall_campaigns (tenant_id, id)`.execute(db);
  await sql`CREATE UNIQUE INDEX ai_recall_recipients_sent_once ON ai_recall_recipients (tenant_id, pet_id, vaccine_key, due_on) WHERE status = 'sent'`.execute(
    db,
  );
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.transaction().execute((trx) => rebuild(trx, true));
}

/** Back to campaigns that were sent: the old schema cannot hold a dry run, so stored dry runs go. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`DELETE FROM ai_recall_recipients WHERE campaign_id IN (SELECT id FROM ai_recall_campaigns WHERE dry_run = 1)`.execute(trx);
    await sql`DELETE FROM ai_recall_campaigns WHERE dry_run = 1`.execute(trx);
    await rebuild(trx, false);
  });
}
