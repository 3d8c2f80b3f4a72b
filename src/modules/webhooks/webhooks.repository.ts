import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { ListAttemptsFilters } from './webhooks.schema.js';
import type { AttemptStatus, WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEndpointsTable } from './webhooks.table.js';

/** Endpoints are tenant-wide; deleted ones are gone for every caller. */
function visible(db: Executor, tenantId: string) {
  return db.selectFrom('webhook_endpoints').selectAll().where('tenant_id', '=', tenantId).where('deleted_at', 'is', null);
}

export async function findEndpoint(db: Executor, tenantId: string, id: string): Promise<WebhookEndpointsTable | null> {
  return (await visible(db, tenantId).where('id', '=', id).executeTakeFirst()) ?? null;
}

export async function listEndpoints(db: Executor, tenantId: string, page: PageRequest, filters: { enabled?: boolean }): Promise<WebhookEndpointsTable[]> {
  let query = visible(db, tenantId);
  if (filters.enabled !== undefined) query = query.where('enabled', '=', filters.enabled ? 1 : 0);
  return pageQuery(query, page).execute();
}

export async function enabledEndpoints(db: Executor, tenantId: string): Promise<WebhookEndpointsTable[]> {
  return visible(db, tenantId).where('enabled', '=', 1).orderBy('id').execute();
}

export async function countEndpoints(db: Executor, tenantId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertEndpoint(db: Executor, row: WebhookEndpointsTable): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute();
}

export async function updateEndpoint(db: Executor, tenantId: string, id: string, patch: Partial<WebhookEndpointsTable>): Promise<void> {
  await db.updateTable('webhook_endpoints').set(patch).where('id', '=', id).where('tenant_id', '=', tenantId).execute();
}

/** The outbox sequence so far: events queued up to here were committed before this call's transaction. */
export async function currentQueueSeq(db: Executor): Promise<number> {
  const row = await sql<{ seq: number }>`SELECT seq FROM sqlite_sequence WHERE name = 'webhook_event_queue'`.execute(db);
  return Number(row.rows[0]?.seq ?? 0);
}

export async function insertDeliveries(db: Executor, rows: readonly WebhookDeliveriesTable[]): Promise<void> {
  // Chunks stay far below SQLite's bound-variable limit.
  for (let i = 0; i < rows.length; i += 200) await db.insertInto('webhook_deliveries').values(rows.slice(i, i + 200)).execute();
}

/** Deliveries waiting for an attempt stop: disabled or deleted endpoint. Ones in flight finish. */
export async function cancelPendingDeliveries(db: Executor, endpointId: string, reason: string, now: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'cancelled', last_error: reason, next_attempt_at: null, finished_at: now, updated_at: now })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .execute();
}

export type AttemptRow = WebhookAttemptsTable & { delivery_status: WebhookDeliveriesTable['status'] };

export async function listAttempts(db: Executor, tenantId: string, endpointId: string, page: PageRequest, filters: ListAttemptsFilters): Promise<AttemptRow[]> {
  let query = db
    .selectFrom('webhook_attempts as a')
    .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .selectAll('a')
    .select('d.status as delivery_status')
    .where('a.tenant_id', '=', tenantId)
    .where('a.endpoint_id', '=', endpointId);
  if (filters.eventId !== undefined) query = query.where('a.event_id', '=', filters.eventId);
  if (filters.deliveryId !== undefined) query = query.where('a.delivery_id', '=', filters.deliveryId);
  if (filters.status !== undefined) query = query.where('a.status', '=', filters.status as AttemptStatus);
  return pageQuery(query, page, 'a.id').execute();
}
