import type { Static } from '@sinclair/typebox';
import type { AttemptRow } from './webhooks.repository.js';
import type { AttemptSchema, EndpointSchema, EndpointWithSecretSchema } from './webhooks.schema.js';
import type { WebhookEndpointsTable } from './webhooks.table.js';

/** Never the secret: it is shown only by presentEndpointWithSecret (create and rotate). */
export const presentEndpoint = (row: WebhookEndpointsTable): Static<typeof EndpointSchema> => ({
  id: row.id,
  url: row.url,
  description: row.description,
  events: JSON.parse(row.events) as string[],
  enabled: row.enabled === 1,
  previousSecretExpiresAt: row.previous_secret !== null ? row.previous_secret_expires_at : null,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export const presentEndpointWithSecret = ({ row, secret }: { row: WebhookEndpointsTable; secret: string }): Static<typeof EndpointWithSecretSchema> => ({
  ...presentEndpoint(row),
  secret,
});

export const presentAttempt = (row: AttemptRow): Static<typeof AttemptSchema> => ({
  id: row.id,
  deliveryId: row.delivery_id,
  endpointId: row.endpoint_id,
  eventId: row.event_id,
  type: row.event_type,
  kind: row.kind,
  attempt: row.attempt,
  status: row.status,
  deliveryStatus: row.delivery_status,
  url: row.url,
  startedAt: row.started_at,
  finishedAt: row.finished_at,
  latencyMs: row.latency_ms,
  responseStatus: row.response_status,
  responseBody: row.response_excerpt,
  error: row.error,
  nextRetryAt: row.next_retry_at,
});
