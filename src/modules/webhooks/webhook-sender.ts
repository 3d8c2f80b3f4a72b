import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { SsrfError, stripBrackets, type OutboundPolicy } from './outbound-policy.js';

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
 * POSTs one webhook with node:http(s): no redirects followed, a deadline over the whole exchange,
 * at most 64 KiB of the answer read, and every connection made through the outbound policy's lookup.
 * Keep-alive agents reuse connections to busy receivers (a socket is only pooled after its address passed).
 */
export class WebhookSender {
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;
  /** Parsed targets by URL, with the policy's answer for IP-literal hosts (the policy does not change while the process runs). */
  private readonly targets = new Map<string, Target | string>();
  /** Requests in flight, so a stop can cut them all. */
  private readonly active = new Set<http.ClientRequest>();
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
    // Idle sockets close after 4 s, before the usual 5 s server keep-alive, to avoid racing a server close.
    this.httpAgent = new http.Agent({ keepAlive: true, maxSockets, timeout: 4000 });
    this.httpsAgent = new https.Agent({ keepAlive: true, maxSockets, timeout: 4000 });
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
      target = refused
        ? `refused by the outbound policy: ${refused}`
        : { secure, hostname, port, path: `${url.pathname}${url.search}`, host: url.host };
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
    if (typeof target === 'string') return { ok: false, status: null, latencyMs: latency(), excerpt: null, error: target, interrupted: false };
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
      const request = (target.secure ? https : http).request({
        hostname: target.hostname,
        port: target.port,
        path: target.path,
        method: 'POST',
        agent: target.secure ? this.httpsAgent : this.httpAgent,
        lookup: this.policy.lookup as unknown as http.RequestOptions['lookup'],
        // A flat header list is written as it is (no per-header bookkeeping); Host must then be given.
        headers: ['Host', target.host, ...webhook.headers, 'Content-Length', String(Buffer.byteLength(webhook.body, 'utf8'))],
      });
      this.active.add(request);
      const timer: Deadline = {
        at: deadline,
        expire: () => {
          const err = new TimeoutError('timeout');
          request.destroy(err);
          finish(err);
        },
      };
      this.addDeadline(timer);
      let settled = false;
      const finish = (err: Error | null, value?: Exchange) => {
        if (settled) return;
        settled = true;
        timer.expire = null;
        this.active.delete(request);
        if (err) {
          (err as { reusedSocket?: boolean }).reusedSocket = request.reusedSocket;
          reject(err);
        } else resolve(value!);
      };
      request.on('error', (err) => finish(err));
      request.on('response', (response) => {
        const status = response.statusCode ?? 0;
        const location = response.headers.location;
        let first: Buffer | null = null;
        let more: Buffer[] | null = null;
        let received = 0;
        const done = () => {
          let text = '';
          if (first) text = (more ? Buffer.concat([first, ...more]) : first).subarray(0, excerptBytes).toString('utf8').replace(/\uFFFD+$/, '');
          finish(null, { status, location, excerpt: text });
        };
        response.on('data', (chunk: Buffer) => {
          if (received < excerptBytes) {
            if (first === null) first = chunk;
            else (more ??= []).push(chunk);
          }
          received += chunk.length;
          if (received > maxResponseBytes) {
            // Enough: the rest is not read, and the socket is not reused.
            response.destroy();
            done();
          }
        });
        response.on('end', done);
        response.on('error', done);
        response.on('aborted', done);
      });
      // A string body goes out in one write with the headers.
      request.end(webhook.body, 'utf8');
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
    this.deadlineTimer = setTimeout(() => {
      this.deadlineTimer = null;
      this.deadlineTimerAt = Infinity;
      this.serveDeadlines();
    }, Math.max(0, Math.ceil(next.at - performance.now())));
  }

  /** Cuts every request in flight (the service is stopping); their outcomes say interrupted. */
  abortAll(): void {
    for (const request of this.active) request.destroy(new InterruptedError('interrupted by shutdown'));
  }

  close(): void {
    if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
    this.deadlineTimer = null;
    this.deadlineTimerAt = Infinity;
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

function describe(err: unknown, timeoutMs: number): string {
  if (err instanceof TimeoutError) return `timeout: no complete answer within ${timeoutMs} ms`;
  if (err instanceof InterruptedError) return 'interrupted: the service stopped during the attempt';
  if (err instanceof SsrfError) return err.message;
  const code = (err as NodeJS.ErrnoException).code;
  const message = err instanceof Error ? err.message : String(err);
  return (code && !message.includes(code) ? `${code}: ${message}` : message).slice(0, 500);
}
