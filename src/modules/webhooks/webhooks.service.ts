import type { Config } from '../../config.js';
import { SecretBox } from '../../db/secret-box.js';
import { acrossTenants, scoped } from '../../db/access-policy.js';
import type { Executor } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import type { Actor } from '../../http/actor.js';
import { conflict, foundOr404, missingReference, validationFailed } from '../../http/errors.js';
import { envelopeJson, eventsBetween, findEvent, testEventType } from '../events/index.js';
import { canonicalTypesFor, deliveredTypeFor } from './subscriptions.js';
import { newWebhookSecret } from './webhook-signature.js';
import {
  cancelPendingDeliveries,
  countEndpoints,
  currentEventSeq,
  enabledEndpoints,
  findEndpoint,
  insertDeliveries,
  insertEndpoint,
  updateEndpoint,
} from './webhooks.repository.js';
import { maxEndpointsPerEnvironment, maxReplayEvents, type CreateEndpointInput, type UpdateEndpointInput } from './webhooks.schema.js';
import type { DeliveryKind, WebhookDeliveriesTable, WebhookEndpointsTable } from './webhooks.table.js';
import { isoAt as iso } from '../../clock.js';

export async function getEndpoint(db: Executor, actor: Actor, id: string): Promise<WebhookEndpointsTable> {
  return foundOr404(await findEndpoint(db, actor, id), 'webhook endpoint', id);
}

/** An endpoint as written, with its new secret in clear for the one answer that shows it (the row holds it sealed). */
export interface EndpointWithSecret {
  row: WebhookEndpointsTable;
  secret: string;
}

/** The longest endpoint URL kept, as normalised (the schema's limit on what is sent). */
const maxUrlLength = 2048;

/**
 * The URL as stored and answered: its WHATWG serialisation (`new URL(x).href`), the form every
 * HTTP client sends, so raw `<`, `"`, `>` or spaces are percent-encoded and the host lower-cased
 * rather than kept as typed. The route has already checked it parses (the outbound policy).
 */
function normalisedUrl(raw: string): string {
  let href: string;
  try {
    href = new URL(raw).href;
  } catch {
    throw validationFailed([{ field: 'url', message: 'is not a valid URL' }]);
  }
  if (href.length > maxUrlLength)
    throw validationFailed([{ field: 'url', message: `is longer than ${maxUrlLength} characters once normalised (${href.length})` }]);
  return href;
}

export async function createEndpoint(db: Executor, actor: Actor, input: CreateEndpointInput, now: number, box: SecretBox): Promise<EndpointWithSecret> {
  if ((await countEndpoints(db, actor)) >= maxEndpointsPerEnvironment) {
    throw conflict(`An environment may have at most ${maxEndpointsPerEnvironment} webhook endpoints; delete one first.`);
  }
  const at = iso(now);
  const secret = newWebhookSecret();
  const row: WebhookEndpointsTable = {
    id: newId('whe'),
    tenant_id: actor.tenantId,
    url: normalisedUrl(input.url),
    description: input.description ?? null,
    events: JSON.stringify(input.events),
    enabled: 1,
    secret: box.seal(secret),
    previous_secret: null,
    previous_secret_expires_at: null,
    // Events committed before this transaction are not sent to the new endpoint (replay them if wanted).
    since_seq: await currentEventSeq(db),
    created_at: at,
    updated_at: at,
    deleted_at: null,
  };
  await insertEndpoint(db, actor, row);
  return { row, secret };
}

export async function patchEndpoint(db: Executor, actor: Actor, id: string, input: UpdateEndpointInput, now: number): Promise<WebhookEndpointsTable> {
  const existing = await getEndpoint(db, actor, id);
  const at = iso(now);
  const patch: Partial<WebhookEndpointsTable> = { updated_at: at };
  if (input.url !== undefined) patch.url = normalisedUrl(input.url);
  if (input.events !== undefined) patch.events = JSON.stringify(input.events);
  if (input.description !== undefined) patch.description = input.description;
  if (input.enabled !== undefined && (input.enabled ? 1 : 0) !== existing.enabled) {
    patch.enabled = input.enabled ? 1 : 0;
    if (input.enabled) patch.since_seq = await currentEventSeq(db);
    else await cancelPendingDeliveries(db, actor, id, 'endpoint disabled', at);
  }
  await updateEndpoint(db, actor, id, patch);
  return { ...existing, ...patch };
}

export async function deleteEndpoint(db: Executor, actor: Actor, id: string, now: number): Promise<void> {
  await getEndpoint(db, actor, id);
  const at = iso(now);
  // The row stays as the parent of its delivery history; its secrets go.
  await updateEndpoint(db, actor, id, {
    deleted_at: at,
    enabled: 0,
    secret: '',
    previous_secret: null,
    previous_secret_expires_at: null,
    updated_at: at,
  });
  await cancelPendingDeliveries(db, actor, id, 'endpoint deleted', at);
}

export async function rotateEndpointSecret(
  db: Executor,
  actor: Actor,
  id: string,
  expiresInHours: number | undefined,
  config: Pick<Config, 'webhookSecretOverlapHours'>,
  now: number,
  box: SecretBox,
): Promise<EndpointWithSecret> {
  const existing = await getEndpoint(db, actor, id);
  const hours = expiresInHours ?? config.webhookSecretOverlapHours;
  const secret = newWebhookSecret();
  // Only two secrets sign at once: a second rotation within the overlap retires the oldest.
  const patch: Partial<WebhookEndpointsTable> = {
    secret: box.seal(secret),
    previous_secret: hours > 0 ? existing.secret : null,
    previous_secret_expires_at: hours > 0 ? iso(now + hours * 3_600_000) : null,
    updated_at: iso(now),
  };
  await updateEndpoint(db, actor, id, patch);
  return { row: { ...existing, ...patch }, secret };
}

/** Seals the secrets an older release stored in clear (a housekeeping task); returns how many rows. */
export async function sealClearSecrets(db: Executor, box: SecretBox): Promise<number> {
  const rows = await acrossTenants(db, 'a housekeeping repair of the rows of every tenant')
    .selectFrom('webhook_endpoints')
    .select(['id', 'tenant_id', 'secret', 'previous_secret'])
    .where((eb) => eb.or([eb.and([eb('secret', '!=', ''), eb('secret', 'not like', 'sealed:%')]), eb('previous_secret', 'not like', 'sealed:%')]))
    .execute();
  for (const row of rows) {
    await scoped(db, { tenantId: row.tenant_id, locationIds: null })
      .updateTable('webhook_endpoints')
      .set({
        secret: row.secret === '' || SecretBox.isSealed(row.secret) ? row.secret : box.seal(row.secret),
        previous_secret: row.previous_secret === null || SecretBox.isSealed(row.previous_secret) ? row.previous_secret : box.seal(row.previous_secret),
      })
      .where('id', '=', row.id)
      .execute();
  }
  return rows.length;
}

/** A new pending delivery row of `endpoint` for event `eventId` (exported for tests that plant one). */
export function deliveryRow(
  endpoint: WebhookEndpointsTable,
  eventId: string,
  type: string,
  kind: DeliveryKind,
  now: number,
  payload: string | null = null,
): WebhookDeliveriesTable {
  const at = iso(now);
  return {
    id: newId('whd'),
    tenant_id: endpoint.tenant_id,
    endpoint_id: endpoint.id,
    event_id: eventId,
    event_type: type,
    kind,
    status: 'pending',
    attempts: 0,
    failures: 0,
    next_attempt_at: at,
    attempt_id: null,
    claimed_by: null,
    lease_until: null,
    payload,
    last_error: null,
    created_at: at,
    updated_at: at,
    finished_at: null,
  };
}

/** A synthetic, signed `webhook.test` event for one endpoint (enabled or not): attempted once, never retried. */
export async function queueTestEvent(db: Executor, actor: Actor, id: string, now: number) {
  const endpoint = await getEndpoint(db, actor, id);
  const eventId = newId('evt');
  const payload = envelopeJson(
    { id: eventId, created_at: iso(now), data: JSON.stringify({ endpointId: endpoint.id, message: 'A test event from the Pet-Care Platform.' }) },
    testEventType,
  );
  const row = deliveryRow(endpoint, eventId, testEventType, 'test', now, payload);
  await insertDeliveries(db, actor, [row]);
  return { deliveryId: row.id, endpointId: endpoint.id, eventId, type: testEventType };
}

/** Re-sends one event as new `replay` deliveries: to one endpoint, or to every enabled endpoint subscribed to it. */
export async function replayEvent(db: Executor, actor: Actor, eventId: string, endpointId: string | undefined, now: number) {
  const event = foundOr404(await findEvent(db, actor.tenantId, eventId), 'event', eventId);
  let targets: WebhookEndpointsTable[];
  if (endpointId !== undefined) {
    const endpoint = await findEndpoint(db, actor, endpointId);
    if (!endpoint) throw missingReference('endpointId', 'webhook endpoint', endpointId);
    if (endpoint.enabled !== 1) throw conflict(`Webhook endpoint '${endpointId}' is disabled; enable it before replaying to it.`);
    if (deliveredTypeFor(event.type, JSON.parse(endpoint.events) as string[]) === null) {
      throw conflict(`Webhook endpoint '${endpointId}' is not subscribed to ${event.type}.`);
    }
    targets = [endpoint];
  } else {
    targets = await enabledEndpoints(db, actor);
  }
  const rows: WebhookDeliveriesTable[] = [];
  for (const endpoint of targets) {
    const type = deliveredTypeFor(event.type, JSON.parse(endpoint.events) as string[]);
    if (type !== null) rows.push(deliveryRow(endpoint, event.id, type, 'replay', now));
  }
  await insertDeliveries(db, actor, rows);
  return { eventId: event.id, queued: rows.map((r) => ({ deliveryId: r.id, endpointId: r.endpoint_id, type: r.event_type })) };
}

/** Re-sends the endpoint's events created in [from, to), oldest first, at most maxReplayEvents per call. */
export async function replayRange(db: Executor, actor: Actor, endpointId: string, fromText: string, toText: string, now: number) {
  const endpoint = await getEndpoint(db, actor, endpointId);
  const from = new Date(fromText).toISOString();
  const to = new Date(toText).toISOString();
  if (from >= to) throw validationFailed([{ field: 'to', message: 'must be after from' }]);
  if (endpoint.enabled !== 1) throw conflict(`Webhook endpoint '${endpointId}' is disabled; enable it before replaying to it.`);
  const subscribed = JSON.parse(endpoint.events) as string[];
  // Filtering by type in SQL keeps the cap about matching events, not all events.
  const events = await eventsBetween(db, actor.tenantId, from, to, canonicalTypesFor(subscribed), maxReplayEvents + 1);
  let batch = events.slice(0, maxReplayEvents);
  let nextFrom: string | null = null;
  if (events.length > maxReplayEvents) {
    nextFrom = events[maxReplayEvents]!.created_at;
    // Stop before the instant the next call starts from, so no event is queued twice.
    const before = batch.filter((e) => e.created_at < nextFrom!);
    if (before.length > 0) batch = before;
    else {
      // More than a page of events share one instant: take that whole instant (however many), and
      // continue after it, so following nextFrom always moves on.
      const instant = nextFrom;
      const after = new Date(Date.parse(instant) + 1).toISOString();
      batch = await eventsBetween(db, actor.tenantId, instant, after, canonicalTypesFor(subscribed), Number.MAX_SAFE_INTEGER);
      nextFrom = after < to ? after : null;
    }
  }
  const rows: WebhookDeliveriesTable[] = [];
  for (const event of batch) {
    const type = deliveredTypeFor(event.type, subscribed);
    if (type !== null) rows.push(deliveryRow(endpoint, event.id, type, 'replay', now));
  }
  await insertDeliveries(db, actor, rows);
  return {
    endpointId: endpoint.id,
    from,
    to,
    queued: rows.length,
    firstEventId: batch[0]?.id ?? null,
    lastEventId: batch[batch.length - 1]?.id ?? null,
    hasMore: nextFrom !== null,
    nextFrom,
  };
}
