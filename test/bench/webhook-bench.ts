/**
 * `npm run bench:webhooks`: what webhook delivery costs the write path, and whether it keeps up.
 * Builds, starts the appliance (node dist/src/main.js) and a subscriber on 127.0.0.1 that verifies
 * every signature (both in child processes), then measures with autocannon POST /v1/pets with no
 * active webhook endpoint ("off") and with one active endpoint subscribed to pet.registered ("on"),
 * in BENCH_ROUNDS rounds ordered off, on, on, off, off, on, … (ABBA: the VM's throughput drifts by
 * 20 % and more over a minute, and a drift then weighs on both sides alike). The endpoint is
 * disabled and enabled again between runs. It reports per run req/s, p99, server CPU per request,
 * events emitted and delivered per second, delivery lag (event createdAt → receipt, p50/p99) and
 * the time to drain after the load; then the write-path cost of the subscriber: 1 − (all "on"
 * requests per second) / (all "off" requests per second) (target ≤ 20 %), and the same per pair.
 *
 * Env: BENCH_DURATION (s, default 6), BENCH_ROUNDS (default 4), BENCH_WARMUP (s, default 2), BENCH_CONNECTIONS (default 50),
 * BENCH_SKIP_BUILD=1, BENCH_OUT_DIR (build into and run from this directory instead of dist/, which other
 * work in the same tree may rebuild during a run), BENCH_PIN=0 (by default with 2+ CPUs the server gets CPU 1; autocannon and
 * the subscriber share CPU 0), BENCH_JOB_POLL_MS (the gateway's PETCARE_JOB_POLL_MS, default 250).
 *
 * `npm run bench:webhooks -- --profile`: the same runs with the gateway under `node --cpu-prof`; the
 * profile is cut to the measured windows of the "off" and "on" runs and the difference per request
 * (what a delivery costs) is printed by function, owner and stage (bench-results/profiles/).
 */
import autocannon from 'autocannon';
import SQLite from 'better-sqlite3';
import { execSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, symlinkSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { summarizeProfile, type CpuProfile, type Summary } from '../../scripts/cpuprofile-summary.js';
import { freePort } from '../helpers/free-port.js';
import { benchAdmin, benchSetting, createFixtures, startGateway, type BenchFixtures, type GatewayServer, pinLoadGenerator } from './bench-servers.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const resultsDir = path.join(root, 'bench-results');

const number = benchSetting;
const duration = number('BENCH_DURATION', 6);
const rounds = Math.round(number('BENCH_ROUNDS', 4));
const warmup = Math.min(number('BENCH_WARMUP', 2), duration);
const connections = Math.round(number('BENCH_CONNECTIONS', 50));
const jobPollMs = Math.round(number('BENCH_JOB_POLL_MS', 250));
const target = { maxWritePathCost: 0.2 } as const;

const serverCpu = pinLoadGenerator();

/**
 * The subscriber, in its own process (CommonJS through `node -e`): verifies every delivery
 * Stripe-style against the secret it is given, counts, and records the lag from the event's
 * createdAt to receipt. GET /stats answers the counters.
 */
const subscriberScript = `
const http = require('node:http');
const { createHmac, timingSafeEqual } = require('node:crypto');
let secret = '';
let received = 0, verified = 0, bad = 0, duplicates = 0;
let lags = [];
const seen = new Set();
function verify(header, body) {
  let t; const v1 = [];
  for (const part of String(header || '').split(',')) {
    const i = part.indexOf('='); if (i < 0) continue;
    const k = part.slice(0, i), v = part.slice(i + 1);
    if (k === 't') t = v; else if (k === 'v1') v1.push(v);
  }
  if (!t || v1.length === 0 || Math.abs(Date.now() / 1000 - Number(t)) > 300) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(t + '.' + body).digest('hex'));
  return v1.some((s) => { const b = Buffer.from(s); return b.length === expected.length && timingSafeEqual(b, expected); });
}
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    if (req.url === '/secret') { secret = body; res.end('ok'); return; }
    if (req.url === '/reset') { received = verified = bad = duplicates = 0; lags = []; res.end('ok'); return; }
    if (req.url === '/stats') {
      const sorted = lags.slice().sort((a, b) => a - b);
      const pct = (p) => sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : null;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ received, verified, bad, duplicates, lagP50: pct(0.5), lagP99: pct(0.99), lagMax: sorted.length ? sorted[sorted.length - 1] : null, lastAt: Date.now() }));
      return;
    }
    received++;
    if (verify(req.headers['x-service-signature'], body)) verified++; else bad++;
    try {
      const event = JSON.parse(body);
      if (seen.has(event.id)) duplicates++; else seen.add(event.id);
      lags.push(Date.now() - Date.parse(event.createdAt));
    } catch { bad++; }
    res.writeHead(204); res.end();
  });
});
server.keepAliveTimeout = 65000;
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => { server.close(() => process.exit(0)); server.closeAllConnections(); });
`;

interface SubscriberStats {
  received: number;
  verified: number;
  bad: number;
  duplicates: number;
  lagP50: number | null;
  lagP99: number | null;
  lagMax: number | null;
}

async function startSubscriber() {
  const port = await freePort();
  const args = ['-e', subscriberScript];
  const child =
    serverCpu === undefined
      ? spawn(process.execPath, args, { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'] })
      : spawn('taskset', ['-c', '0', process.execPath, ...args], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'] });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${base}/stats`)).ok) break;
    } catch {
      await sleep(50);
    }
  }
  return {
    url: `${base}/hooks`,
    setSecret: async (secret: string) => void (await fetch(`${base}/secret`, { method: 'POST', body: secret })),
    reset: async () => void (await fetch(`${base}/reset`, { method: 'POST' })),
    stats: async () => (await (await fetch(`${base}/stats`)).json()) as SubscriberStats,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

async function api(url: string, method: string, pathname: string, body?: unknown, token?: string) {
  const res = await fetch(url + pathname, {
    method,
    headers: { 'content-type': 'application/json', accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${pathname} answered ${res.status}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

interface Measured {
  name: string;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  ok: number;
  non2xx: number;
  errors: number;
  serverCpuUsPerRequest: number | null;
  eventsEmitted: number;
  eventsPerSec: number;
  delivered: number | null;
  deliveredPerSec: number | null;
  lagP50Ms: number | null;
  lagP99Ms: number | null;
  lagMaxMs: number | null;
  backlogAtEnd: number | null;
  drainMs: number | null;
  /** With a subscriber: its signature checks of this run's deliveries. */
  signatures: { verified: number; bad: number; duplicates: number } | null;
  requests: number;
  /** CLOCK_MONOTONIC µs at the start and end of the measured run (to cut a --cpu-prof profile). */
  windowUs: [number, number];
}

const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

let keyCounter = 0;
const keyRun = Date.now().toString(36);
const postOptions = (url: string, fx: BenchFixtures, seconds: number): autocannon.Options => ({
  url,
  connections,
  duration: seconds,
  requests: [
    {
      method: 'POST',
      path: '/v1/pets',
      headers: { authorization: `Bearer ${fx.token}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ name: 'Bench pet', breed: 'Beagle', species: 'dog', ownerId: fx.ownerId, locationId: fx.locationId }),
      setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'idempotency-key': `wh-${keyRun}-${++keyCounter}` } }),
    },
  ],
});

const countEvents = (dataDir: string): number => {
  const db = new SQLite(path.join(dataDir, 'live.sqlite'), { readonly: true });
  try {
    return (db.prepare("select count(*) as n from events where type = 'pet.registered'").get() as { n: number }).n;
  } finally {
    db.close();
  }
};

type Subscriber = Awaited<ReturnType<typeof startSubscriber>>;

async function waitForReceived(subscriber: Subscriber, count: number, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while ((await subscriber.stats()).received < count && Date.now() - started < timeoutMs) await sleep(20);
  return Date.now() - started;
}

/** A warm-up, then the measured run; with a subscriber, its deliveries are counted from a reset after the warm-up drained. */
async function measure(name: string, gateway: GatewayServer, fx: BenchFixtures, subscriber: Subscriber | null): Promise<Measured> {
  if (subscriber) await subscriber.reset();
  const beforeWarmup = countEvents(gateway.dataDir);
  await autocannon(postOptions(gateway.url, fx, warmup));
  if (subscriber) {
    // The warm-up's deliveries land before the measured run's count starts.
    await waitForReceived(subscriber, countEvents(gateway.dataDir) - beforeWarmup, 30_000);
    await subscriber.reset();
  }
  const eventsBefore = countEvents(gateway.dataDir);
  const cpuBefore = gateway.cpuSeconds();
  const started = monotonicUs();
  const result = await autocannon(postOptions(gateway.url, fx, duration));
  const ended = monotonicUs();
  const cpuAfter = gateway.cpuSeconds();
  const eventsEmitted = countEvents(gateway.dataDir) - eventsBefore;
  let delivered: number | null = null;
  let drainMs: number | null = null;
  let stats: SubscriberStats | null = null;
  if (subscriber) {
    delivered = (await subscriber.stats()).received;
    drainMs = await waitForReceived(subscriber, eventsEmitted, 60_000);
    stats = await subscriber.stats();
  }
  const serverCpuUs = cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) * 1e6;
  return {
    name,
    reqPerSec: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    serverCpuUsPerRequest: serverCpuUs === null || result.requests.total === 0 ? null : serverCpuUs / result.requests.total,
    eventsEmitted,
    eventsPerSec: eventsEmitted / duration,
    delivered,
    deliveredPerSec: delivered === null ? null : delivered / duration,
    lagP50Ms: stats?.lagP50 ?? null,
    lagP99Ms: stats?.lagP99 ?? null,
    lagMaxMs: stats?.lagMax ?? null,
    backlogAtEnd: delivered === null ? null : eventsEmitted - delivered,
    drainMs,
    signatures: stats && { verified: stats.verified, bad: stats.bad, duplicates: stats.duplicates },
    requests: result.requests.total,
    windowUs: [started, ended],
  };
}

const fmt = (n: number | null, digits = 0) => (n === null ? '-' : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }));

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')).join('\n');
}

/** Per-request µs of (2) minus (1), by key: where the subscriber's extra CPU goes. */
function profileDiff(base: Summary, withSub: Summary, pick: (s: Summary) => Array<{ key: string; us: number }>, top: number): string {
  const per = new Map<string, number>();
  for (const { key, us } of pick(withSub)) per.set(key, (per.get(key) ?? 0) + us / (withSub.requests ?? 1));
  for (const { key, us } of pick(base)) per.set(key, (per.get(key) ?? 0) - us / (base.requests ?? 1));
  return [...per.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([key, us]) => `  ${us.toFixed(1).padStart(8)} µs/req  ${key}`)
    .join('\n');
}

/** One summary over several measured windows of a profile (their µs and requests added up). */
function summarizeWindows(profile: CpuProfile, runs: readonly Measured[]): Summary {
  const parts = runs.map((m) => summarizeProfile(profile, { requests: m.requests, from: m.windowUs[0], to: m.windowUs[1] }));
  const merge = (pick: (s: Summary) => Array<{ key: string; us: number }>) => {
    const map = new Map<string, number>();
    for (const part of parts) for (const { key, us } of pick(part)) map.set(key, (map.get(key) ?? 0) + us);
    return [...map].map(([key, us]) => ({ key, us }));
  };
  const sum = (pick: (s: Summary) => number) => parts.reduce((total, part) => total + pick(part), 0);
  return {
    samples: sum((p) => p.samples),
    totalUs: sum((p) => p.totalUs),
    idleUs: sum((p) => p.idleUs),
    activeUs: sum((p) => p.activeUs),
    requests: sum((p) => p.requests ?? 0),
    byFunction: merge((p) => p.byFunction),
    byOwner: merge((p) => p.byOwner),
    byStage: merge((p) => p.byStage),
  };
}

function reportProfile(file: string, off: readonly Measured[], on: readonly Measured[]): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const base = summarizeWindows(profile, off);
  const withSub = summarizeWindows(profile, on);
  const busy = (s: Summary) => (s.activeUs / (s.requests ?? 1)).toFixed(1);
  process.stdout.write(`\nprofile: ${path.relative(root, file)}\nbusy CPU per request: ${busy(base)} µs without, ${busy(withSub)} µs with the subscriber\n`);
  process.stdout.write(`\nextra per request by stage:\n${profileDiff(base, withSub, (s) => s.byStage, 25)}\n`);
  process.stdout.write(`\nextra per request by owner:\n${profileDiff(base, withSub, (s) => s.byOwner, 25)}\n`);
  process.stdout.write(`\nextra per request by function (self time):\n${profileDiff(base, withSub, (s) => s.byFunction, 40)}\n`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { profile: { type: 'boolean', default: false } } });
  const profileDir = path.join(resultsDir, 'profiles');
  const profileName = `gateway-webhooks-${new Date().toISOString().replace(/[:.]/g, '-')}.cpuprofile`;
  if (values.profile) mkdirSync(profileDir, { recursive: true });
  const outDir = process.env.BENCH_OUT_DIR ? path.resolve(process.env.BENCH_OUT_DIR) : null;
  // A private root: its own dist/, this tree's package.json and node_modules.
  const gatewayRoot = outDir ?? root;
  if (outDir) {
    mkdirSync(outDir, { recursive: true });
    copyFileSync(path.join(root, 'package.json'), path.join(outDir, 'package.json'));
    if (!existsSync(path.join(outDir, 'node_modules'))) symlinkSync(path.join(root, 'node_modules'), path.join(outDir, 'node_modules'));
  }
  if (process.env.BENCH_SKIP_BUILD !== '1') {
    process.stdout.write(`building (${outDir ? `tsc into ${outDir}/dist` : 'npm run build'})…\n`);
    if (outDir)
      execSync(`npx tsc -p tsconfig.build.json --outDir ${JSON.stringify(path.join(outDir, 'dist'))}`, { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    else execSync('npm run build', { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const pinned = serverCpu === undefined ? 'not pinned' : `server on CPU ${serverCpu}; autocannon and the subscriber on CPU 0`;
  process.stdout.write(
    `${connections} connections, ${rounds} rounds of off and on runs, ${warmup} s warm-up + ${duration} s per run, job poll ${jobPollMs} ms, ${pinned}\n`,
  );
  const [load1] = os.loadavg();
  if (load1 !== undefined && load1 > 0.5)
    process.stdout.write(`note: load average ${load1.toFixed(2)} before start; other work on this machine skews the numbers\n`);

  const subscriber = await startSubscriber();
  const gateway = await startGateway(gatewayRoot, {
    cpu: serverCpu,
    env: { PETCARE_WEBHOOK_ALLOW_HOSTS: '127.0.0.1', PETCARE_JOB_POLL_MS: String(jobPollMs) },
    ...(values.profile ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${profileName}`] } : {}),
  });
  const runs: Measured[] = [];
  const verified = { verified: 0, bad: 0, duplicates: 0 };
  try {
    const fx = await createFixtures(gateway.url);
    const admin = String(
      (
        await api(gateway.url, 'POST', '/oauth/token', {
          grant_type: 'client_credentials',
          client_id: benchAdmin.clientId,
          client_secret: benchAdmin.clientSecret,
        })
      ).access_token,
    );

    // One extra warm-up for the JIT and the page cache, so the first run is not the cold one.
    await autocannon(postOptions(gateway.url, fx, warmup));
    const endpoint = await api(gateway.url, 'POST', '/v1/webhook-endpoints', { url: subscriber.url, events: ['pet.registered'] }, admin);
    await subscriber.setSecret(String(endpoint.secret));
    const setEnabled = (enabled: boolean) => api(gateway.url, 'PATCH', `/v1/webhook-endpoints/${String(endpoint.id)}`, { enabled }, admin);
    let enabled = true;
    // ABBA: off, on, on, off, off, on, … so that a steady drift weighs on both sides alike.
    for (let i = 0; i < 2 * rounds; i++) {
      const on = i % 4 === 1 || i % 4 === 2;
      if (on !== enabled) await setEnabled((enabled = on));
      const name = `(${i + 1}) ${on ? 'on: one active subscriber' : 'off: no active endpoint'}`;
      process.stdout.write(`${name}…\n`);
      runs.push(await measure(name, gateway, fx, on ? subscriber : null));
    }
    // Each "on" run counts from a reset: the signature checks of all of them.
    for (const m of runs) {
      if (!m.signatures) continue;
      verified.verified += m.signatures.verified;
      verified.bad += m.signatures.bad;
      verified.duplicates += m.signatures.duplicates;
    }
  } finally {
    await gateway.stop();
    await subscriber.stop();
  }

  const offRuns = runs.filter((m) => m.delivered === null);
  const onRuns = runs.filter((m) => m.delivered !== null);
  const rate = (list: Measured[]) => list.reduce((n, m) => n + m.requests, 0) / (list.length * duration);
  const cpuPerRequest = (list: Measured[]) =>
    list.every((m) => m.serverCpuUsPerRequest !== null)
      ? list.reduce((n, m) => n + m.serverCpuUsPerRequest! * m.requests, 0) / list.reduce((n, m) => n + m.requests, 0)
      : null;
  const cost = 1 - rate(onRuns) / rate(offRuns);
  const offCpu = cpuPerRequest(offRuns);
  const onCpu = cpuPerRequest(onRuns);
  const cpuCost = offCpu && onCpu ? onCpu / offCpu - 1 : null;
  // Each "on" run against the "off" run beside it in the ABBA order (1–2, 3–4, …): how much the cost moves between pairs.
  const pairCosts = runs.flatMap((m, i) =>
    i % 2 === 1 ? [1 - (m.delivered !== null ? m.reqPerSec / runs[i - 1]!.reqPerSec : runs[i - 1]!.reqPerSec / m.reqPerSec)] : [],
  );
  const delivered = onRuns.reduce((n, m) => n + (m.delivered ?? 0), 0);
  const emitted = onRuns.reduce((n, m) => n + m.eventsEmitted, 0);
  const keptUp = delivered >= emitted * 0.95 && onRuns.every((m) => (m.drainMs ?? Infinity) < 2000);
  const rows = [
    [
      'run',
      'req/s',
      'p50 ms',
      'p99 ms',
      '2xx',
      'non-2xx',
      'server CPU µs/req',
      'events/s',
      'delivered/s',
      'lag p50 ms',
      'lag p99 ms',
      'lag max ms',
      'backlog at end',
      'drain ms',
    ],
    ...runs.map((m) => [
      m.name,
      fmt(m.reqPerSec),
      fmt(m.p50Ms),
      fmt(m.p99Ms),
      fmt(m.ok),
      fmt(m.non2xx + m.errors),
      fmt(m.serverCpuUsPerRequest, 1),
      fmt(m.eventsPerSec),
      fmt(m.deliveredPerSec),
      fmt(m.lagP50Ms),
      fmt(m.lagP99Ms),
      fmt(m.lagMaxMs),
      fmt(m.backlogAtEnd),
      fmt(m.drainMs),
    ]),
  ];
  process.stdout.write(`\n${table(rows)}\n\n`);
  process.stdout.write(`signatures: ${verified.verified} verified, ${verified.bad} bad, ${verified.duplicates} duplicate deliveries\n`);
  process.stdout.write(`req/s: ${fmt(rate(offRuns))} off, ${fmt(rate(onRuns))} on; server CPU per request: ${fmt(offCpu, 1)} µs off, ${fmt(onCpu, 1)} µs on\n`);
  process.stdout.write(
    `write-path cost of one active subscriber: ${(100 * cost).toFixed(1)} % req/s` +
      (cpuCost === null ? '' : `, ${(100 * cpuCost).toFixed(1)} % server CPU per request`) +
      ` (target ≤ ${100 * target.maxWritePathCost} %)  ${cost <= target.maxWritePathCost ? 'PASS' : 'MISS'}\n`,
  );
  process.stdout.write(`per pair (runs 1–2, 3–4, …): ${pairCosts.map((c) => `${(100 * c).toFixed(1)} %`).join(', ')}\n`);
  process.stdout.write(
    `delivery kept up: ${keptUp ? 'yes' : 'no'} (${fmt(delivered)} of ${fmt(emitted)} events delivered during the "on" runs, each drained within ${fmt(Math.max(...onRuns.map((m) => m.drainMs ?? Infinity)))} ms)\n`,
  );

  if (values.profile) {
    if (!readdirSync(profileDir).includes(profileName)) throw new Error(`no profile written at ${path.join(profileDir, profileName)}`);
    reportProfile(path.join(profileDir, profileName), offRuns, onRuns);
  }

  mkdirSync(resultsDir, { recursive: true });
  const data = {
    at: new Date().toISOString(),
    environment: {
      node: process.version,
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? '?',
      loadAverage: os.loadavg(),
      serverCpu: serverCpu ?? null,
      connections,
      duration,
      rounds,
      warmup,
      jobPollMs,
    },
    runs,
    writePathCost: cost,
    serverCpuCost: cpuCost,
    pairCosts,
    keptUp,
    signatures: verified,
  };
  const file = path.join(resultsDir, `webhooks-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  writeFileSync(path.join(resultsDir, 'webhooks-latest.json'), `${JSON.stringify(data, null, 2)}\n`);
  process.stdout.write(`results: ${path.relative(root, file)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
