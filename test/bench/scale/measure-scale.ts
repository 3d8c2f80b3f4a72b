/**
 * Measures one scale bench database through the real server (`node dist/src/main.js` on its data
 * dir): start to /readyz, every list (first page and a cursor page half-way down), point reads,
 * availability, occupancy, analytics (cached and first after a write), agent counts, RSS, file
 * sizes and a backup. Calls are sequential on one keep-alive connection; each case takes samples
 * until it has `samples` of them or its time budget is spent (at least 3).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import SQLite from 'better-sqlite3';
import { DateTime } from 'luxon';
import { freePort } from '../../helpers/free-port.js';
import { benchAdmin } from '../bench-servers.js';

/** The server's admin (the build's own admin has a test secret, shorter than a real start accepts): bootstrapped beside it. */
const sandboxSecret = 'sk_test_scalebenchsandbox-0123456789abcdef0123456789';

export interface CaseResult {
  name: string;
  group: string;
  p50: number;
  p99: number;
  max: number;
  samples: number;
  /** Lists and point reads: the issue's ≤ 2× target applies. */
  flat: boolean;
}

export interface DatabaseFigures {
  label: string;
  scale: number;
  /** The first start of this run: it includes any pending migration. */
  firstStartMs: number;
  startMs: number;
  rssMb: number;
  peakRssMb: number;
  liveMb: number;
  walMb: number;
  backupMs: number | null;
  backupMb: number | null;
  cases: CaseResult[];
}

export interface MeasureOptions {
  /** Directory holding the built dist/ (and a node_modules link). */
  serverRoot: string;
  samples: number;
  /** Seconds per case at most (at least 3 samples are taken anyway). */
  budgetSeconds: number;
  backup: boolean;
  log: (line: string) => void;
}

const cursorOf = (id: string) => Buffer.from(JSON.stringify({ v: 1, id })).toString('base64url');

/** The ids a run needs, read from the file before the server starts (a read-only connection). */
function fixturesOf(dataDir: string) {
  const db = new SQLite(path.join(dataDir, 'live.sqlite'), { readonly: true, fileMustExist: true });
  try {
    const one = <T>(text: string, ...params: unknown[]) => db.prepare(text).get(...params) as T;
    const config = JSON.parse(one<{ value: string }>(`SELECT value FROM scale_bench_progress WHERE key = 'config'`).value) as {
      anchor: string;
      locations: Array<{ id: string; zone: string; vets: string[] }>;
    };
    const tenant = one<{ id: string }>('SELECT id FROM tenants ORDER BY id LIMIT 1').id;
    const location = config.locations[0]!;
    /** The id half-way down a list ordered by id desc: the deep page's cursor. */
    const middle = (table: string, where: string, ...params: unknown[]) => {
      const n = one<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE ${where}`, ...params).n;
      return one<{ id: string } | undefined>(`SELECT id FROM ${table} WHERE ${where} ORDER BY id DESC LIMIT 1 OFFSET ?`, ...params, Math.floor(n / 2))?.id;
    };
    // A pet with a history: the one of the appointment half-way down the first location's list.
    const petVisit = middle('appointments', 'tenant_id = ? AND location_id = ?', tenant, location.id)!;
    const pet = one<{ pet_id: string }>('SELECT pet_id FROM appointments WHERE id = ?', petVisit).pet_id;
    const parent = one<{ owner_id: string }>('SELECT owner_id FROM pets WHERE id = ?', pet).owner_id;
    const mid = (table: string) => middle(table, 'tenant_id = ?', tenant)!;
    return {
      tenant,
      anchor: config.anchor,
      location,
      pet,
      parent,
      appointment: mid('appointments'),
      invoice: mid('invoices'),
      payment: mid('payments'),
      vaccination: mid('vaccinations'),
      stay: middle('bookings', `tenant_id = ? AND kind = 'boarding'`, tenant)!,
      order: mid('marketplace_orders'),
      deep: {
        pets: mid('pets'),
        petsAt: middle('pets', 'tenant_id = ? AND location_id = ?', tenant, location.id)!,
        parents: mid('pet_parents'),
        appointments: mid('appointments'),
        appointmentsAt: middle('appointments', 'tenant_id = ? AND location_id = ?', tenant, location.id)!,
        appointmentsOfVet: middle('appointments', 'tenant_id = ? AND provider_id = ?', tenant, location.vets[0])!,
        invoices: mid('invoices'),
        invoicesOpen: middle('invoices', `tenant_id = ? AND status = 'open'`, tenant)!,
        payments: mid('payments'),
        stays: middle('bookings', `tenant_id = ? AND kind = 'boarding'`, tenant)!,
        orders: mid('marketplace_orders'),
        reviews: mid('provider_reviews'),
        ledger: mid('ledger_entries'),
      },
    };
  } finally {
    db.close();
  }
}

interface Server {
  url: string;
  child: ChildProcess;
  startMs: number;
  stop(): Promise<void>;
}

async function startServer(options: MeasureOptions & SideOptions, backupDir: string): Promise<Server> {
  const port = await freePort();
  const logFile = path.join(options.dataDir, 'scale-bench-server.log');
  const logFd = openSync(logFile, 'a');
  const before = performance.now();
  const child = spawn(process.execPath, [path.join(options.serverRoot, 'dist/src/main.js')], {
    cwd: options.serverRoot,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      PETCARE_DATA_DIR: options.dataDir,
      PETCARE_LOG_LEVEL: 'warn',
      PETCARE_ADMIN_CLIENT_ID: benchAdmin.clientId,
      PETCARE_ADMIN_CLIENT_SECRET: benchAdmin.clientSecret,
      PETCARE_SANDBOX_ADMIN_CLIENT_SECRET: sandboxSecret,
      PETCARE_RATE_LIMIT_PER_MINUTE: '100000000',
      // Archives go beside the data dir (removed after the run), encrypted as an operator's would be.
      PETCARE_BACKUP_DIR: backupDir,
      PETCARE_BACKUP_KEY: '5ca1ab1e'.repeat(8),
    },
    stdio: ['ignore', logFd, logFd],
  });
  closeSync(logFd);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30 * 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${readFileSync(logFile, 'utf8').slice(-2000)}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error('server not ready in 30 minutes');
    }
    try {
      const res = await fetch(`${url}/readyz`);
      await res.arrayBuffer();
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    await sleep(20);
  }
  const startMs = performance.now() - before;
  return {
    url,
    child,
    startMs,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const rssOf = (pid: number, field: 'VmRSS' | 'VmHWM') => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return line ? Number(line.replace(/\D+/g, '')) / 1024 : Number.NaN;
};

const mb = (file: string) => (existsSync(file) ? statSync(file).size / 1024 / 1024 : 0);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;

/** One database under test: its server, fixtures and results. */
interface Side {
  options: SideOptions;
  fx: ReturnType<typeof fixturesOf>;
  server: Server;
  firstStartMs: number;
  backupDir: string;
  call(method: string, pathname: string, body?: unknown): Promise<string>;
  cases: CaseResult[];
}

export interface SideOptions {
  label: string;
  scale: number;
  dataDir: string;
}

async function open(common: MeasureOptions, options: SideOptions): Promise<Side> {
  const fx = fixturesOf(options.dataDir);
  const backupDir = path.join(options.dataDir, '..', `backups-${path.basename(options.dataDir)}`);
  rmSync(backupDir, { recursive: true, force: true });
  mkdirSync(backupDir, { recursive: true });
  const serverOptions = { ...common, ...options };
  // A first start runs any migration the file has not had yet (new indexes over millions of rows): timed apart.
  common.log(`${options.label}: first start on ${options.dataDir} (pending migrations run here)`);
  const first = await startServer(serverOptions, backupDir);
  await first.stop();
  common.log(`${options.label}: first start to /readyz ${(first.startMs / 1000).toFixed(1)} s; starting again`);
  const server = await startServer(serverOptions, backupDir);
  const tokenRes = await fetch(`${server.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: benchAdmin.clientId, client_secret: benchAdmin.clientSecret }),
  });
  const token = ((await tokenRes.json()) as { access_token: string }).access_token;
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json', 'content-type': 'application/json' };
  let writes = 0;
  const call = async (method: string, pathname: string, body?: unknown) => {
    const init: RequestInit = {
      method,
      headers: method === 'GET' ? headers : { ...headers, 'idempotency-key': `scale-${process.pid}-${Date.now()}-${writes++}` },
    };
    if (body !== undefined) init.body = JSON.stringify(body);
    const res = await fetch(server.url + pathname, init);
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${pathname} answered ${res.status}: ${text.slice(0, 300)}`);
    return text;
  };
  return { options, fx, server, firstStartMs: first.startMs, backupDir, call, cases: [] };
}

/** A case: the request on one side (and what runs untimed before each sample). */
interface Case {
  group: string;
  name: string;
  flat: boolean;
  request: (side: Side) => Promise<unknown>;
  before?: (side: Side) => Promise<unknown>;
}

function casesOf(): Case[] {
  const cases: Case[] = [];
  const get = (pathname: (side: Side) => string) => (side: Side) => side.call('GET', pathname(side));
  const add = (group: string, name: string, flat: boolean, pathname: (side: Side) => string, before?: Case['before']) =>
    cases.push({ group, name, flat, request: get(pathname), ...(before ? { before } : {}) });
  const list = (name: string, pathname: (side: Side) => string, deepId: (side: Side) => string) => {
    add('list', `GET ${name}`, true, pathname);
    add('list', `GET ${name} (deep page)`, true, (side) => {
      const p = pathname(side);
      return `${p}${p.includes('?') ? '&' : '?'}cursor=${cursorOf(deepId(side))}`;
    });
  };
  const writePet = (side: Side) =>
    side.call('POST', '/v1/pets', { name: 'Scale write', species: 'dog', breed: 'Beagle', ownerId: side.fx.parent, locationId: side.fx.location.id });
  const loc = (side: Side) => side.fx.location.id;
  const vet = (side: Side) => side.fx.location.vets[0]!;
  list(
    '/v1/pets',
    () => '/v1/pets',
    (s) => s.fx.deep.pets,
  );
  list(
    '/v1/pets?locationId',
    (s) => `/v1/pets?locationId=${loc(s)}`,
    (s) => s.fx.deep.petsAt,
  );
  list(
    '/v1/pet-parents',
    () => '/v1/pet-parents',
    (s) => s.fx.deep.parents,
  );
  list(
    '/v1/appointments',
    () => '/v1/appointments',
    (s) => s.fx.deep.appointments,
  );
  list(
    '/v1/appointments?locationId',
    (s) => `/v1/appointments?locationId=${loc(s)}`,
    (s) => s.fx.deep.appointmentsAt,
  );
  list(
    '/v1/appointments?providerId',
    (s) => `/v1/appointments?providerId=${vet(s)}`,
    (s) => s.fx.deep.appointmentsOfVet,
  );
  add('list', 'GET /v1/appointments?petId', true, (s) => `/v1/appointments?petId=${s.fx.pet}`);
  list(
    '/v1/invoices',
    () => '/v1/invoices',
    (s) => s.fx.deep.invoices,
  );
  list(
    '/v1/invoices?status=open',
    () => '/v1/invoices?status=open',
    (s) => s.fx.deep.invoicesOpen,
  );
  add('list', 'GET /v1/invoices?parentId', true, (s) => `/v1/invoices?parentId=${s.fx.parent}`);
  add('list', 'GET /v1/invoices?parentId (first after a write)', true, (s) => `/v1/invoices?parentId=${s.fx.parent}`, writePet);
  list(
    '/v1/payments',
    () => '/v1/payments',
    (s) => s.fx.deep.payments,
  );
  add('list', 'GET /v1/payments?parentId', true, (s) => `/v1/payments?parentId=${s.fx.parent}`);
  add('list', 'GET /v1/pets/:id/vaccinations', true, (s) => `/v1/pets/${s.fx.pet}/vaccinations`);
  list(
    '/v1/boarding/bookings',
    () => '/v1/boarding/bookings',
    (s) => s.fx.deep.stays,
  );
  list(
    '/v1/orders',
    () => '/v1/orders',
    (s) => s.fx.deep.orders,
  );
  list(
    '/v1/providers/reviews',
    () => '/v1/providers/reviews',
    (s) => s.fx.deep.reviews,
  );
  list(
    '/v1/ledger/entries',
    () => '/v1/ledger/entries',
    (s) => s.fx.deep.ledger,
  );

  add('point', 'GET /v1/pets/:id', true, (s) => `/v1/pets/${s.fx.pet}`);
  add('point', 'GET /v1/pet-parents/:id', true, (s) => `/v1/pet-parents/${s.fx.parent}`);
  add('point', 'GET /v1/appointments/:id', true, (s) => `/v1/appointments/${s.fx.appointment}`);
  add('point', 'GET /v1/invoices/:id', true, (s) => `/v1/invoices/${s.fx.invoice}`);
  add('point', 'GET /v1/payments/:id', true, (s) => `/v1/payments/${s.fx.payment}`);
  add('point', 'GET /v1/vaccinations/:id', true, (s) => `/v1/vaccinations/${s.fx.vaccination}`);
  add('point', 'GET /v1/boarding/bookings/:id', true, (s) => `/v1/boarding/bookings/${s.fx.stay}`);
  add('point', 'GET /v1/orders/:id', true, (s) => `/v1/orders/${s.fx.order}`);

  const date = (s: Side, days: number) => DateTime.fromISO(s.fx.anchor, { zone: s.fx.location.zone }).plus({ days }).toISODate()!;
  add(
    'scheduling',
    'GET /v1/appointments/availability (1 vet, 14 days)',
    false,
    (s) => `/v1/appointments/availability?locationId=${loc(s)}&type=vet_consultation&providerId=${vet(s)}&from=${date(s, 1)}&to=${date(s, 14)}`,
  );
  add(
    'scheduling',
    'GET /v1/appointments/availability (location, 7 days)',
    false,
    (s) => `/v1/appointments/availability?locationId=${loc(s)}&type=vet_consultation&from=${date(s, 1)}&to=${date(s, 7)}&limit=5000`,
  );
  add('scheduling', 'GET /v1/boarding/occupancy (4 weeks)', false, (s) => `/v1/boarding/occupancy?locationId=${loc(s)}&from=${date(s, 0)}&to=${date(s, 27)}`);
  for (const [window, back] of [
    ['month', -30],
    ['year', -364],
  ] as const) {
    for (const [where, scoped] of [
      ['tenant-wide', false],
      ['one location', true],
    ] as const) {
      const pathname = (s: Side) => `/v1/analytics/summary?from=${date(s, back)}&to=${date(s, 0)}${scoped ? `&locationId=${loc(s)}` : ''}`;
      add('analytics', `GET /v1/analytics/summary ${window}, ${where}, cached`, false, pathname);
      add('analytics', `GET /v1/analytics/summary ${window}, ${where}, first after a write`, false, pathname, writePet);
    }
  }
  for (const metric of ['revenue_net', 'appointments_by_status', 'vaccination_compliance_rate'])
    add(
      'analytics',
      `GET /v1/analytics/metrics/${metric}/records (a year)`,
      false,
      (s) => `/v1/analytics/metrics/${metric}/records?from=${date(s, -364)}&to=${date(s, 0)}`,
    );
  for (const [window, back] of [
    ['a month', -30],
    ['a year', -364],
  ] as const)
    add(
      'analytics',
      `GET /v1/analytics/metrics/vaccination_compliance_rate by day, ${window}, tenant-wide, first after a write`,
      false,
      (s) => `/v1/analytics/metrics/vaccination_compliance_rate?interval=day&from=${date(s, back)}&to=${date(s, 0)}`,
      writePet,
    );
  // No write moves commission's figures here: each sample asks a year ending a day earlier than the last (never cached).
  const asked = new Map<Side, number>();
  add('analytics', 'GET /v1/analytics/metrics/commission_earned by day, a year, tenant-wide, uncached', false, (s) => {
    const k = (asked.get(s) ?? 0) + 1;
    asked.set(s, k);
    return `/v1/analytics/metrics/commission_earned?interval=day&from=${date(s, -364 - k)}&to=${date(s, -k)}`;
  });
  const agent = (scope: (s: Side) => string) => (s: Side) => s.call('POST', agentPath, { question: 'How many pets do we have?', scope: scope(s) });
  cases.push({ group: 'agent', name: 'POST agent query "How many pets…" (tenant)', flat: false, request: agent(() => 'tenant') });
  cases.push({ group: 'agent', name: 'POST agent query "How many pets…" (one location)', flat: false, request: agent(loc) });
  return cases;
}

let agentPath = '/v1/ai/agent/query';

/** Backup of one side: POST /v1/jobs/backup/run, waited for; its duration and the archive's size. */
async function backupOf(side: Side, log: (line: string) => void): Promise<{ ms: number; mb: number }> {
  log(`${side.options.label}: backup…`);
  const t0 = performance.now();
  const queued = JSON.parse(await side.call('POST', '/v1/jobs/backup/run', { wait: true, waitSeconds: 120 })) as { id: string; status: string };
  let status = queued.status;
  while (status !== 'succeeded' && status !== 'failed') {
    await sleep(1000);
    const job = JSON.parse(await side.call('GET', '/v1/jobs/backup')) as { recentRuns?: Array<{ id: string; status: string }> };
    status = (job.recentRuns ?? []).find((r) => r.id === queued.id)?.status ?? status;
  }
  if (status !== 'succeeded') throw new Error(`the backup failed: see ${path.join(side.options.dataDir, 'scale-bench-server.log')}`);
  const ms = performance.now() - t0;
  let size = 0;
  for (const file of readdirSync(side.backupDir)) size += mb(path.join(side.backupDir, file));
  return { ms, mb: size };
}

/**
 * Both databases in one run: both servers up at once, and every case samples them in turn (small,
 * big, small, …), so a busy machine slows both alike and the ratio stays meaningful.
 */
export async function measureBoth(common: MeasureOptions, sides: [SideOptions, SideOptions]): Promise<[DatabaseFigures, DatabaseFigures]> {
  const opened: Side[] = [];
  try {
    for (const options of sides) opened.push(await open(common, options));
    const [small, big] = opened as [Side, Side];
    // The agent's route is /ai/agent/query; some releases mount it under /v1 as well.
    const probe = await fetch(small.server.url + agentPath, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    await probe.arrayBuffer();
    if (probe.status === 404 || probe.status === 405) agentPath = '/ai/agent/query';
    for (const c of casesOf()) {
      const times = new Map<Side, number[]>(opened.map((side) => [side, []]));
      for (const side of opened) {
        await c.before?.(side);
        await c.request(side); // warm: statement caches, pages in memory
      }
      const budgetEnds = performance.now() + common.budgetSeconds * 1000;
      for (let i = 0; i < common.samples && (i < 3 || performance.now() < budgetEnds); i++) {
        for (const side of opened) {
          await c.before?.(side);
          const t0 = performance.now();
          await c.request(side);
          times.get(side)!.push(performance.now() - t0);
        }
      }
      const line: string[] = [];
      for (const side of opened) {
        const sorted = times.get(side)!.sort((a, b) => a - b);
        const result = {
          group: c.group,
          name: c.name,
          p50: percentile(sorted, 0.5),
          p99: percentile(sorted, 0.99),
          max: sorted[sorted.length - 1]!,
          samples: sorted.length,
          flat: c.flat,
        };
        side.cases.push(result);
        line.push(`p50 ${result.p50.toFixed(1).padStart(8)} p99 ${result.p99.toFixed(1).padStart(8)} ms`);
      }
      common.log(`${c.name.padEnd(66)} ${line.join('  |  ')}  (${times.get(small)!.length})`);
    }
    const figures: DatabaseFigures[] = [];
    for (const side of opened) {
      const pid = side.server.child.pid!;
      const rssMb = rssOf(pid, 'VmRSS');
      const peakRssMb = rssOf(pid, 'VmHWM');
      const backup = common.backup ? await backupOf(side, common.log) : null;
      figures.push({
        label: side.options.label,
        scale: side.options.scale,
        firstStartMs: side.firstStartMs,
        startMs: side.server.startMs,
        rssMb,
        peakRssMb,
        liveMb: mb(path.join(side.options.dataDir, 'live.sqlite')),
        walMb: mb(path.join(side.options.dataDir, 'live.sqlite-wal')),
        backupMs: backup?.ms ?? null,
        backupMb: backup?.mb ?? null,
        cases: side.cases,
      });
    }
    return figures as [DatabaseFigures, DatabaseFigures];
  } finally {
    for (const side of opened) {
      await side.server.stop();
      rmSync(side.backupDir, { recursive: true, force: true });
    }
  }
}
