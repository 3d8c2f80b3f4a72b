import type { NotificationsTable } from './notifications.table.js';
import type { Channel, NotificationKind, NotificationOut, NotificationStatus } from './notifications.schema.js';

export const presentNotification = (row: NotificationsTable): NotificationOut => ({
  id: row.id,
  parentId: row.parent_id,
  petId: row.pet_id,
  locationId: row.location_id,
  channel: row.channel as Channel,
  kind: row.kind as NotificationKind,
  relatedId: row.related_id,
  to: row.to_address,
  subject: row.subject,
  body: row.body,
  status: row.status as NotificationStatus,
  attempts: row.attempts,
  lastError: row.last_error,
  nextAttemptAt: row.status === 'queued' ? row.next_attempt_at : null,
  sentAt: row.sent_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});
