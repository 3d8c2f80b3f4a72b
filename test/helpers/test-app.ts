import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { IncomingMessage, Server } from 'node:http';
import type { TestFn } from 'ava';
import pino from 'pino';
import type { PetCareApp } from '../../src/app.js';
import { openAppliance } from '../../src/appliance.js';
import type { Clock } from '../../src/clock.js';
import { loadConfig, type Config, type Environment } from '../../src/config.js';
import type { Stores } from '../../src/db/stores.js';
import { createHttpServer, defaultServerLimits, type ServerLimits } from '../../src/http/server.js';
import { seedSandboxIfEmpty } from '../../src/modules/sandbox/index.js';
import { copyMigratedDatabases } from './migrated-template.js';

/** A clock tests move by hand: token expiry, rate windows and sunsets without sleeping. */
export class TestClock implements Clock {
  constructor(private current: number = Date.now()) {}
  now(): number {
    return this.current;
  }
  advance(ms: number): void {
    this.current += ms;
  }
  set(at: Date | number): void {
    this.current = typeof at === 'number' ? at : at.getTime();
  }
}

export const adminCredentials = {
  live: { clientId: 'pk_live_testadmin', clientSecret: 'sk_live_testadminsecret' },
  sandbox: { clientId: 'pk_test_testadmin', clientSecret: 'sk_test_testadminsecret' },
} as const;

export interface Response<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  token?: string | undefined;
  body?: unknown;
  /** Sent as is (no JSON encoding) when a string. */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  idempotencyKey?: string;
}

export interface TokenSet {
  accessToken: string;
  refreshToken: string;
  scope: string;
  clientId: string;
  clientSecret: string;
  /** cli_… resource id */
  id: string;
}

export interface NewClient {
  name?: string;
  role?: 'admin' | 'doctor' | 'staff';
  scopes?: string[];
  environment?: Environment;
  locationIds?: string[] | null;
  ipAllowlist?: string[] | null;
  rateLimitPerMinute?: number | null;
}

export interface TestApp {
  url: string;
  clock: TestClock;
  config: Config;
  stores: Stores;
  app: PetCareApp;
  dataDir: string;
  tenantId: string;
  /** The HTTP server the app listens on (its socket limits are `serverLimits`). */
  server: Server;
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<Response<T>>;
  /** Token for the bootstrap admin of an environment (all scopes). */
  adminToken(env?: Environment): Promise<string>;
  /** Creates a client through the admin API and returns a token for it. */
  client(spec?: NewClient): Promise<TokenSet>;
  token(clientId: string, clientSecret: string, scope?: string): Promise<Response>;
  /**
   * Seeds the sandbox's demo practice now if it waits for its first use (`sandboxDemo`), dated from
   * the start: for a test that reads the sandbox database before making any sandbox request.
   */
  seedSandbox(): Promise<void>;
  /** Stops the app; keepData leaves the data dir for a restart (startTestApp({ dataDir })). A second call does nothing more. */
  close(options?: { keepData?: boolean }): Promise<void>;
}

export interface TestAppOptions {
  config?: Partial<Config>;
  clock?: TestClock;
  /** Reopen an existing data dir (a restart); default: a fresh temp dir. */
  dataDir?: string;
  /** Start the job runner (default true): pollers, cron schedules and queued runs. */
  jobs?: boolean;
  /** Socket limits over the production ones (e.g. a short idle timeout); the per-address cap is off unless set here. */
  serverLimits?: Partial<ServerLimits>;
  /**
   * When a fresh data dir's sandbox gets its demo practice (src/modules/sandbox/demo-practice.ts).
   * 'first-use' (default): dated from the start as at a first start, but seeded only before the
   * first request with a sandbox access token or calendar link (or at `seedSandbox()`), so the many
   * files that never touch the sandbox skip the seeding (~0.4 s of CPU per app) and the jobs' work on
   * the practice. 'start': at the start, as an appliance does (openAppliance seeds it).
   */
  sandboxDemo?: 'first-use' | 'start';
}

/** A request the sandbox answers: a sandbox access token (its JWT's env claim) or a sandbox calendar link. */
function touchesSandbox(req: IncomingMessage): boolean {
  if (req.url?.includes('ct_test_')) return true;
  const match = /^Bearer [^.]+\.([^.]+)\./i.exec(req.headers.authorization ?? '');
  if (!match?.[1]) return false;
  try {
    return JSON.parse(Buffer.from(match[1], 'base64url').toString('utf8')).env === 'sandbox';
  } catch {
    return false; // not a JWT: the app refuses it
  }
}

/** Starts the real app on 127.0.0.1:0 with fresh SQLite files in a temp dir. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'petcare-test-'));
  const clock = options.clock ?? new TestClock();
  const config = loadConfig(
    {},
    {
      dataDir,
      port: 0,
      host: '127.0.0.1',
      logLevel: 'silent',
      adminClientId: adminCredentials.live.clientId,
      adminClientSecret: adminCredentials.live.clientSecret,
      sandboxAdminClientSecret: adminCredentials.sandbox.clientSecret,
      auditFlushMs: 5,
      ...options.config,
    },
  );
  // A first start's databases, migrated once for every test process (migrated-template.ts).
  await copyMigratedDatabases(config);
  const demoAtFirstUse = (options.sandboxDemo ?? 'first-use') === 'first-use';
  const appliance = await openAppliance({ config, clock, logger: pino({ level: 'silent' }), validateResponses: true, seedSandbox: !demoAtFirstUse });
  const { app, stores, tenantId } = appliance;
  // Dated from the start, as openAppliance would have seeded it; once (a no-op on a seeded data dir).
  const startedAt = clock.now();
  let demoSeeded = !demoAtFirstUse || !stores.has('sandbox');
  let demoSeeding: Promise<void> | undefined;
  const seedSandbox = async () => {
    if (demoSeeded) return;
    await (demoSeeding ??= seedSandboxIfEmpty(stores.get('sandbox').db, tenantId, startedAt).then(() => {
      demoSeeded = true;
    }));
  };
  const handle = app.koa.callback();
  const server: Server = await new Promise((resolve) => {
    // The server main.ts runs (its response class and socket limits), without the per-address cap.
    // Idle keep-alive sockets stay open for 2 minutes unless a test sets its own: client and server
    // share this process's event loop, so after a long synchronous stretch on a loaded machine the
    // next request can be written to a reused socket before the timers run, and the server's 5 s
    // idle timeout would then close that socket under it ('fetch failed').
    const s = createHttpServer(
      (req, res) => {
        if (demoSeeded || !touchesSandbox(req)) return void handle(req, res);
        // The request waits for the practice (its body stays unread until then). A seeding that failed
        // (a test broke the database) leaves the answer to the app, as a failed request would.
        void seedSandbox()
          .catch(() => undefined)
          .then(() => handle(req, res));
      },
      { ...defaultServerLimits, keepAliveTimeoutMs: 120_000, maxConnectionsPerIp: 0, ...options.serverLimits },
    );
    s.listen(0, '127.0.0.1', () => resolve(s));
  });
  if (options.jobs ?? true) await app.runner.start();
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const adminTokens = new Map<Environment, string>();
  let closing: Promise<void> | undefined;

  const request = async <T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<Response<T>> => {
    const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.idempotencyKey) headers['idempotency-key'] = opts.idempotencyKey;
    let body: string | Buffer | undefined;
    if (opts.rawBody !== undefined) body = opts.rawBody;
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(url + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  };

  const token = (clientId: string, clientSecret: string, scope?: string) =>
    request('POST', '/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, ...(scope ? { scope } : {}) },
    });

  const adminToken = async (env: Environment = 'live') => {
    const cached = adminTokens.get(env);
    if (cached) return cached;
    const creds = adminCredentials[env];
    const res = await token(creds.clientId, creds.clientSecret);
    if (res.status !== 200) throw new Error(`admin token failed: ${res.status} ${res.text}`);
    adminTokens.set(env, res.body.access_token);
    return res.body.access_token as string;
  };

  const client = async (spec: NewClient = {}): Promise<TokenSet> => {
    const env = spec.environment ?? 'live';
    const created = await request('POST', '/v1/clients', {
      token: await adminToken(env),
      body: { name: spec.name ?? 'test client', role: spec.role ?? 'staff', scopes: spec.scopes ?? ['pets'], ...spec, environment: env },
    });
    if (created.status !== 201) throw new Error(`client create failed: ${created.status} ${created.text}`);
    const res = await token(created.body.clientId, created.body.clientSecret);
    if (res.status !== 200) throw new Error(`token failed: ${res.status} ${res.text}`);
    return {
      accessToken: res.body.access_token,
      refreshToken: res.body.refresh_token,
      scope: res.body.scope,
      clientId: created.body.clientId,
      clientSecret: created.body.clientSecret,
      id: created.body.id,
    };
  };

  return {
    url,
    clock,
    config,
    stores,
    app,
    dataDir,
    tenantId,
    server,
    request,
    adminToken,
    client,
    token,
    seedSandbox,
    close(closeOptions = {}) {
      // Once: a test's teardown may close an app the test already closed (a restart keeps its data dir).
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await demoSeeding?.catch(() => undefined); // not under a seeding transaction
        await appliance.close();
        if (!closeOptions.keepData) rmSync(dataDir, { recursive: true, force: true });
      })();
      return closing;
    },
  };
}

/**
 * The test-app fixture of a test file: starts the app in a `test.before` hook and closes it (data
 * dir included) in `test.after.always`, so a file cannot forget either. Returns the app as a
 * stand-in that reads through to the started one: use it inside tests and hooks (hooks declared
 * after this call run after the start); touched before the start, it throws. Options may be a
 * function, read at the start, when they name something an earlier hook made (an SMTP sink's url).
 *
 *   const t = useTestApp(test, { jobs: false });
 *   test.before(async () => { admin = await t.adminToken(); });
 */
export function useTestApp<Context>(test: TestFn<Context>, options: TestAppOptions | (() => TestAppOptions | Promise<TestAppOptions>) = {}): TestApp {
  let current: TestApp | undefined;
  // Serial hooks: AVA runs a file's other (concurrent) before hooks only once these are done, and
  // its after.always hooks once the app is closed.
  test.serial.before(async () => {
    current = await startTestApp(typeof options === 'function' ? await options() : options);
  });
  test.serial.after.always(async () => {
    await current?.close();
  });
  return new Proxy({} as TestApp, {
    get(_target, prop) {
      if (prop === 'then') return undefined; // not a promise, whatever awaits it
      if (!current) throw new Error(`the test app is not started yet (reading .${String(prop)}): use it in a test or a hook declared after useTestApp`);
      return Reflect.get(current, prop);
    },
    set(_target, prop, value) {
      // A file may replace a member for its tests (adminToken, say): on the started app.
      if (!current) throw new Error(`the test app is not started yet (setting .${String(prop)})`);
      return Reflect.set(current, prop, value);
    },
  });
}
