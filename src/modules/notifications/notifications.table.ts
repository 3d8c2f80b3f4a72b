/** Tables of the notifications module (rows follow the conventions at the top of src/db/database.ts). */

/** One message to a pet parent; also the mail outbox (status `queued` until delivered). */
export interface NotificationsTable {
  id: string;
  tenant_id: string;
  /** The parent's location when queued (location scoping). */
  location_id: string;
  parent_id: string;
  pet_id: string | null;
  /** email (sms may follow) */
  channel: string;
  /** manual | vaccination_reminder | appointment_reminder */
  kind: string;
  /** The vaccination (vac_…) or appointment (apt_…) a reminder is about. */
  related_id: string | null;
  /** The address at the time it was queued. */
  to_address: string;
  subject: string;
  body: string;
  /** queued | sent | failed */
  status: string;
  attempts: number;
  last_error: string | null;
  /** ISO UTC: not sent before this instant (retries move it forward). */
  next_attempt_at: string;
  lease_until: string | null;
  lease_token: string | null;
  sent_at: string | null;
  /** The SMTP server's message id, when it gave one. */
  provider_message_id: string | null;
  /** The API client that queued it; null for reminders queued by a job. */
  created_by_client_id: string | null;
  created_at: string;
  updated_at: string;
}

/** Reminders that fell due, once each (reminders module; created by the same migration). */
export interface ReminderLedgerTable {
  tenant_id: string;
  /** vaccination | appointment */
  kind: string;
  /** vaccination: pet_id|vaccine_key|due_on; appointment: appointment_id|starts_at */
  reminder_key: string;
  related_id: string;
  pet_id: string;
  event_id: string | null;
  notification_id: string | null;
  /** notified | no_consent | no_email */
  outcome: string;
  created_at: string;
}

export interface NotificationsTables {
  notifications: NotificationsTable;
  reminder_ledger: ReminderLedgerTable;
}
