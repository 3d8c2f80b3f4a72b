import type { AiRecallCampaignsTable, AiRecallRecipientsTable } from './recall.table.js';
import type { RecallCampaign, RecallRecipient, RecallSummary } from './recall.schema.js';

export const presentRecallRecipient = (row: AiRecallRecipientsTable): RecallRecipient => ({
  parentId: row.parent_id,
  petId: row.pet_id,
  vaccine: row.vaccine,
  dueOn: row.due_on,
  vaccinationId: row.vaccination_id,
  locationId: row.location_id,
  status: row.status,
  reason: row.reason,
  notificationId: row.notification_id,
});

/** A campaign with its recipients (a dry run too: it is stored as what would have happened). */
export const presentRecallCampaign = (row: AiRecallCampaignsTable, recipients: readonly AiRecallRecipientsTable[]): RecallCampaign => ({
  id: row.id,
  dryRun: row.dry_run === 1,
  locationId: row.location_id,
  vaccines: row.vaccines === null ? null : (JSON.parse(row.vaccines) as string[]),
  dueWithinDays: row.due_within_days,
  today: row.today,
  dueThrough: row.due_through,
  recipients: recipients.map(presentRecallRecipient),
  sent: row.sent,
  wouldSend: row.would_send,
  skipped: row.skipped,
  createdAt: row.created_at,
});

export const presentRecallSummary = (row: AiRecallCampaignsTable): RecallSummary => ({
  id: row.id,
  dryRun: row.dry_run === 1,
  locationId: row.location_id,
  vaccines: row.vaccines === null ? null : (JSON.parse(row.vaccines) as string[]),
  dueWithinDays: row.due_within_days,
  today: row.today,
  dueThrough: row.due_through,
  recipientCount: row.recipient_count,
  sent: row.sent,
  wouldSend: row.would_send,
  skipped: row.skipped,
  createdAt: row.created_at,
});
