import type { AiRecallCampaignsTable, AiRecallRecipientsTable } from './recall.table.js';
import type { RecallCampaign, RecallRecipient, RecallSummary } from './recall.schema.js';

/** A recipient as stored, or as a dry run would store it (status would_send). */
export type RecipientRow = Omit<AiRecallRecipientsTable, 'status'> & { status: RecallRecipient['status'] };

export const presentRecallRecipient = (row: RecipientRow): RecallRecipient => ({
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

/** A campaign with its recipients; a dry run's was never stored, so it has no id and no creation time. */
export const presentRecallCampaign = (row: AiRecallCampaignsTable, recipients: readonly RecipientRow[], dryRun = false): RecallCampaign => ({
  id: dryRun ? null : row.id,
  dryRun,
  locationId: row.location_id,
  vaccines: row.vaccines === null ? null : (JSON.parse(row.vaccines) as string[]),
  dueWithinDays: row.due_within_days,
  today: row.today,
  dueThrough: row.due_through,
  recipients: recipients.map(presentRecallRecipient),
  sent: row.sent,
  wouldSend: dryRun ? recipients.filter((r) => r.status === 'would_send').length : 0,
  skipped: row.skipped,
  createdAt: dryRun ? null : row.created_at,
});

export const presentRecallSummary = (row: AiRecallCampaignsTable): RecallSummary => ({
  id: row.id,
  locationId: row.location_id,
  vaccines: row.vaccines === null ? null : (JSON.parse(row.vaccines) as string[]),
  dueWithinDays: row.due_within_days,
  today: row.today,
  dueThrough: row.due_through,
  recipientCount: row.recipient_count,
  sent: row.sent,
  skipped: row.skipped,
  createdAt: row.created_at,
});
