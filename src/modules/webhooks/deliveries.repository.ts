import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import { deliveredTypeFor } from './subscriptions.js';
import type { AttemptStatus, DeliveryKind, WebhookDeliveriesTable } from './webhooks.table.js';

/** Queries of the delivery dispatcher (no access policy: it works for the whole environment). */

const iso = (ms: number): string => new Date(ms).toISOString();

/** True when the dispatcher has something to do: events to fan out, due attempts, or (checkStale) claims to recover. */
export async function hasWork(db: Executor, now: number, instanceId: string, checkStale: boolean): Promise<boolean> {
  const at = iso(now);
  // CROSS JOIN fixes SQLite's loop order: over the (few) endpoints, each probe a seek in
  // webhook_deliveries_due_idx, never a scan of the delivery history.
  const row = await sql<{ work: number }>`
    SELECT EXISTS (SELECT 1 FROM webhook_event_queue)
        OR EXISTS (SELECT 1 FROM webhook_endpoints w CROSS JOIN webhook_deliveries d
                   WHERE d.endpoint_id = w.id AND w.deleted_at IS NULL AND d.status = 'pending' AND d.next_attempt_at <= ${at})
        OR (${checkStale ? 1 : 0} AND EXISTS (SELECT 1 FROM webhook_endpoints w CROSS JOIN webhook_deliveries d
                   WHERE d.endpoint_id = w.id AND d.status = 'sending' AND (d.claimed_by != ${instanceId} OR d.lease_until < ${at}))) AS work`.execute(db);
  return Number(row.rows[0]?.work ?? 0) === 1;
}

/**
 * Moves queued events to deliveries, one per (event, subscribed endpoint), in commit order.
 * Runs in a transaction: the queue rows go exactly when their deliveries exist.
 */
export async function fanOut(trx: Executor, now: number, limit: number): Promise<{ events: number; deliveries: number }> {
  const queued = await trx
    .selectFrom('webhook_event_queue as q')
    .leftJoin('events as e', 'e.id', 'q.event_id')
    .select(['q.seq', 'q.event_id', 'e.type', 'e.tenant_id'])
    .orderBy('q.seq')
    .limit(limit)
    .execute();
  if (queued.length === 0) return { events: 0, deliveries: 0 };
  const endpoints = await trx
    .selectFrom('webhook_endpoints')
    .select(['id', 'tenant_id', 'events', 'since_seq'])
    .where('enabled', '=', 1)
    .where('deleted_at', 'is', null)
    .execute();
  const subscriptions = endpoints.map((e) => ({ ...e, subscribed: JSON.parse(e.events) as string[] }));
  const at = iso(now);
  const rows: WebhookDeliveriesTable[] = [];
  for (const q of queued) {
    if (q.type === null || q.tenant_id === null) continue; // the event is gone (sandbox reset)
    for (const endpoint of subscriptions) {
      if (endpoint.tenant_id !== q.tenant_id || q.seq <= endpoint.since_seq) continue;
      const type = deliveredTypeFor(q.type, endpoint.subscribed);
      if (type === null) continue;
      rows.push({
        id: newId('whd', now),
        tenant_id: q.tenant_id,
        endpoint_id: endpoint.id,
        event_id: q.event_id,
        event_type: type,
        kind: 'event',
        status: 'pending',
        attempts: 0,
        failures: 0,
        next_attempt_at: at,
        claimed_by: null,
        lease_until: null,
        payload: null,
        last_error: null,
        created_at: at,
        updated_at: at,
        finished_at: null,
      });
    }
  }
  for (let i = 0; i < rows.length; i += 200) {
    await trx.insertInto('webhook_deliveries').values(rows.slice(i, i + 200)).execute();
  }
  await trx.deleteFrom('webhook_event_queue').where('seq', '<=', queued[queued.length - 1]!.seq).execute();
  return { events: queued.length, deliveries: rows.length };
}

export interface DueDelivery {
  id: string;
  tenant_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  kind: DeliveryKind;
  attempts: number;
  failures: number;
  payload: string | null;
  url: string;
  enabled: number;
  deleted_at: string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  event_data: string | null;
  event_created_at: string | null;
}

/** Endpoints that may have deliveries to claim (disabled ones only for test events). */
export async function liveEndpoints(trx: Executor): Promise<Array<{ id: string; enabled: number }>> {
  return trx.selectFrom('webhook_endpoints').select(['id', 'enabled']).where('deleted_at', 'is', null).execute();
}

/** One endpoint's pending deliveries due now, oldest first. */
export async function dueDeliveries(trx: Executor, endpointId: string, now: number, limit: number): Promise<DueDelivery[]> {
  return trx
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
    .leftJoin('events as e', 'e.id', 'd.event_id')
    .select([
      'd.id',
      'd.tenant_id',
      'd.endpoint_id',
      'd.event_id',
      'd.event_type',
      'd.kind',
      'd.attempts',
      'd.failures',
      'd.payload',
      'w.url',
      'w.enabled',
      'w.deleted_at',
      'w.secret',
      'w.previous_secret',
      'w.previous_secret_expires_at',
      'e.data as event_data',
      'e.created_at as event_created_at',
    ])
    .where('d.endpoint_id', '=', endpointId)
    .where('d.status', '=', 'pending')
    .where('d.next_attempt_at', '<=', iso(now))
    .orderBy('d.next_attempt_at')
    .orderBy('d.id')
    .limit(limit)
    .execute();
}

export async function cancelDelivery(trx: Executor, id: string, reason: string, now: number): Promise<void> {
  await trx
    .updateTable('webhook_deliveries')
    .set({ status: 'cancelled', last_error: reason, next_attempt_at: null, finished_at: iso(now), updated_at: iso(now) })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
}

/**
 * The claim, committed before any byte is sent: the deliveries become `sending` under this
 * instance with a lease, and each gets its attempt row with the next number (unique per delivery).
 * Runs inside the dispatcher's transaction right after `dueDeliveries` read them, so they are unchanged.
 */
export async function claimDeliveries(
  trx: Executor,
  due: readonly DueDelivery[],
  instanceId: string,
  now: number,
  leaseMs: number,
): Promise<Array<{ due: DueDelivery; attemptId: string; attempt: number }>> {
  if (due.length === 0) return [];
  const at = iso(now);
  const claimed = await trx
    .updateTable('webhook_deliveries')
    .set({ status: 'sending', attempts: sql`attempts + 1`, claimed_by: instanceId, lease_until: iso(now + leaseMs), updated_at: at })
    .where('id', 'in', due.map((d) => d.id))
    .where('status', '=', 'pending')
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) !== due.length) throw new Error('webhook deliveries changed under their claim');
  const out = due.map((d) => ({ due: d, attemptId: newId('wha', now), attempt: d.attempts + 1 }));
  await trx
    .insertInto('webhook_attempts')
    .values(
      out.map(({ due: d, attemptId, attempt }) => ({
        id: attemptId,
        tenant_id: d.tenant_id,
        delivery_id: d.id,
        endpoint_id: d.endpoint_id,
        event_id: d.event_id,
        event_type: d.event_type,
        kind: d.kind,
        attempt,
        status: 'in_flight' as const,
        url: d.url,
        started_at: at,
        finished_at: null,
        latency_ms: null,
        response_status: null,
        response_excerpt: null,
        error: null,
        next_retry_at: null,
      })),
    )
    .execute();
  return out;
}

export interface AttemptResult {
  attemptId: string;
  deliveryId: string;
  attempt: number;
  status: Exclude<AttemptStatus, 'in_flight'>;
  /** When the request left (null if it never did). */
  startedAt: number | null;
  latencyMs: number;
  responseStatus: number | null;
  excerpt: string | null;
  error: string | null;
  /** The delivery afterwards. */
  delivery: { status: 'succeeded' | 'failed' | 'pending'; failures: number; nextAttemptAt: number | null };
}

/**
 * Records finished attempts, two statements per batch (UPDATE … FROM VALUES) rather than two per
 * attempt. An attempt a restart already recorded as interrupted is left alone, and so is its
 * delivery (it is no longer `sending` under this instance with that attempt number).
 */
export async function recordAttempts(trx: Executor, results: readonly AttemptResult[], instanceId: string, now: number): Promise<void> {
  const at = iso(now);
  for (let i = 0; i < results.length; i += 100) {
    const chunk = results.slice(i, i + 100);
    const attempts = chunk.map((r) => {
      const retryAt = r.delivery.status === 'pending' && r.delivery.nextAttemptAt !== null ? iso(r.delivery.nextAttemptAt) : null;
      // The claim's time is when the row was written; the request may have waited for a free connection.
      const startedAt = r.startedAt === null ? null : iso(r.startedAt);
      return sql`(${r.attemptId}, ${r.status}, ${startedAt}, ${r.latencyMs}, ${r.responseStatus}, ${r.excerpt}, ${r.error}, ${retryAt})`;
    });
    await sql`
      UPDATE webhook_attempts AS a
         SET status = v.column2, started_at = COALESCE(v.column3, a.started_at), finished_at = ${at}, latency_ms = v.column4,
             response_status = v.column5, response_excerpt = v.column6, error = v.column7, next_retry_at = v.column8
        FROM (VALUES ${sql.join(attempts)}) AS v
       WHERE a.id = v.column1 AND a.status = 'in_flight'`.execute(trx);
    const deliveries = chunk.map((r) => {
      const finished = r.delivery.status !== 'pending';
      const next = finished || r.delivery.nextAttemptAt === null ? null : iso(r.delivery.nextAttemptAt);
      return sql`(${r.deliveryId}, ${r.attempt}, ${r.delivery.status}, ${r.delivery.failures}, ${next}, ${r.error}, ${finished ? at : null})`;
    });
    await sql`
      UPDATE webhook_deliveries AS d
         SET status = v.column3, failures = v.column4, next_attempt_at = v.column5, claimed_by = NULL, lease_until = NULL,
             last_error = v.column6, finished_at = v.column7, updated_at = ${at}
        FROM (VALUES ${sql.join(deliveries)}) AS v
       WHERE d.id = v.column1 AND d.status = 'sending' AND d.claimed_by = ${instanceId} AND d.attempts = v.column2`.execute(trx);
  }
}

/**
 * Claims another dispatcher instance held (a process that stopped mid-attempt), or whose lease
 * lapsed, are closed: the attempt is recorded as interrupted and the next attempt is due at once.
 * `mine` are attempts this instance still has in flight (never touched).
 */
export async function recoverInterrupted(trx: Executor, instanceId: string, mine: ReadonlySet<string>, now: number): Promise<number> {
  const at = iso(now);
  // CROSS JOIN: endpoints drive the loop (see hasWork).
  const stale = await trx
    .selectFrom('webhook_endpoints as w')
    .crossJoin('webhook_deliveries as d')
    .whereRef('d.endpoint_id', '=', 'w.id')
    .innerJoin('webhook_attempts as a', (join) => join.onRef('a.delivery_id', '=', 'd.id').onRef('a.attempt', '=', 'd.attempts'))
    .select(['d.id as delivery_id', 'a.id as attempt_id', 'd.attempts'])
    .where('d.status', '=', 'sending')
    .where((eb) => eb.or([eb('d.claimed_by', '!=', instanceId), eb('d.lease_until', '<', at)]))
    .execute();
  let recovered = 0;
  for (const row of stale) {
    if (mine.has(row.attempt_id)) continue;
    await trx
      .updateTable('webhook_attempts')
      .set({ status: 'interrupted', finished_at: at, error: 'interrupted: the service stopped during the attempt; the next attempt follows', next_retry_at: at })
      .where('id', '=', row.attempt_id)
      .where('status', '=', 'in_flight')
      .execute();
    await trx
      .updateTable('webhook_deliveries')
      .set({ status: 'pending', next_attempt_at: at, claimed_by: null, lease_until: null, last_error: 'interrupted', updated_at: at })
      .where('id', '=', row.delivery_id)
      .where('status', '=', 'sending')
      .where('attempts', '=', row.attempts)
      .execute();
    recovered++;
  }
  return recovered;
}

/**
 * Housekeeping: a retry that came due after its endpoint was deleted is cancelled, and delivery
 * history older than the cutoff goes (finished deliveries and their attempts).
 */
export async function pruneFinished(trx: Executor, now: number, before: number): Promise<number> {
  await trx
    .updateTable('webhook_deliveries')
    .set({ status: 'cancelled', last_error: 'endpoint deleted', next_attempt_at: null, finished_at: iso(now), updated_at: iso(now) })
    .where('status', '=', 'pending')
    .where('endpoint_id', 'in', trx.selectFrom('webhook_endpoints').select('id').where('deleted_at', 'is not', null))
    .execute();
  const cutoff = iso(before);
  const old = trx.selectFrom('webhook_deliveries').select('id').where('finished_at', '<', cutoff);
  await trx.deleteFrom('webhook_attempts').where('delivery_id', 'in', old).execute();
  const result = await trx.deleteFrom('webhook_deliveries').where('finished_at', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}
