import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Exchange as PoolExchange, Http1Pool } from './http1-pool.js';
import { SsrfError, stripBrackets, type OutboundPolicy } from './outbound-policy.js';

/** Control characters but tab (CR and LF among them): never inside a header name or value. */
const unsafeHeader = /[\x00-\x08\x0a-\x1f\x7f]/;

/** At most this much of a response body is read; the rest is dropped with the connection. */
export const maxResponseBytes = 64 * 1024;
/** The excerpt kept with the attempt. */
const excerptBytes = 1024;

export interface OutgoingWebhook {
  url: string;
  body: string;
  /** Flat [name, value, name, value, …] (written as given: Host and Content-Length are added here). */
  headers: string[];
  timeoutMs: number;
}

export interface SendOutcome {
  ok: boolean;
  status: number | null;
  latencyMs: number;
  excerpt: string | null;
  error: string | null;
  /** The request was cut by our own stop (shutdown), not answered or refused by the receiver. */
  interrupted: boolean;
}

/** An attempt that ended without an answer; `error` says why. */
export const failedOutcome = (error: string, latencyMs = 0): SendOutcome => ({ ok: false, status: null, latencyMs, excerpt: null, error, interrupted: false });

const cutDuringAttempt = 'interrupted: the service stopped during the attempt';

/** An attempt our own stop cut (it does not count against the receiver). */
export const interruptedOutcome = (error = cutDuringAttempt): SendOutcome => ({
  ok: false,
  status: null,
  latencyMs: 0,
  excerpt: null,
  error,
  interrupted: true,
});

class TimeoutError extends Error {}
class InterruptedError extends Error {}

interface Target {
  secure: boolean;
  hostname: string;
  port: number;
  path: string;
  /** The Host header, as http.request would write it. */
  host: string;
}

/** A request's deadline; `expire` cuts the request, null once it settled. */
interface Deadline {
  at: number;
  expire: (() => void) | null;
}

interface Exchange {
  status: number;
  location: string | undefined;
  excerpt: string;
}

/**
 * POSTs one webhook over HTTP/1.1 (http1-pool.ts): no redirects followed, a deadline over the whole
 * exchange, at most 64 KiB of the answer read, and every connection made through the outbound
 * policy's lookup. Keep-alive connections are reused for busy receivers (a connection exists only
 * after its address passed the policy).
 */
export class WebhookSender {
  private readonly pool: Http1Pool;
  /** Parsed targets by URL, with the policy's answer for IP-literal hosts (the policy does not change while the process runs). */
  private readonly targets = new Map<string, Target | string>();
  /** Requests in flight, so a stop can cut them all. */
  private readonly active = new Set<PoolExchange>();
  /**
   * Deadlines of requests in flight, oldest first, served by one timer (armed for the first one that
   * has not settled) rather than a timer per request: every request has the same timeout, so a new
   * deadline goes at the end, and settled ones are dropped from the front as the queue is served.
   */
  private deadlines: Deadline[] = [];
  private deadlineHead = 0;
  private deadlineTimer: NodeJS.Timeout | null = null;
  private deadlineTimerAt = Infinity;

  constructor(
    private readonly policy: OutboundPolicy,
    maxSockets = 64,
  ) {
    // Idle connections close after 4 s, before the usual 5 s server keep-alive, to avoid racing a server close.
    this.pool = new Http1Pool({ maxSockets, idleMs: 4000, keep: excerptBytes, limit: maxResponseBytes, lookup: policy.lookup as unknown as LookupFunction });
  }

  /** The URL parsed once, or why it cannot be used (invalid, or an IP literal the policy refuses). */
  private target(raw: string): Target | string {
    let target = this.targets.get(raw);
    if (target !== undefined) return target;
    try {
      const url = new URL(raw);
      const secure = url.protocol === 'https:';
      const hostname = stripBrackets(url.hostname);
      // An IP literal is connected without a lookup: check it here.
      const refused = isIP(hostname) !== 0 ? this.policy.check(hostname, hostname) : null;
      const port = Number(url.port || (secure ? 443 : 80));
      target = refused ? `refused by the outbound policy: ${refused}` : { secure, hostname, port, path: `${url.pathname}${url.search}`, host: url.host };
    } catch {
      target = 'invalid URL';
    }
    if (this.targets.size >= 1000) this.targets.clear();
    this.targets.set(raw, target);
    return target;
  }

  async send(webhook: OutgoingWebhook): Promise<SendOutcome> {
    const started = performance.now();
    const latency = () => Math.round((performance.now() - started) * 100) / 100;
    const target = this.target(webhook.url);
    if (typeof target === 'string') return failedOutcome(target, latency());
    const deadline = started + webhook.timeoutMs;
    try {
      // No second try inside an attempt, even on a reset keep-alive socket: the receiver may have
      // read the request before the reset, and one attempt must never reach it twice. The next
      // attempt follows the retry schedule (idle sockets are dropped after 4 s to make resets rare).
      const exchange = await this.exchange(target, webhook, deadline);
      const { status } = exchange;
      const excerpt = exchange.excerpt === '' ? null : exchange.excerpt;
      if (status >= 200 && status < 300) return { ok: true, status, latencyMs: latency(), excerpt, error: null, interrupted: false };
      const error =
        status >= 300 && status < 400
          ? `redirect not followed (HTTP ${status}${exchange.location ? ` to ${exchange.location.slice(0, 200)}` : ''})`
          : `HTTP ${status}`;
      return { ok: false, status, latencyMs: latency(), excerpt, error, interrupted: false };
    } catch (err) {
      const interrupted = err instanceof InterruptedError;
      return { ok: false, status: null, latencyMs: latency(), excerpt: null, error: describe(err, webhook.timeoutMs), interrupted };
    }
  }

  private exchange(target: Target, webhook: OutgoingWebhook, deadline: number): Promise<Exchange> {
    return new Promise<Exchange>((resolve, reject) => {
      let head = `POST ${target.path} HTTP/1.1\r\nHost: ${target.host}\r\n`;
      const headers = webhook.headers;
      for (let i = 0; i + 1 < headers.length; i += 2) {
        const name = headers[i]!;
        const value = headers[i + 1]!;
        // Values come from our own rows, but a line break would split the request: refuse it, as node:http does.
        if (unsafeHeader.test(value) || unsafeHeader.test(name)) return reject(new Error(`the ${name} header carries a control character`));
        head += `${name}: ${value}\r\n`;
      }
      head += `Content-Length: ${Buffer.byteLength(webhook.body, 'utf8')}\r\n\r\n`;
      const exchange = new PoolExchange(head + webhook.body, (err, answer, reusedSocket) => {
        timer.expire = null;
        this.active.delete(exchange);
        if (err) {
          (err as { reusedSocket?: boolean }).reusedSocket = reusedSocket;
          return reject(err);
        }
        const text = answer!.excerpt.length === 0 ? '' : answer!.excerpt.toString('utf8').replace(/\uFFFD+$/, '');
        resolve({ status: answer!.head.status, location: answer!.head.location, excerpt: text });
      });
      const timer: Deadline = { at: deadline, expire: () => exchange.abort(new TimeoutError('timeout')) };
      this.active.add(exchange);
      this.addDeadline(timer);
      this.pool.send(target, exchange);
    });
  }

  private addDeadline(deadline: Deadline): void {
    const queue = this.deadlines;
    // Deadlines arrive in order unless the timeout changed: keep the queue sorted either way.
    let i = queue.length;
    while (i > this.deadlineHead && queue[i - 1]!.at > deadline.at) i--;
    if (i === queue.length) queue.push(deadline);
    else queue.splice(i, 0, deadline);
    this.armDeadlines();
  }

  /** Drops settled deadlines from the front, cuts the expired ones, and arms the timer for the next. */
  private serveDeadlines(): void {
    const queue = this.deadlines;
    const now = performance.now();
    while (this.deadlineHead < queue.length) {
      const next = queue[this.deadlineHead]!;
      if (next.expire !== null && next.at > now) break;
      this.deadlineHead++;
      next.expire?.();
    }
    if (this.deadlineHead === queue.length) {
      this.deadlines = [];
      this.deadlineHead = 0;
    } else if (this.deadlineHead > 1024 && this.deadlineHead * 2 > queue.length) {
      this.deadlines = queue.slice(this.deadlineHead);
      this.deadlineHead = 0;
    }
    this.armDeadlines();
  }

  private armDeadlines(): void {
    const next = this.deadlines[this.deadlineHead];
    if (next === undefined) {
      if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
      this.deadlineTimer = null;
      this.deadlineTimerAt = Infinity;
      return;
    }
    // A timer already set for this deadline or an earlier one serves it (an early wake-up just re-arms).
    if (this.deadlineTimer && this.deadlineTimerAt <= next.at) return;
    if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
    this.deadlineTimerAt = next.at;
    this.deadlineTimer = setTimeout(
      () => {
        this.deadlineTimer = null;
        this.deadlineTimerAt = Infinity;
        this.serveDeadlines();
      },
      Math.max(0, Math.ceil(next.at - performance.now())),
    );
  }

  /** Cuts every request in flight (the service is stopping); their outcomes say interrupted. */
  abortAll(): void {
    for (const exchange of [...this.active]) exchange.abort(new InterruptedError('interrupted by shutdown'));
  }

  close(): void {
    if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
    this.deadlineTimer = null;
    this.deadlineTimerAt = Infinity;
    this.pool.destroy(new InterruptedError('interrupted by shutdown'));
  }
}

function describe(err: unknown, timeoutMs: number): string {
  if (err instanceof TimeoutError) return `timeout: no complete answer within ${timeoutMs} ms`;
  if (err instanceof InterruptedError) return cutDuringAttempt;
  if (err instanceof SsrfError) return err.message;
  const code = (err as NodeJS.ErrnoException).code;
  // When every address of a name fails, net reports an AggregateError with an empty message: its
  // errors say which addresses were tried.
  const message =
    err instanceof AggregateError && err.message === ''
      ? err.errors.map((e: unknown) => (e instanceof Error ? e.message : String(e))).join('; ')
      : err instanceof Error
        ? err.message
        : String(err);
  return (code && !message.includes(code) ? `${code}: ${message}` : message).slice(0, 500);
}
