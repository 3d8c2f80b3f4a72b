import { sql } from 'kysely';
import { isoAt as iso } from '../../clock.js';
import { acrossTenants, scoped } from '../../db/access-policy.js';
import type { Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import { idFloor, newId } from '../../db/ids.js';
import { fanOutAfter, liveDeliveryCondition, type WebhookAttemptsTable, type WebhookDeliveriesTable } from './webhooks.table.js';

/** liveDeliveryCondition as a Kysely filter, on the table or on its alias `d`. */
export const liveDelivery = sql.raw<boolean>(liveDeliveryCondition);
export const live = sql.raw<boolean>(`d.${liveDeliveryCondition}`);

/** The columns of a claimed delivery `d` (joined to its endpoint `w`) that describe its attempt in flight. */
export const claimedAttemptColumns = [
  'd.id',
  'd.tenant_id',
  'd.endpoint_id',
  'd.event_id',
  'd.event_type',
  'd.kind',
  'd.attempts',
  'd.attempt_id',
  'd.updated_at',
  'w.url',
] as const;
type ClaimedDelivery = Pick<WebhookDeliveriesTable, 'id' | 'tenant_id' | 'endpoint_id' | 'event_id' | 'event_type' | 'kind' | 'attempts' | 'updated_at'> & {
  url: string;
};

/**
 * The attempt a `sending` delivery has in flight, as its row would read (an attempt's row is written
 * when it ends): started at the claim (`updated_at`), to the endpoint's URL.
 */
export function inFlightAttempt(d: ClaimedDelivery, id: string): WebhookAttemptsTable {
  return {
    id,
    tenant_id: d.tenant_id,
    delivery_id: d.id,
    endpoint_id: d.endpoint_id,
    event_id: d.event_id,
    event_type: d.event_type,
    kind: d.kind,
    attempt: d.attempts,
    status: 'in_flight',
    url: d.url,
    started_at: d.updated_at,
    finished_at: null,
    latency_ms: null,
    response_status: null,
    response_excerpt: null,
    error: null,
    next_retry_at: null,
  };
}

/**
 * The delivery dispatcher's per-pass queries (it works for the whole environment: `acrossTenants`,
 * and a write to one delivery within that delivery's tenant): the idle check, restart recovery,
 * cancellation and pruning. Its per-delivery statements (fan-out, claim, record) are prepared once
 * in delivery-statements.ts.
 */
const wholeEnvironment = 'the delivery dispatcher works for every tenant of the environment';

/** A write to one tenant's delivery, by the dispatcher. */
const tenantOf = (row: { tenant_id: string }): AccessFilter => ({ tenantId: row.tenant_id, locationIds: null });

/** True when the dispatcher has something to do: events to fan out, due attempts, or (checkStale) claims to recover. */
export async function hasWork(db: Executor, now: number, instanceId: string, checkStale: boolean): Promise<boolean> {
  const at = iso(now);
  // Events to fan out (none without a live endpoint). CROSS JOIN fixes SQLite's loop order: over the
  // (few) endpoints, each probe a seek in webhook_deliveries_due_idx, never a scan of the delivery history.
  const row = await sql<{ work: number }>`
    SELECT EXISTS (SELECT 1 FROM events WHERE seq > ${sql.raw(fanOutAfter)})
        OR EXISTS (SELECT 1 FROM webhook_endpoints w CROSS JOIN webhook_deliveries d
                   WHERE d.endpoint_id = w.id AND w.deleted_at IS NULL AND d.status = 'pending' AND ${live} AND d.next_attempt_at <= ${at})
        OR (${checkStale ? 1 : 0} AND EXISTS (SELECT 1 FROM webhook_endpoints w CROSS JOIN webhook_deliveries d
                   WHERE d.endpoint_id = w.id AND d.status = 'sending' AND ${live} AND (d.claimed_by != ${instanceId} OR d.lease_until < ${at}))) AS work`.execute(
    acrossTenants(db, wholeEnvironment),
  );
  return Number(row.rows[0]?.work ?? 0) === 1;
}

export async function cancelDelivery(trx: Executor, delivery: { id: string; tenant_id: string }, reason: string, now: number): Promise<void> {
  await scoped(trx, tenantOf(delivery))
    .updateTable('webhook_deliveries')
    .set({ status: 'cancelled', last_error: reason, next_attempt_at: null, finished_at: iso(now), updated_at: iso(now) })
    .where('id', '=', delivery.id)
    .where('status', '=', 'pending')
    .execute();
}

/**
 * Claims another dispatcher instance held (a process that stopped mid-attempt), or whose lease
 * lapsed, are closed: the attempt is recorded as interrupted and the next attempt is due at once.
 * `mine` are attempts this instance still has in flight (never touched). The attempt's row is
 * written here (it is written when an attempt ends); a release before 2026-11-26 left an
 * `in_flight` row instead, which is finished in place.
 */
export async function recoverInterrupted(trx: Executor, instanceId: string, mine: ReadonlySet<string>, now: number): Promise<number> {
  const at = iso(now);
  const error = 'interrupted: the service stopped during the attempt; the next attempt follows';
  // CROSS JOIN: endpoints drive the loop (see hasWork).
  const stale = await acrossTenants(trx, wholeEnvironment)
    .selectFrom('webhook_endpoints as w')
    .crossJoin('webhook_deliveries as d')
    .whereRef('d.endpoint_id', '=', 'w.id')
    .select(claimedAttemptColumns)
    .where('d.status', '=', 'sending')
    .where(live)
    .where((eb) => eb.or([eb('d.claimed_by', '!=', instanceId), eb('d.lease_until', '<', at)]))
    .execute();
  let recovered = 0;
  for (const row of stale) {
    if (row.attempt_id !== null && mine.has(row.attempt_id)) continue;
    const tenant = scoped(trx, tenantOf(row));
    const legacy = await tenant
      .updateTable('webhook_attempts')
      .set({ status: 'interrupted', finished_at: at, error, next_retry_at: at })
      .where('delivery_id', '=', row.id)
      .where('attempt', '=', row.attempts)
      .where('status', '=', 'in_flight')
      .executeTakeFirst();
    if (Number(legacy.numUpdatedRows) === 0) {
      // ON CONFLICT DO NOTHING, which scoped().insert does not take; the row carries the delivery's tenant.
      await acrossTenants(trx, "hand-written: the attempt row carries its delivery's tenant_id")
        .insertInto('webhook_attempts')
        .values({ ...inFlightAttempt(row, row.attempt_id ?? newId('wha')), status: 'interrupted', finished_at: at, error, next_retry_at: at })
        .onConflict((oc) => oc.doNothing())
        .execute();
    }
    await tenant
      .updateTable('webhook_deliveries')
      .set({ status: 'pending', next_attempt_at: at, claimed_by: null, lease_until: null, last_error: 'interrupted', updated_at: at })
      .where('id', '=', row.id)
      .where('status', '=', 'sending')
      .where('attempts', '=', row.attempts)
      .execute();
    recovered++;
  }
  return recovered;
}

/**
 * Housekeeping: a retry that came due after its endpoint was deleted is cancelled, and delivery
 * history older than the cutoff goes (finished deliveries and their attempts, and the attempts of
 * deliveries that have no row: first attempts that succeeded).
 */
export async function pruneFinished(trx: Executor, now: number, before: number): Promise<number> {
  const all = acrossTenants(trx, wholeEnvironment);
  await all
    .updateTable('webhook_deliveries')
    .set({ status: 'cancelled', last_error: 'endpoint deleted', next_attempt_at: null, finished_at: iso(now), updated_at: iso(now) })
    .where('status', '=', 'pending')
    .where(liveDelivery)
    .where('endpoint_id', 'in', all.selectFrom('webhook_endpoints').select('id').where('deleted_at', 'is not', null))
    .execute();
  const cutoff = iso(before);
  const old = all.selectFrom('webhook_deliveries').select('id').where('finished_at', '<', cutoff);
  await all.deleteFrom('webhook_attempts').where('delivery_id', 'in', old).execute();
  const result = await all.deleteFrom('webhook_deliveries').where('finished_at', '<', cutoff).executeTakeFirst();
  // Per endpoint, a range of the attempts' key (ids sort by time): never a scan of the whole history.
  const floor = idFloor('wha', before);
  let attemptsOnly = 0;
  for (const { id } of await all.selectFrom('webhook_endpoints').select('id').execute()) {
    const gone = await all
      .deleteFrom('webhook_attempts')
      .where('endpoint_id', '=', id)
      .where('id', '<', floor)
      .where((eb) => eb.not(eb.exists(eb.selectFrom('webhook_deliveries as d').select('d.id').whereRef('d.id', '=', 'webhook_attempts.delivery_id'))))
      .executeTakeFirst();
    attemptsOnly += Number(gone.numDeletedRows);
  }
  return Number(result.numDeletedRows) + attemptsOnly;
}
