/** Tables of the webhooks module (rows follow the conventions at the top of src/db/database.ts). */

/** A subscriber URL (whe_…). Soft-deleted: the row stays as the parent of its delivery history. */
export interface WebhookEndpointsTable {
  id: string;
  tenant_id: string;
  url: string;
  description: string | null;
  /** JSON array of canonical types, aliases and/or "*", as subscribed. */
  events: string;
  enabled: number;
  /** whsec_…, in the clear: it must sign every delivery. */
  secret: string;
  /** The secret before the last rotation; it keeps signing until previous_secret_expires_at. */
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  /** events.seq when the endpoint was created or re-enabled: older events are not fanned out to it. */
  since_seq: number;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

/**
 * One row: events up to `last_seq` (events.seq) were fanned out to the endpoints of their time, and
 * every delivery of events up to `recorded_seq` is on disk (a delivery row or its attempt). Between
 * the two are first attempts in flight, held in the dispatcher's memory until they end.
 */
export interface WebhookFanoutTable {
  id: number;
  last_seq: number;
  recorded_seq: number;
}

export type DeliveryKind = 'event' | 'replay' | 'test';

/**
 * The condition of webhook_deliveries_due_idx, a partial index of the deliveries still to send
 * (a succeeded delivery leaves it): a query must name it as written to use the index, since
 * SQLite does not infer it from `status = 'pending'`.
 */
export const liveDeliveryCondition = "status IN ('pending', 'sending')";

/**
 * The events.seq fan-out reads after: the cursor, or the oldest live endpoint's since_seq when that
 * is newer (older events go to no endpoint). Without a live endpoint, past every event.
 */
export const fanOutAfter = `max((SELECT last_seq FROM webhook_fanout WHERE id = 1),
  COALESCE((SELECT min(since_seq) FROM webhook_endpoints WHERE enabled = 1 AND deleted_at IS NULL), 9007199254740991))`;
export type DeliveryStatus = 'pending' | 'sending' | 'succeeded' | 'failed' | 'cancelled';
export type AttemptStatus = 'in_flight' | 'succeeded' | 'failed' | 'interrupted';

/**
 * One event (or a replay of it, or a test event) on its way to one endpoint (whd_…). A delivery
 * whose first attempt succeeded has no row: its attempt (same delivery_id) says all there is.
 */
export interface WebhookDeliveriesTable {
  id: string;
  tenant_id: string;
  endpoint_id: string;
  event_id: string;
  /** The name delivered: canonical, or the alias the endpoint subscribed by. */
  event_type: string;
  kind: DeliveryKind;
  status: DeliveryStatus;
  attempts: number;
  /** Failed attempts so far (an attempt cut by a restart is not counted). */
  failures: number;
  /** When the next attempt is due (pending deliveries), ISO UTC. */
  next_attempt_at: string | null;
  /** The id of the attempt a `sending` delivery has in flight (its row is written when it ends). */
  attempt_id: string | null;
  /** The dispatcher instance that holds a `sending` delivery. */
  claimed_by: string | null;
  lease_until: string | null;
  /** The complete envelope of a synthetic event (webhook.test); null: built from the `events` row. */
  payload: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

/**
 * One HTTP attempt of a delivery (wha_…), written when it ends; the one in flight is the delivery's
 * `attempt_id`, or for a first attempt the dispatcher's memory (databases of releases before
 * 2026-11-26 may hold `in_flight` rows). `delivery_id` may name no row (a first attempt that succeeded).
 */
export interface WebhookAttemptsTable {
  id: string;
  tenant_id: string;
  delivery_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  kind: DeliveryKind;
  attempt: number;
  status: AttemptStatus;
  /** The URL the attempt went to (the endpoint's URL may change later). */
  url: string;
  started_at: string;
  finished_at: string | null;
  latency_ms: number | null;
  response_status: number | null;
  /** The first bytes of the response body (at most 64 KiB are read). */
  response_excerpt: string | null;
  error: string | null;
  /** When the delivery's next attempt is due after this failed one; null if none follows. */
  next_retry_at: string | null;
}

export interface WebhooksTables {
  webhook_endpoints: WebhookEndpointsTable;
  webhook_fanout: WebhookFanoutTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}
