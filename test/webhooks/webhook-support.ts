import { createHmac, timingSafeEqual } from 'node:crypto';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import type { Config, Environment } from '../../src/config.js';
import { eventually } from '../helpers/eventually.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * A subscriber's verifier written the way Stripe's libraries do it, independently of our signer:
 * parse `t` and every `v1`, recompute HMAC-SHA256(secret, `${t}.${rawBody}`) in hex, compare in
 * constant time against each v1, and refuse timestamps outside the tolerance.
 */
export function verifyStripeStyle(header: string | undefined, rawBody: string, secret: string, nowSeconds: number, toleranceSeconds = 300): boolean {
  if (!header) return false;
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const index = part.indexOf('=');
    if (index < 0) continue;
    const key = part.slice(0, index).trim();
    const value = part.slice(index + 1).trim();
    if (key === 't') timestamp = Number(value);
    else if (key === 'v1') signatures.push(value);
  }
  if (timestamp === undefined || !Number.isInteger(timestamp) || signatures.length === 0) return false;
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(`${timestamp}.${rawBody}`, 'utf8').digest('hex'), 'utf8');
  return signatures.some((s) => {
    const given = Buffer.from(s, 'utf8');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

export const v1Count = (header: string | undefined): number => (header ?? '').split(',').filter((p) => p.startsWith('v1=')).length;

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: { id: string; type: string; createdAt: string; data: Record<string, unknown> };
  at: number;
}

/** What the receiver answers to the nth request (0-based): a status, or hang (never answer). */
export type Behaviour = (n: number, request: Received) => { status: number; body?: string | Buffer; headers?: Record<string, string> } | 'hang';

export interface Receiver {
  url: string;
  received: Received[];
  behaviour: Behaviour;
  /** Resolves once `count` requests have arrived (fails after timeoutMs). */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** A real HTTP subscriber on 127.0.0.1 recording every request with its raw body. */
export async function startReceiver(behaviour: Behaviour = () => ({ status: 200, body: 'ok' })): Promise<Receiver> {
  const received: Received[] = [];
  const hanging = new Set<http.ServerResponse>();
  const receiver: Receiver = {
    url: '',
    received,
    behaviour,
    waitFor: (count, timeoutMs = 30_000) =>
      eventually(() => received.length >= count && received.slice(0, count), {
        timeoutMs,
        intervalMs: 10,
        what: () => `${count} requests (the receiver got ${received.length})`,
      }),
    async close() {
      for (const res of hanging) res.destroy();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let body: Received['body'];
      try {
        body = JSON.parse(rawBody) as Received['body'];
      } catch {
        body = { id: '', type: '', createdAt: '', data: {} };
      }
      const entry: Received = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, rawBody, body, at: Date.now() };
      const n = received.length;
      received.push(entry);
      const answer = receiver.behaviour(n, entry);
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}

export async function createEndpoint(t: TestApp, body: Record<string, unknown>, token?: string) {
  const res = await t.request('POST', '/v1/webhook-endpoints', { token: token ?? (await t.adminToken()), body });
  if (res.status !== 201) throw new Error(`endpoint create failed: ${res.status} ${res.text}`);
  return res.body as { id: string; secret: string; url: string; events: string[] };
}

/** Attempts of an endpoint, oldest first. */
export async function attemptsOf(t: TestApp, endpointId: string, query = ''): Promise<any[]> {
  const res = await t.request('GET', `/v1/webhook-endpoints/${endpointId}/deliveries?limit=100${query}`, { token: await t.adminToken() });
  if (res.status !== 200) throw new Error(`deliveries failed: ${res.status} ${res.text}`);
  return [...res.body.data].reverse();
}

/** Waits until the endpoint has `count` finished attempts (not in flight). */
export async function waitForAttempts(t: TestApp, endpointId: string, count: number, timeoutMs = 30_000): Promise<any[]> {
  return eventually(
    async () => {
      const attempts = await attemptsOf(t, endpointId);
      const finished = attempts.filter((a) => a.status !== 'in_flight');
      return finished.length >= count ? attempts : undefined;
    },
    { timeoutMs, what: `${count} finished attempts of ${endpointId}` },
  );
}

/**
 * One delivery pass, run now and awaited (the `webhook-delivery` poller on demand): events are
 * fanned out and every attempt due at this instant is claimed, its attempt row written, by the time
 * it returns. A claim is the only way to a send, so counting rows after a pass shows what will
 * never be sent — the deterministic "nothing arrives" check, instead of a pause.
 */
export async function deliveryPass(t: TestApp, env: Environment = 'live'): Promise<void> {
  const run = await t.app.runner.waitFor(env, await t.app.runner.enqueueNow(env, 'webhook-delivery', 'code'), 30_000);
  if (run?.status !== 'succeeded') throw new Error(`delivery pass: ${run?.status ?? 'gone'} ${run?.error ?? ''}`);
}

/**
 * Deliveries and attempts (in flight ones included) an endpoint ever had, read from the database
 * (deleted endpoints too) and, for first attempts in flight, which have no row yet, from the dispatcher.
 */
export async function deliveryCounts(t: TestApp, endpointId: string, env: Environment = 'live'): Promise<{ deliveries: number; attempts: number }> {
  const db = t.stores.get(env).db;
  const count = async (table: 'webhook_deliveries' | 'webhook_attempts') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('endpoint_id', '=', endpointId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  // An attempt's row is written when it ends; one in flight is its `sending` delivery's attempt_id.
  const inFlight = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'sending')
    .where('attempt_id', 'is not', null)
    .executeTakeFirstOrThrow();
  // A delivery whose first attempt succeeded is only that attempt's row.
  const attemptOnly = await db
    .selectFrom('webhook_attempts as a')
    .select((eb) => eb.fn.count<number>('a.delivery_id').distinct().as('n'))
    .where('a.endpoint_id', '=', endpointId)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('webhook_deliveries as d').select('d.id').whereRef('d.id', '=', 'a.delivery_id'))))
    .executeTakeFirstOrThrow();
  const first = t.app.webhooks.firstAttemptsInFlight(env, endpointId).length;
  return {
    deliveries: (await count('webhook_deliveries')) + Number(attemptOnly.n) + first,
    attempts: (await count('webhook_attempts')) + Number(inFlight.n) + first,
  };
}

export const nowSeconds = (t: TestApp): number => Math.floor(t.clock.now() / 1000);

/** The config of tests that restart apps on one data dir: receivers on 127.0.0.1, fast polls, 1 s retries. */
export const restartConfig: Partial<Config> = { webhookAllowHosts: ['127.0.0.1'], jobPollMs: 20, webhookRetrySchedule: [1, 1], webhookTimeoutMs: 10_000 };

/**
 * Apps and receivers for a test file that stops and starts apps on one data dir: `stop` keeps the
 * data dir (a restart is `stop(app)`, then `start({ dataDir: app.dataDir })`), and whatever is still
 * open when the file ends is closed then. Call it at the top of the test file.
 */
export function restartHarness(config: Partial<Config> = restartConfig) {
  const open: TestApp[] = [];
  const receivers: Receiver[] = [];
  test.after.always(async () => {
    for (const app of open) await app.close().catch(() => undefined);
    for (const r of receivers) await r.close();
  });
  return {
    async start(options: Parameters<typeof startTestApp>[0] = {}): Promise<TestApp> {
      const app = await startTestApp({ config, ...options });
      open.push(app);
      return app;
    },
    async stop(app: TestApp): Promise<void> {
      open.splice(open.indexOf(app), 1);
      await app.close({ keepData: true });
    },
    async receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
      const r = await startReceiver(...args);
      receivers.push(r);
      return r;
    },
  };
}
