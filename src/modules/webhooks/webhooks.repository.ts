import { sql } from 'kysely';
import { acrossTenants, scoped } from '../../db/access-policy.js';
import type { Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { ListAttemptsFilters } from './webhooks.schema.js';
import { claimedAttemptColumns, inFlightAttempt, live, liveDelivery } from './deliveries.repository.js';
import type { AttemptStatus, WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEndpointsTable } from './webhooks.table.js';

/** Endpoints are tenant-wide (the policy); deleted ones are gone for every caller. */
function visible(db: Executor, access: AccessFilter) {
  return scoped(db, access).selectFrom('webhook_endpoints').selectAll().where('deleted_at', 'is', null);
}

export async function findEndpoint(db: Executor, access: AccessFilter, id: string): Promise<WebhookEndpointsTable | null> {
  return (await visible(db, access).where('id', '=', id).executeTakeFirst()) ?? null;
}

export async function listEndpoints(db: Executor, access: AccessFilter, page: PageRequest, filters: { enabled?: boolean }): Promise<WebhookEndpointsTable[]> {
  let query = visible(db, access);
  if (filters.enabled !== undefined) query = query.where('enabled', '=', filters.enabled ? 1 : 0);
  return pageQuery(query, page).execute();
}

export async function enabledEndpoints(db: Executor, access: AccessFilter): Promise<WebhookEndpointsTable[]> {
  return visible(db, access).where('enabled', '=', 1).orderBy('id').execute();
}

export async function countEndpoints(db: Executor, access: AccessFilter): Promise<number> {
  const row = await scoped(db, access)
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertEndpoint(db: Executor, access: AccessFilter, row: WebhookEndpointsTable): Promise<void> {
  await scoped(db, access).insert('webhook_endpoints', row);
}

export async function updateEndpoint(db: Executor, access: AccessFilter, id: string, patch: Partial<WebhookEndpointsTable>): Promise<void> {
  await scoped(db, access).updateTable('webhook_endpoints').set(patch).where('id', '=', id).execute();
}

/** The newest events.seq: events up to here were committed before this call's transaction. */
export async function currentEventSeq(db: Executor): Promise<number> {
  const row = await sql<{ seq: number | null }>`SELECT max(seq) AS seq FROM events`.execute(
    acrossTenants(db, "the events' sequence is one counter for the whole environment (an endpoint starts after it)"),
  );
  return Number(row.rows[0]?.seq ?? 0);
}

export async function insertDeliveries(db: Executor, access: AccessFilter, rows: readonly WebhookDeliveriesTable[]): Promise<void> {
  // Chunks stay far below SQLite's bound-variable limit.
  for (let i = 0; i < rows.length; i += 200) await scoped(db, access).insert('webhook_deliveries', rows.slice(i, i + 200));
}

/** Deliveries waiting for an attempt stop: disabled or deleted endpoint. Ones in flight finish. */
export async function cancelPendingDeliveries(db: Executor, access: AccessFilter, endpointId: string, reason: string, now: string): Promise<void> {
  await scoped(db, access)
    .updateTable('webhook_deliveries')
    .set({ status: 'cancelled', last_error: reason, next_attempt_at: null, finished_at: now, updated_at: now })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .where(liveDelivery)
    .execute();
}

export type AttemptRow = WebhookAttemptsTable & { delivery_status: WebhookDeliveriesTable['status'] };

/**
 * An endpoint's attempts, newest first: the rows of ended attempts (written when they end) and the
 * ones in flight, read from their `sending` deliveries (`attempt_id`, claimed at `updated_at`), and
 * `firstInFlight`, the first attempts in flight that have no row yet (the dispatcher's memory).
 * Each side is paged by its own index and the pages are merged. An attempt whose delivery has no row
 * was a first attempt that succeeded: its delivery is `succeeded`.
 */
export async function listAttempts(
  db: Executor,
  access: AccessFilter,
  endpointId: string,
  page: PageRequest,
  filters: ListAttemptsFilters,
  firstInFlight: readonly WebhookAttemptsTable[] = [],
): Promise<AttemptRow[]> {
  let ended = scoped(db, access)
    .selectFrom('webhook_attempts as a')
    .leftJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .selectAll('a')
    .select(sql<WebhookDeliveriesTable['status']>`coalesce(d.status, 'succeeded')`.as('delivery_status'))
    .where('a.endpoint_id', '=', endpointId);
  if (filters.eventId !== undefined) ended = ended.where('a.event_id', '=', filters.eventId);
  if (filters.deliveryId !== undefined) ended = ended.where('a.delivery_id', '=', filters.deliveryId);
  if (filters.status !== undefined) ended = ended.where('a.status', '=', filters.status as AttemptStatus);
  const rows: AttemptRow[] = await pageQuery(ended, page, 'a.id').execute();
  if (filters.status !== undefined && filters.status !== 'in_flight') return rows;

  let inFlight = scoped(db, access)
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
    .select(claimedAttemptColumns)
    .where('d.endpoint_id', '=', endpointId)
    .where('d.status', '=', 'sending')
    .where(live)
    .where('d.attempt_id', 'is not', null);
  if (filters.eventId !== undefined) inFlight = inFlight.where('d.event_id', '=', filters.eventId);
  if (filters.deliveryId !== undefined) inFlight = inFlight.where('d.id', '=', filters.deliveryId);
  const sending = await pageQuery(inFlight, page, 'd.attempt_id').execute();
  const first = firstInFlight.filter(
    (a) =>
      a.tenant_id === access.tenantId &&
      (page.afterId === undefined || a.id < page.afterId) &&
      (filters.eventId === undefined || a.event_id === filters.eventId) &&
      (filters.deliveryId === undefined || a.delivery_id === filters.deliveryId),
  );
  if (sending.length === 0 && first.length === 0) return rows;
  for (const d of sending) rows.push({ ...inFlightAttempt(d, d.attempt_id!), delivery_status: 'sending' });
  for (const a of first) rows.push({ ...a, delivery_status: 'sending' });
  return rows.sort((x, y) => (x.id < y.id ? 1 : x.id > y.id ? -1 : 0)).slice(0, page.limit + 1);
}
