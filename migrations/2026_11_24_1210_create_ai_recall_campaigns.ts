import { sql, type Kysely } from 'kysely';

/**
 * Vaccination recall campaigns (DESIGN §13, POST /v1/ai/recall): what was asked, who was selected
 * and what happened to each. The once-per-pet+vaccine+dueOn rule itself lives in reminder_ledger
 * (shared with the vaccination-reminders job); these rows are the campaign's record of it.
 * No foreign keys to pets or parents: a campaign is a record of what was sent (as notifications).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE ai_recall_campaigns (
      id TEXT PRIMARY KEY,
      tenant_id TEXT NOT NULL REFERENCES tenants(id),
      -- the location asked for (null: every location of the caller)
      location_id TEXT,
      -- JSON array of the locations the campaign covered; null: the whole tenant
      scope_location_ids TEXT,
      -- JSON array of the vaccine names asked for; null: every vaccine
      vaccines TEXT,
      due_within_days INTEGER NOT NULL CHECK (due_within_days BETWEEN 0 AND 365),
      today TEXT NOT NULL,
      due_through TEXT NOT NULL,
      recipient_count INTEGER NOT NULL CHECK (recipient_count >= 0),
      sent INTEGER NOT NULL CHECK (sent >= 0),
      skipped INTEGER NOT NULL CHECK (skipped >= 0),
      created_by_client_id TEXT NOT NULL,
      created_at TEXT NOT NULL,
      CHECK (sent + skipped = recipient_count)
    )`.execute(db);
  await sql`CREATE INDEX ai_recall_campaigns_tenant_idx ON ai_recall_campaigns (tenant_id, id)`.execute(db);

  await sql`
    CREATE TABLE ai_recall_recipients (
      campaign_id TEXT NOT NULL REFERENCES ai_recall_campaigns(id),
      position INTEGER NOT NULL,
      tenant_id TEXT NOT NULL,
      pet_id TEXT NOT NULL,
      parent_id TEXT NOT NULL,
      location_id TEXT NOT NULL,
      vaccination_id TEXT NOT NULL,
      vaccine TEXT NOT NULL,
      vaccine_key TEXT NOT NULL,
      due_on TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('sent', 'skipped')),
      reason TEXT CHECK (reason IN ('already_reminded', 'no_consent', 'no_email')),
      notification_id TEXT,
      CHECK ((status = 'sent') = (reason IS NULL)),
      CHECK ((status = 'sent') = (notification_id IS NOT NULL)),
      PRIMARY KEY (campaign_id, position),
      UNIQUE (campaign_id, pet_id, vaccine_key)
    ) WITHOUT ROWID`.execute(db);
  // One message per pet + vaccine + due date across every campaign: a second 'sent' row is refused.
  await sql`CREATE UNIQUE INDEX ai_recall_recipients_sent_once ON ai_recall_recipients (tenant_id, pet_id, vaccine_key, due_on) WHERE status = 'sent'`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS ai_recall_recipients`.execute(db);
  await sql`DROP TABLE IF EXISTS ai_recall_campaigns`.execute(db);
}
