import { randomBytes } from 'node:crypto';
import type { SecretBox } from '../../db/secret-box.js';
import type { Logger } from 'pino';
import { isoAt, type Clock } from '../../clock.js';
import type { Config, Environment } from '../../config.js';
import type { EnvironmentStore } from '../../db/stores.js';
import type { JobContext, JobResult } from '../../jobs/job-definition.js';
import { hasWork, inFlightAttempt, pruneFinished, recoverInterrupted } from './deliveries.repository.js';
import { attemptResult } from './delivery-attempt.js';
import { deliveryJob } from './delivery-job.js';
import { claimDue, claimLeaseMs, limits } from './delivery-claims.js';
import { DeliveryStatements, type AttemptResult, type Claim } from './delivery-statements.js';
import { DeliveryThread, usesWorker } from './delivery-thread.js';
import { OutboundPolicy } from './outbound-policy.js';
import { failedOutcome, interruptedOutcome } from './webhook-sender.js';
import type { WebhookAttemptsTable } from './webhooks.table.js';

const flushBatch = 200;
const flushDelayMs = 25;
const retentionMs = 30 * 86_400_000;
const pruneEveryMs = 3_600_000;
const recoverEveryMs = 60_000;

export interface WebhookDispatcherDeps {
  config: Pick<Config, 'webhookAllowHosts' | 'webhookAllowPrivate' | 'webhookRetrySchedule' | 'webhookTimeoutMs' | 'webhookThread' | 'platformVersion'>;
  clock: Clock;
  /** Endpoint secrets are stored sealed; the dispatcher opens them to sign, the routes seal new ones. */
  secretBox: SecretBox;
}

type Summary = { fannedOut: number; queued: number; claimed: number; recovered: number; cancelled: number; refanned: number };
const emptySummary = (): Summary => ({ fannedOut: 0, queued: 0, claimed: 0, recovered: 0, cancelled: 0, refanned: 0 });

/**
 * Delivers webhooks for every environment. Each run of the `webhook-delivery` job (a poller) does one
 * cycle for its environment: record the results of finished attempts, recover attempts a stopped
 * process left in flight, claim due attempts, and fan new events out to subscribed endpoints
 * (claiming the new deliveries at once where there is room), all in one savepoint of the API's
 * group commit (WriteBatches); the claimed attempts are sent once it committed, in the background
 * (no network I/O inside a transaction). Finished attempts start the next cycle ~25 ms later, which
 * records them in one batch and claims what came in meanwhile.
 * A first attempt claimed at the fan-out has no row until it ends (then one: its attempt, plus
 * the delivery's row if it did not succeed); the fan-out's recorded_seq stays below its event, so a
 * process killed meanwhile leaves those events for the next start to fan out again.
 * Per-endpoint order is not kept: receivers dedupe on the event id and order by createdAt.
 */
export class WebhookDispatcher {
  /** Identifies this process's claims: a claim held by another instance was cut by a restart. */
  readonly instanceId = `wdi_${randomBytes(8).toString('hex')}`;
  readonly policy: OutboundPolicy;
  private readonly sender: DeliveryThread;
  private readonly pumps = new Map<Environment, DeliveryPump>();

  get secrets(): SecretBox {
    return this.deps.secretBox;
  }

  constructor(private readonly deps: WebhookDispatcherDeps) {
    this.policy = new OutboundPolicy(deps.config.webhookAllowHosts, { allowPrivate: deps.config.webhookAllowPrivate });
    // The thread applies the same policy (its own instance, from the same settings) when it connects.
    this.sender = new DeliveryThread(
      { allowHosts: deps.config.webhookAllowHosts, allowPrivate: deps.config.webhookAllowPrivate },
      usesWorker(deps.config.webhookThread),
    );
  }

  /** The job's run: one cycle for ctx's environment; sends continue after it returns. */
  run(ctx: JobContext): Promise<JobResult> {
    let pump = this.pumps.get(ctx.env);
    if (!pump || pump.store !== ctx.store) {
      pump = new DeliveryPump(ctx.store, this.deps, this.sender, this.instanceId, ctx.signal, ctx.logger);
      this.pumps.set(ctx.env, pump);
      ctx.signal.addEventListener(
        'abort',
        () => void this.sender.close(), // aborts what is in flight first
        { once: true },
      );
    }
    return pump.cycle();
  }

  /** Starts a cycle now (after a commit that queued deliveries) instead of at the next poll. */
  wake(env: Environment): void {
    this.pumps.get(env)?.wake();
  }

  /**
   * After the runner stopped (its abort cut every attempt in flight): records every result still
   * waiting for its batch, before the databases close. A first attempt's result is its only
   * trace: left to the batch timer, it would meet a closed database, and the next start would
   * send its event again.
   */
  async drain(): Promise<void> {
    for (const pump of this.pumps.values()) await pump.drain();
  }

  /** The first attempts in flight to an endpoint, which have no row yet, as their rows will read. */
  firstAttemptsInFlight(env: Environment, endpointId: string): WebhookAttemptsTable[] {
    return this.pumps.get(env)?.firstAttemptsInFlight(endpointId) ?? [];
  }
}

class DeliveryPump {
  /** attempt id → claim, for every attempt claimed and not yet recorded. */
  private readonly claimed = new Map<string, Claim>();
  /** Claimed attempts waiting for a free connection slot, per endpoint (oldest first). */
  private readonly waiting = new Map<string, Claim[]>();
  private waitingCount = 0;
  private readonly sendingByEndpoint = new Map<string, number>();
  private sending = 0;
  private readonly results: AttemptResult[] = [];
  private running: Promise<Summary> | null = null;
  private rerun = false;
  private flushScheduled = false;
  private lastPrune = 0;
  private lastRecovery = Number.NEGATIVE_INFINITY;
  /** The start's re-fan of first attempts a stopped process left unrecorded is done. */
  private refanned = false;
  /**
   * The seq of the oldest first attempt whose recording failed (Infinity: none): recorded_seq stays
   * below it for the rest of this process's life, so the next start sends that event again.
   */
  private unrecordedFloor = Number.POSITIVE_INFINITY;
  /** The latest write of results on their own (stopping, or after a failed cycle). */
  private writing: Promise<void> = Promise.resolve();
  private readonly statements: DeliveryStatements;
  private readonly userAgent: string;

  constructor(
    readonly store: EnvironmentStore,
    private readonly deps: WebhookDispatcherDeps,
    private readonly sender: DeliveryThread,
    private readonly instanceId: string,
    private readonly signal: AbortSignal,
    private readonly logger: Logger,
  ) {
    this.statements = new DeliveryStatements(store.sqlite);
    this.userAgent = `PetCare-Webhooks/${deps.config.platformVersion}`;
    signal.addEventListener('abort', () => this.stop(), { once: true });
  }

  /** Cycles never overlap: a call while one runs asks for one more after it. */
  cycle(): Promise<Summary> {
    if (this.running) {
      this.rerun = true;
      return this.running;
    }
    const run = (async () => {
      const total = emptySummary();
      do {
        this.rerun = false;
        if (this.signal.aborted) break;
        const summary = await this.once();
        for (const key of Object.keys(total) as Array<keyof Summary>) total[key] += summary[key];
      } while (this.rerun);
      return total;
    })();
    this.running = run.finally(() => {
      this.running = null;
      if (this.rerun && !this.signal.aborted) this.wake();
    });
    return this.running;
  }

  wake(): void {
    if (this.signal.aborted) return;
    this.cycle().catch((err: unknown) => this.logger.error({ err }, 'webhook delivery cycle failed'));
  }

  private async once(): Promise<Summary> {
    const { db } = this.store;
    const { clock, config } = this.deps;
    const now = clock.now();
    if (now - this.lastPrune > pruneEveryMs) {
      this.lastPrune = now;
      await db.transaction().execute((trx) => pruneFinished(trx, now, now - retentionMs));
    }
    // Results waiting to be recorded go in this cycle's transaction; their claims are forgotten once
    // it committed (or once written on their own if it fails), so the listing never loses them between.
    const results = this.takeResults();
    // Claims of another instance exist only from before this one started; a lapsed lease of our own
    // would mean a lost request (sends always end by their deadline): look for both now and then.
    const checkStale = now - this.lastRecovery >= recoverEveryMs || now < this.lastRecovery;
    // Cheap reads first: an idle poll opens no write transaction.
    if (results.length === 0 && this.refanned && !(await hasWork(db, now, this.instanceId, checkStale))) {
      if (checkStale) this.lastRecovery = now;
      return emptySummary();
    }

    const mine = new Set(this.claimed.keys());
    // The allowances count attempts not yet answered (waiting for a connection, or sent): an
    // answered one only waits for this pass to record it, and must not hold back new claims.
    const claimedByEndpoint = new Map<string, number>();
    for (const [endpointId, queue] of this.waiting) claimedByEndpoint.set(endpointId, queue.length);
    for (const [endpointId, sending] of this.sendingByEndpoint) claimedByEndpoint.set(endpointId, (claimedByEndpoint.get(endpointId) ?? 0) + sending);
    const summary = emptySummary();
    let claimed: Claim[];
    try {
      // In the API's group commit (a savepoint of its next batch): a pass writes a few rows per
      // delivery, and a COMMIT of its own cost more than those rows.
      claimed = await this.store.writes.run(async (trx) => {
        this.statements.record(results, this.instanceId, now);
        if (!this.refanned) summary.refanned = this.statements.refanUnrecorded(now);
        if (checkStale) {
          summary.recovered = await recoverInterrupted(trx, this.instanceId, mine, now);
          this.lastRecovery = now;
        }
        const round = await claimDue(trx, this.statements, {
          instanceId: this.instanceId,
          now,
          leaseMs: claimLeaseMs(config.webhookTimeoutMs),
          held: claimedByEndpoint,
          free: limits.claimed - this.waitingCount - this.sending,
        });
        summary.cancelled = round.cancelled;
        summary.fannedOut = round.fannedOut;
        summary.queued = round.queued;
        if (round.moreQueued) this.rerun = true;
        this.statements.markRecorded(Math.min(this.oldestInMemory(results), ...round.claimed.map(firstAttemptSeq)));
        return round.claimed;
      });
    } catch (err) {
      // The results must not wait for a claim that failed: record them on their own.
      if (results.length > 0) await this.record(results);
      throw err;
    }
    this.refanned = true;
    this.forget(results);
    summary.claimed = claimed.length;
    for (const claim of claimed) {
      this.claimed.set(claim.attemptId, claim);
      const queue = this.waiting.get(claim.due.endpoint_id);
      if (queue) queue.push(claim);
      else this.waiting.set(claim.due.endpoint_id, [claim]);
      this.waitingCount++;
    }
    this.startSends();
    return summary;
  }

  /** The results to record now (their claims are forgotten once recorded, see `forget`). */
  private takeResults(): AttemptResult[] {
    return this.results.splice(0);
  }

  /** Recorded (or given up): these attempts stop counting as claimed. */
  private forget(results: readonly AttemptResult[]): void {
    for (const result of results) this.claimed.delete(result.claim.attemptId);
  }

  /** The seq of the oldest first attempt held only in memory, but for `recording` (Infinity: none). */
  private oldestInMemory(recording: readonly AttemptResult[]): number {
    const skip = recording.length > 0 ? new Set(recording.map((r) => r.claim.attemptId)) : null;
    let oldest = this.unrecordedFloor;
    for (const [attemptId, claim] of this.claimed) {
      if (claim.seq !== null && claim.seq < oldest && !skip?.has(attemptId)) oldest = claim.seq;
    }
    return oldest;
  }

  firstAttemptsInFlight(endpointId: string): WebhookAttemptsTable[] {
    const rows: WebhookAttemptsTable[] = [];
    for (const { due, attemptId, attempt, claimedAt, seq } of this.claimed.values()) {
      if (seq !== null && due.endpoint_id === endpointId) rows.push(inFlightAttempt({ ...due, attempts: attempt, updated_at: isoAt(claimedAt) }, attemptId));
    }
    return rows;
  }

  /** Starts waiting attempts while the connection limits allow (no database access). */
  private startSends(endpointIds: Iterable<string> = this.waiting.keys()): void {
    if (this.waitingCount === 0 || this.signal.aborted) return;
    for (const endpointId of [...endpointIds]) {
      const queue = this.waiting.get(endpointId);
      while (queue && queue.length > 0 && this.sending < limits.sending && (this.sendingByEndpoint.get(endpointId) ?? 0) < limits.sendingPerEndpoint) {
        const claim = queue.shift()!;
        this.waitingCount--;
        this.sending++;
        this.sendingByEndpoint.set(endpointId, (this.sendingByEndpoint.get(endpointId) ?? 0) + 1);
        this.send(claim, () => {
          this.sending--;
          const left = (this.sendingByEndpoint.get(endpointId) ?? 1) - 1;
          if (left > 0) this.sendingByEndpoint.set(endpointId, left);
          else this.sendingByEndpoint.delete(endpointId);
          // Its own queue first; others only if the global limit held them back.
          this.startSends(this.sending === limits.sending - 1 ? this.waiting.keys() : [endpointId]);
        });
      }
      if (queue && queue.length === 0) this.waiting.delete(endpointId);
    }
  }

  /** Stopping: waits for the cycle and writes in progress, then records what is left. */
  async drain(): Promise<void> {
    await this.running?.catch(() => undefined);
    await this.writing;
    await this.record(this.takeResults());
  }

  /** The runner is stopping (the dispatcher cuts requests in flight): claims never sent are recorded as interrupted. */
  private stop(): void {
    const now = this.deps.clock.now();
    const never = [...this.waiting.values()].flat();
    this.waiting.clear();
    this.waitingCount = 0;
    const interrupted = interruptedOutcome('interrupted: the service stopped before the attempt was sent');
    for (const claim of never) this.results.push(attemptResult(claim, interrupted, now, null, this.deps.config.webhookRetrySchedule));
    this.scheduleFlush();
  }

  /** Hands the attempt to the delivery thread; its result is recorded with the next cycle, then `ended` runs. */
  private send(claim: Claim, ended: () => void): void {
    const { clock, config } = this.deps;
    const startedAt = clock.now();
    let job;
    try {
      job = deliveryJob(claim, { timeoutMs: config.webhookTimeoutMs, userAgent: this.userAgent, secrets: this.deps.secretBox }, startedAt);
    } catch (err) {
      // A secret that no longer opens (the data key changed): a failed attempt, retried on the schedule.
      const error = `internal error: ${err instanceof Error ? err.message : String(err)}`;
      this.results.push(attemptResult(claim, failedOutcome(error), clock.now(), startedAt, config.webhookRetrySchedule));
      this.scheduleFlush();
      return ended();
    }
    this.sender.send(job, (outcome) => {
      this.results.push(attemptResult(claim, outcome, clock.now(), startedAt, config.webhookRetrySchedule));
      this.scheduleFlush();
      ended();
    });
  }

  /**
   * Results are written in batches: the next cycle, ~25 ms on (at once past 200 results), records
   * every answer that came in meanwhile. Fewer, larger passes cost less per delivery: each pass
   * reads the endpoints, and its rows fill fewer WAL pages. Once stopping, results are recorded on their own.
   */
  private scheduleFlush(): void {
    if (this.flushScheduled || this.results.length === 0) return;
    this.flushScheduled = true;
    const run = () => {
      this.flushScheduled = false;
      if (this.signal.aborted) void this.record(this.takeResults());
      else this.wake();
    };
    if (this.results.length >= flushBatch || this.signal.aborted) setImmediate(run);
    else setTimeout(run, flushDelayMs);
  }

  /** Records results in a transaction of their own (stopping, or the cycle's transaction failed). */
  private record(batch: AttemptResult[]): Promise<void> {
    if (batch.length === 0) return this.writing;
    this.writing = this.writing.then(() => this.write(batch));
    return this.writing;
  }

  private async write(batch: AttemptResult[]): Promise<void> {
    try {
      const now = this.deps.clock.now();
      await this.store.db.transaction().execute(async () => {
        this.statements.record(batch, this.instanceId, now);
        this.statements.markRecorded(this.oldestInMemory(batch));
      });
    } catch (err) {
      // The deliveries stay `sending`, and first attempts unwritten below recorded_seq: the next
      // start records the former as interrupted and sends the latter's events again.
      for (const r of batch) if (r.claim.seq !== null) this.unrecordedFloor = Math.min(this.unrecordedFloor, r.claim.seq);
      this.logger.error({ err, attempts: batch.map((r) => r.claim.attemptId) }, 'could not record webhook attempts');
    }
    this.forget(batch);
    this.scheduleFlush(); // results that arrived during the write
  }
}

/** A claim's event seq if it is a first attempt held only in memory, else Infinity. */
function firstAttemptSeq(claim: Claim): number {
  return claim.seq ?? Number.POSITIVE_INFINITY;
}
