import type SQLite from 'better-sqlite3';
import { isoAt as iso } from '../../clock.js';
import { acrossTenants } from '../../db/access-policy.js';
import { idFloor, newId } from '../../db/ids.js';
import { deliveredTypeFor } from './subscriptions.js';
import { fanOutAfter, liveDeliveryCondition, type AttemptStatus, type DeliveryKind } from './webhooks.table.js';

/** A delivery due for an attempt, with what sending it needs (endpoint URL and secrets, the event). */
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

export interface Claim {
  due: DueDelivery;
  /** The attempt's id, given at the claim; its row is written when it ends. */
  attemptId: string;
  attempt: number;
  claimedAt: number;
  /**
   * A first attempt claimed as its event was fanned out: the event's seq, and the delivery has no
   * row yet (written with the attempt when it ends; until then the fan-out's recorded_seq stays
   * below this seq). null: the delivery has its row (`sending` under this instance).
   */
  seq: number | null;
}

export interface AttemptResult {
  /** The attempt as claimed: its id and number, and the delivery the attempt row repeats. */
  claim: Claim;
  status: Exclude<AttemptStatus, 'in_flight'>;
  /** When the request left (null if it never did: the row then says when it was claimed). */
  startedAt: number | null;
  latencyMs: number;
  responseStatus: number | null;
  excerpt: string | null;
  error: string | null;
  /** The delivery afterwards. */
  delivery: { status: 'succeeded' | 'failed' | 'pending'; failures: number; nextAttemptAt: number | null };
}

interface QueuedEvent {
  seq: number;
  event_id: string;
  type: string;
  tenant_id: string;
  data: string;
  created_at: string;
}

interface SubscriberRow {
  id: string;
  tenant_id: string;
  url: string;
  events: string;
  since_seq: number;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
}

interface Subscriber extends SubscriberRow {
  /** `events`, parsed. */
  subscribed: string[];
}

/** The name `event` is delivered to `endpoint` under, or null when it is not theirs (another tenant, older than the endpoint, not subscribed). */
function deliveredType(endpoint: Subscriber, event: { seq: number; tenant_id: string; type: string }): string | null {
  if (endpoint.tenant_id !== event.tenant_id || event.seq <= endpoint.since_seq) return null;
  return deliveredTypeFor(event.type, endpoint.subscribed);
}

const dueColumns = `d.id, d.tenant_id, d.endpoint_id, d.event_id, d.event_type, d.kind, d.attempts, d.failures, d.payload,
  w.url, w.enabled, w.deleted_at, w.secret, w.previous_secret, w.previous_secret_expires_at,
  e.data AS event_data, e.created_at AS event_created_at`;

/**
 * The dispatcher's hot statements, prepared once per database as plain better-sqlite3 statements:
 * one delivery costs a few rows written, and building and compiling those through the query
 * builder cost more CPU than SQLite spends writing them. Every method is synchronous and must run
 * inside a transaction the caller holds on the same database (`db.transaction().execute(...)`,
 * which also owns the connection), so nothing else interleaves with it.
 */
export class DeliveryStatements {
  private readonly queued: SQLite.Statement<[number], QueuedEvent>;
  private readonly advance: SQLite.Statement<[number]>;
  private readonly subscribers: SQLite.Statement<[], SubscriberRow>;
  private readonly insertPending: SQLite.Statement<unknown[]>;
  private readonly live: SQLite.Statement<[], { id: string; enabled: number }>;
  private readonly due: SQLite.Statement<[string, string, number], DueDelivery>;
  private readonly claimOne: SQLite.Statement<unknown[]>;
  private readonly insertAttempt: SQLite.Statement<unknown[]>;
  private readonly finishDelivery: SQLite.Statement<unknown[]>;
  private readonly insertAnswered: SQLite.Statement<unknown[]>;
  private readonly recorded: SQLite.Statement<[number, number]>;
  private readonly cursors: SQLite.Statement<[], { last_seq: number; recorded_seq: number }>;
  private readonly unrecorded: SQLite.Statement<[number, number, number], Omit<QueuedEvent, 'data'>>;
  private readonly oldestUnrecorded: SQLite.Statement<[number, number], { at: string | null }>;
  private readonly eventDeliveriesSince: SQLite.Statement<[string], { endpoint_id: string; event_id: string }>;
  private readonly eventAttemptsSince: SQLite.Statement<[string, string], { event_id: string }>;

  constructor(connection: SQLite.Database) {
    // Across tenants by design, like the dispatcher's other queries (deliveries.repository.ts): the
    // fan-out reads every tenant's new events and live endpoints, and a pass claims and records
    // every tenant's due deliveries. The tenant is kept in the statements themselves: an event
    // reaches only its own tenant's endpoints (deliveredType), a delivery row carries its event's
    // tenant, and a due delivery is sent only the data of an event of its own tenant (the join).
    const all = acrossTenants(connection, 'the webhook dispatcher delivers the events of every tenant of the environment');
    // Events in commit order after the fan-out's start: a range of the events table's own b-tree.
    this.queued = all.prepare(`SELECT seq, id AS event_id, type, tenant_id, data, created_at FROM events WHERE seq > ${fanOutAfter} ORDER BY seq LIMIT ?`);
    this.advance = all.prepare('UPDATE webhook_fanout SET last_seq = ? WHERE id = 1');
    this.subscribers = all.prepare(`
      SELECT id, tenant_id, url, events, since_seq, secret, previous_secret, previous_secret_expires_at
        FROM webhook_endpoints WHERE enabled = 1 AND deleted_at IS NULL`);
    // A delivery waiting for its first attempt (not claimed at its fan-out).
    this.insertPending = all.prepare(`
      INSERT INTO webhook_deliveries (id, tenant_id, endpoint_id, event_id, event_type, kind, status, attempts, failures,
                                      next_attempt_at, attempt_id, claimed_by, lease_until, payload, last_error, created_at, updated_at, finished_at)
      VALUES (?, ?, ?, ?, ?, 'event', 'pending', 0, 0, ?, NULL, NULL, NULL, NULL, NULL, ?, ?, NULL)`);
    this.live = all.prepare('SELECT id, enabled FROM webhook_endpoints WHERE deleted_at IS NULL');
    // One endpoint's due deliveries, oldest first: a seek in webhook_deliveries_due_idx.
    this.due = all.prepare(`
      SELECT ${dueColumns}
        FROM webhook_deliveries d
        JOIN webhook_endpoints w ON w.id = d.endpoint_id
        LEFT JOIN events e ON e.id = d.event_id AND e.tenant_id = d.tenant_id
       WHERE d.endpoint_id = ? AND d.status = 'pending' AND d.${liveDeliveryCondition} AND d.next_attempt_at <= ?
       ORDER BY d.next_attempt_at, d.id
       LIMIT ?`);
    this.claimOne = all.prepare(`
      UPDATE webhook_deliveries SET status = 'sending', attempts = attempts + 1, attempt_id = ?, claimed_by = ?, lease_until = ?, updated_at = ?
       WHERE id = ? AND status = 'pending'`);
    // An attempt is written once, when it ends. One a restart already recorded as interrupted is
    // left alone (the conflict), and so is its delivery (no longer `sending` under this instance
    // with that attempt number).
    this.insertAttempt = all.prepare(`
      INSERT INTO webhook_attempts (id, tenant_id, delivery_id, endpoint_id, event_id, event_type, kind, attempt, status, url, started_at,
                                    finished_at, latency_ms, response_status, response_excerpt, error, next_retry_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT DO NOTHING`);
    this.finishDelivery = all.prepare(`
      UPDATE webhook_deliveries
         SET status = ?, failures = ?, next_attempt_at = ?, claimed_by = NULL, lease_until = NULL, last_error = ?, finished_at = ?, updated_at = ?
       WHERE id = ? AND status = 'sending' AND claimed_by = ? AND attempts = ?`);
    // A first attempt that did not succeed: its delivery's row, written as the attempt left it.
    this.insertAnswered = all.prepare(`
      INSERT INTO webhook_deliveries (id, tenant_id, endpoint_id, event_id, event_type, kind, status, attempts, failures,
                                      next_attempt_at, attempt_id, claimed_by, lease_until, payload, last_error, created_at, updated_at, finished_at)
      VALUES (?, ?, ?, ?, ?, 'event', ?, 1, ?, ?, ?, NULL, NULL, NULL, ?, ?, ?, ?)`);
    // Below the oldest first attempt still in memory (its argument), never past the fan-out cursor.
    this.recorded = all.prepare('UPDATE webhook_fanout SET recorded_seq = min(last_seq, ?) WHERE id = 1 AND recorded_seq != min(last_seq, ?)');
    this.cursors = all.prepare('SELECT last_seq, recorded_seq FROM webhook_fanout WHERE id = 1');
    this.unrecorded = all.prepare('SELECT seq, id AS event_id, type, tenant_id, created_at FROM events WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?');
    this.oldestUnrecorded = all.prepare('SELECT min(created_at) AS at FROM events WHERE seq > ? AND seq <= ?');
    // Ids sort by creation time: a range of the primary keys from a time on.
    this.eventDeliveriesSince = all.prepare("SELECT endpoint_id, event_id FROM webhook_deliveries WHERE id >= ? AND kind = 'event'");
    this.eventAttemptsSince = all.prepare("SELECT event_id FROM webhook_attempts WHERE endpoint_id = ? AND id >= ? AND kind = 'event'");
  }

  /** Endpoints events are fanned out to: enabled, not deleted. */
  private liveSubscribers(): Subscriber[] {
    return this.subscribers.all().map((e) => ({ ...e, subscribed: JSON.parse(e.events) as string[] }));
  }

  /** Endpoints that may have deliveries to claim (disabled ones only for test events). */
  liveEndpoints(): Array<{ id: string; enabled: number }> {
    return this.live.all();
  }

  /** One endpoint's pending deliveries due now, oldest first. */
  dueDeliveries(endpointId: string, now: number, limit: number): DueDelivery[] {
    return this.due.all(endpointId, iso(now), limit);
  }

  /**
   * The claim, committed before any byte is sent: each delivery becomes `sending` under this
   * instance with a lease, the next attempt number and that attempt's id (its row is written when it
   * ends). Runs in the transaction that just read them with `dueDeliveries`, so they are unchanged.
   */
  claim(due: readonly DueDelivery[], instanceId: string, now: number, leaseMs: number): Claim[] {
    const at = iso(now);
    const lease = iso(now + leaseMs);
    const out: Claim[] = [];
    for (const d of due) {
      const attemptId = newId('wha');
      if (this.claimOne.run(attemptId, instanceId, lease, at, d.id).changes !== 1) throw new Error('webhook deliveries changed under their claim');
      out.push({ due: d, attemptId, attempt: d.attempts + 1, claimedAt: now, seq: null });
    }
    return out;
  }

  /**
   * Fans out events committed after the cursor to deliveries, one per (event, subscribed endpoint),
   * in commit order, and moves the cursor past them in the same transaction. A new delivery whose
   * endpoint `take` grants a place is claimed in memory and returned, with no row: its first
   * attempt writes it when it ends (the caller keeps recorded_seq below it until then, see
   * `markRecorded`). The others are written `pending`. With no endpoint to send to, nothing is read
   * or written: a new endpoint starts after the newest event anyway (since_seq).
   */
  fanOut(
    now: number,
    limit: number,
    take: (endpointId: string) => boolean,
    claimant: { instanceId: string; leaseMs: number },
  ): { events: number; deliveries: number; claimed: Claim[] } {
    const subscribers = this.liveSubscribers();
    if (subscribers.length === 0) return { events: 0, deliveries: 0, claimed: [] };
    const queued = this.queued.all(limit);
    if (queued.length === 0) return { events: 0, deliveries: 0, claimed: [] };
    const at = iso(now);
    const claimed: Claim[] = [];
    let deliveries = 0;
    for (const q of queued) {
      for (const endpoint of subscribers) {
        const type = deliveredType(endpoint, q);
        if (type === null) continue;
        const id = newId('whd');
        deliveries++;
        if (!take(endpoint.id)) {
          this.insertPending.run(id, q.tenant_id, endpoint.id, q.event_id, type, at, at, at);
          continue;
        }
        const attemptId = newId('wha');
        const due: DueDelivery = {
          id,
          tenant_id: q.tenant_id,
          endpoint_id: endpoint.id,
          event_id: q.event_id,
          event_type: type,
          kind: 'event',
          attempts: 0,
          failures: 0,
          payload: null,
          url: endpoint.url,
          enabled: 1,
          deleted_at: null,
          secret: endpoint.secret,
          previous_secret: endpoint.previous_secret,
          previous_secret_expires_at: endpoint.previous_secret_expires_at,
          event_data: q.data,
          event_created_at: q.created_at,
        };
        claimed.push({ due, attemptId, attempt: 1, claimedAt: now, seq: q.seq });
      }
    }
    this.advance.run(queued[queued.length - 1]!.seq);
    return { events: queued.length, deliveries, claimed };
  }

  /**
   * recorded_seq: every delivery of the events up to here is on disk. `oldestInMemory` is the seq of
   * the oldest first attempt still held in memory (Infinity: none), so it moves to just below that
   * one, or up to the fan-out cursor. One small update per pass, and none when it did not move.
   */
  markRecorded(oldestInMemory: number): void {
    const below = Number.isFinite(oldestInMemory) ? oldestInMemory - 1 : Number.MAX_SAFE_INTEGER;
    this.recorded.run(below, below);
  }

  /**
   * At a start: the first attempts a stopped process held in memory left no row (it was killed
   * before recording them). Their events, between recorded_seq and the fan-out cursor, are fanned
   * out again to each live subscribed endpoint that has no delivery of them yet (neither a row nor an
   * attempt), as `pending` deliveries due now; then recorded_seq catches up. An endpoint may so get
   * an event twice (the cut attempt may have arrived): at-least-once, receivers dedupe on the id.
   */
  refanUnrecorded(now: number): number {
    const cursors = this.cursors.get();
    if (!cursors || cursors.recorded_seq >= cursors.last_seq) return 0;
    const subscribers = this.liveSubscribers();
    const oldest = this.oldestUnrecorded.get(cursors.recorded_seq, cursors.last_seq)?.at ?? null;
    let deliveries = 0;
    if (oldest !== null && subscribers.length > 0) {
      // Deliveries of these events were created at their fan-out, after the events: from the oldest
      // event's time on (less a margin for a clock that stepped back).
      const since = Date.parse(oldest) - 3_600_000;
      const have = new Set<string>();
      for (const d of this.eventDeliveriesSince.all(idFloor('whd', since))) have.add(`${d.endpoint_id} ${d.event_id}`);
      for (const endpoint of subscribers) {
        for (const a of this.eventAttemptsSince.all(endpoint.id, idFloor('wha', since))) have.add(`${endpoint.id} ${a.event_id}`);
      }
      const at = iso(now);
      // A page of events at a time: the range grows with the traffic while an attempt hangs.
      for (let after = cursors.recorded_seq; after < cursors.last_seq; ) {
        const events = this.unrecorded.all(after, cursors.last_seq, 5000);
        if (events.length === 0) break;
        for (const q of events) {
          for (const endpoint of subscribers) {
            const type = deliveredType(endpoint, q);
            if (type === null || have.has(`${endpoint.id} ${q.event_id}`)) continue;
            this.insertPending.run(newId('whd'), q.tenant_id, endpoint.id, q.event_id, type, at, at, at);
            deliveries++;
          }
        }
        after = events[events.length - 1]!.seq;
      }
    }
    this.markRecorded(Number.POSITIVE_INFINITY);
    return deliveries;
  }

  /**
   * Records finished attempts (one row each, written whole) and their deliveries: one update each,
   * or for a first attempt held in memory, its delivery's row, unless it succeeded (then the
   * attempt is the only row).
   */
  record(results: readonly AttemptResult[], instanceId: string, now: number): void {
    const at = iso(now);
    for (const r of results) {
      const pending = r.delivery.status === 'pending' && r.delivery.nextAttemptAt !== null;
      const retryAt = pending ? iso(r.delivery.nextAttemptAt!) : null;
      const { due: d, attemptId, attempt, claimedAt, seq } = r.claim;
      // When the request left (it may have waited for a free connection), else when it was claimed.
      const startedAt = iso(r.startedAt ?? claimedAt);
      const finished = r.delivery.status !== 'pending';
      if (seq === null) {
        this.finishDelivery.run(r.delivery.status, r.delivery.failures, retryAt, r.error, finished ? at : null, at, d.id, instanceId, attempt);
      } else if (r.delivery.status !== 'succeeded') {
        this.insertAnswered.run(
          d.id,
          d.tenant_id,
          d.endpoint_id,
          d.event_id,
          d.event_type,
          r.delivery.status,
          r.delivery.failures,
          retryAt,
          attemptId,
          r.error,
          iso(claimedAt),
          at,
          finished ? at : null,
        );
      }
      this.insertAttempt.run(
        attemptId,
        d.tenant_id,
        d.id,
        d.endpoint_id,
        d.event_id,
        d.event_type,
        d.kind,
        attempt,
        r.status,
        d.url,
        startedAt,
        at,
        r.latencyMs,
        r.responseStatus,
        r.excerpt,
        r.error,
        retryAt,
      );
    }
  }
}
