import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { sendJob, type DeliveryJob } from './delivery-job.js';
import { OutboundPolicy } from './outbound-policy.js';
import { failedOutcome, interruptedOutcome, WebhookSender, type SendOutcome } from './webhook-sender.js';

export interface DeliveryThreadOptions {
  allowHosts: readonly string[];
  allowPrivate: boolean;
}

/** `auto`: a worker only where this process may run on two CPUs or more (its affinity, not the machine's count). */
export const usesWorker = (mode: 'auto' | 'on' | 'off'): boolean => mode === 'on' || (mode === 'auto' && availableParallelism() >= 2);

export type DeliveryThreadMessage = { type: 'send'; jobs: DeliveryJob[] } | { type: 'abort' } | { type: 'close' };
export interface DeliveryThreadReply {
  outcomes: Array<{ id: string; outcome: SendOutcome }>;
}

/**
 * Webhook requests leave from a thread of their own (delivery-worker.ts): building, signing and
 * sending an attempt and reading its answer cost the API's thread ~35-40 µs of CPU per delivery on
 * the bench VM (the socket write ~12, the HTTP exchange and its garbage, the HMAC ~4), a fifth of
 * the write that emitted the event; on the appliance's second core they cost it the hand-over (one
 * message per batch each way). The dispatcher keeps the database, the claims and the limits; the
 * thread gets jobs and answers outcomes.
 *
 * The worker starts on the first send (most processes never deliver), is unref'd (it never holds
 * the process open), and if it dies, its attempts fail ("the delivery thread stopped": retried on
 * the schedule) and the next send starts a new one.
 *
 * With one CPU (PETCARE_WEBHOOK_THREAD=auto under a one-CPU affinity, or =off) a worker would only
 * take turns with the API's thread and add the hand-over, so the same jobs run inline, through the
 * same sendJob and WebhookSender.
 */
export class DeliveryThread {
  private worker: Worker | null = null;
  /** Inline mode's sender (no worker). */
  private readonly inline: WebhookSender | null;
  private readonly pending = new Map<string, (outcome: SendOutcome) => void>();
  private outbox: DeliveryJob[] = [];
  private flushQueued = false;

  constructor(
    private readonly options: DeliveryThreadOptions,
    worker = true,
  ) {
    this.inline = worker ? null : new WebhookSender(new OutboundPolicy(options.allowHosts, { allowPrivate: options.allowPrivate }));
  }

  /** Sends `job` on the thread; `done` gets its outcome once (never throws, never twice). */
  send(job: DeliveryJob, done: (outcome: SendOutcome) => void): void {
    this.pending.set(job.id, done);
    if (this.inline) {
      void sendJob(this.inline, job).then((outcome) => this.settle(job.id, outcome));
      return;
    }
    this.outbox.push(job);
    if (!this.flushQueued) {
      // The jobs started in one turn go over in one message.
      this.flushQueued = true;
      queueMicrotask(() => this.flush());
    }
  }

  /** Attempts in flight on the thread (tests). */
  get inFlight(): number {
    return this.pending.size;
  }

  private flush(): void {
    this.flushQueued = false;
    if (this.outbox.length === 0) return;
    const jobs = this.outbox;
    this.outbox = [];
    try {
      this.start().postMessage({ type: 'send', jobs } satisfies DeliveryThreadMessage);
    } catch (err) {
      // No thread to send on (it could not start): these attempts fail and are retried on the schedule.
      const error = `internal error: the delivery thread could not take the attempts (${err instanceof Error ? err.message : String(err)})`;
      for (const job of jobs) this.settle(job.id, failedOutcome(error));
    }
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    // The compiled file in dist/, the TypeScript one under tsx (the worker inherits tsx's loader through execArgv).
    const here = fileURLToPath(import.meta.url);
    const entry = new URL(`./delivery-worker${here.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);
    const worker = new Worker(entry, { workerData: this.options satisfies DeliveryThreadOptions, name: 'webhook-delivery' });
    worker.unref();
    worker.on('message', (reply: DeliveryThreadReply) => {
      for (const { id, outcome } of reply.outcomes) this.settle(id, outcome);
    });
    const died = (reason: string) => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.failAll(failedOutcome(`internal error: the delivery thread stopped (${reason})`));
    };
    worker.on('error', (err) => died(err.message));
    worker.on('exit', (code) => died(`exit code ${code}`));
    this.worker = worker;
    return worker;
  }

  private settle(id: string, outcome: SendOutcome): void {
    const done = this.pending.get(id);
    if (!done) return; // settled already (aborted)
    this.pending.delete(id);
    done(outcome);
  }

  private failAll(outcome: SendOutcome): void {
    const all = [...this.pending.entries()];
    this.pending.clear();
    for (const [, done] of all) done(outcome);
  }

  /**
   * The service is stopping: every attempt in flight ends now as interrupted (the thread is told to
   * cut its requests; what it answers later is ignored).
   */
  abortAll(): void {
    this.outbox = [];
    this.worker?.postMessage({ type: 'abort' } satisfies DeliveryThreadMessage);
    this.inline?.abortAll();
    this.failAll(interruptedOutcome());
  }

  /** Aborts what is in flight and stops the thread (a later send starts a new one). */
  async close(): Promise<void> {
    this.abortAll();
    this.inline?.close();
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }
}
