import { sql } from 'kysely';
import { isoAt as iso } from '../../clock.js';
import type { Executor } from '../../db/database.js';

/**
 * The delivery dispatcher's per-pass queries (no access policy: it works for the whole environment):
 * the idle check, restart recovery, cancellation and pruning. Its per-delivery statements
 * (fan-out, claim, record) are prepared once in delivery-statements.ts.
 */

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

export async function cancelDelivery(trx: Executor, id: string, reason: string, now: number): Promise<void> {
  await trx
    .updateTable('webhook_deliveries')
    .set({ status: 'cancelled', last_error: reason, next_attempt_at: null, finished_at: iso(now), updated_at: iso(now) })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
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
