import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../helpers/free-port.js';

/** A positive number from the environment (BENCH_DURATION, BENCH_CONNECTIONS, …), else the fallback. */
export function benchSetting(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
}

/**
 * Pins this process (the load generator) to CPU 0 and returns the CPU for the server (1), or
 * undefined when pinning is off (BENCH_PIN=0) or impossible: with 2+ CPUs and taskset, server
 * and load never take turns on one core, so a profile shows the server's own costs.
 */
export function pinLoadGenerator(): number | undefined {
  if (process.env.BENCH_PIN === '0' || os.cpus().length < 2) return undefined;
  try {
    execFileSync('taskset', ['-cp', '0', String(process.pid)], { stdio: 'ignore' });
    return 1;
  } catch {
    return undefined;
  }
}

/** A server the benchmark started in a child process, so it has a core of its own and no tsx loader. */
export interface BenchServer {
  readonly url: string;
  readonly child: ChildProcess;
  /** CPU seconds (user + system) the server process has used so far; null where /proc is missing. */
  cpuSeconds(): number | null;
  /** SIGTERM, then wait for exit (a --cpu-prof profile is written on exit). */
  stop(): Promise<void>;
}

export const benchAdmin = { clientId: 'pk_live_benchadmin', clientSecret: 'sk_live_benchadminsecret-0123456789abcdef01234567' } as const;

/** utime + stime of a process from /proc/<pid>/stat (clock ticks, USER_HZ = 100 on Linux). */
function cpuSecondsOf(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** `node …`, or `taskset -c <cpu> node …` so server and load generator do not take turns on one core. */
function spawnNode(args: string[], cpu: number | undefined, options: SpawnOptions): ChildProcess {
  return cpu === undefined ? spawn(process.execPath, args, options) : spawn('taskset', ['-c', String(cpu), process.execPath, ...args], options);
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function waitForHttp(url: string, child: ChildProcess, describeFailure: () => string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with code ${child.exitCode}\n${describeFailure()}`);
    try {
      const res = await fetch(url);
      if (res.ok) {
        await res.arrayBuffer();
        return;
      }
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`server at ${url} did not become ready in ${timeoutMs} ms\n${describeFailure()}`);
}

// The acceptance harness's baseline: the smallest JSON answer, as the gateway's are JSON.
const helloWorld = `
const http = require('node:http');
const body = JSON.stringify({ ok: true });
const server = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(body);
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => { server.close(() => process.exit(0)); server.closeAllConnections(); });
`;

/** (a) the baseline: the cheapest possible Node HTTP server, answering {"ok":true}. */
export async function startHelloWorld(cpu?: number): Promise<BenchServer> {
  const port = await freePort();
  const child = spawnNode(['-e', helloWorld], cpu, { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(url, child, () => '');
  return {
    url,
    child,
    cpuSeconds: () => cpuSecondsOf(child.pid),
    async stop() {
      child.kill('SIGTERM');
      await exited(child);
    },
  };
}

export interface GatewayOptions {
  /** Extra node flags, e.g. --cpu-prof. */
  nodeArgs?: string[];
  logLevel?: string;
  env?: Record<string, string>;
  /** Pin the server to this CPU (taskset). */
  cpu?: number;
}

export interface GatewayServer extends BenchServer {
  readonly dataDir: string;
}

/**
 * (b)/(c) the real appliance: `node dist/src/main.js` exactly as `npm start` runs it after its build,
 * with a throwaway data dir and the bench admin bootstrapped from the environment.
 */
export async function startGateway(root: string, options: GatewayOptions = {}): Promise<GatewayServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'petcare-bench-'));
  const logFile = path.join(dataDir, 'server.log');
  const logFd = openSync(logFile, 'a');
  const child = spawnNode([...(options.nodeArgs ?? []), path.join(root, 'dist/src/main.js')], options.cpu, {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      PETCARE_DATA_DIR: dataDir,
      PETCARE_LOG_LEVEL: options.logLevel ?? 'info',
      PETCARE_ADMIN_CLIENT_ID: benchAdmin.clientId,
      PETCARE_ADMIN_CLIENT_SECRET: benchAdmin.clientSecret,
      ...options.env,
    },
    // Logs go to a file, as they would to a disk or a collector: cheap, and never a pipe nobody reads.
    stdio: ['ignore', logFd, logFd],
  });
  closeSync(logFd);
  const url = `http://127.0.0.1:${port}`;
  const tail = () => {
    try {
      return readFileSync(logFile, 'utf8').split('\n').slice(-30).join('\n');
    } catch {
      return '';
    }
  };
  try {
    await waitForHttp(`${url}/healthz`, child, tail);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return {
    url,
    child,
    dataDir,
    cpuSeconds: () => cpuSecondsOf(child.pid),
    async stop() {
      child.kill('SIGTERM');
      await exited(child);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The fields the setup reads from API responses. */
export type Fields = Record<string, unknown>;

async function call(url: string, method: string, pathname: string, body: unknown, token?: string): Promise<{ status: number; body: Fields }> {
  const res = await fetch(url + pathname, {
    method,
    headers: { 'content-type': 'application/json', accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Fields) : {} };
}

/** One API call of a fixture: the answer's body, or an error naming the call when the status is not `status`. */
export async function expectStatus(url: string, method: string, pathname: string, status: number, body: unknown, token?: string): Promise<Fields> {
  const res = await call(url, method, pathname, body, token);
  if (res.status !== status) throw new Error(`${method} ${pathname} answered ${res.status}, expected ${status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A client-credentials access token. */
export async function accessToken(url: string, clientId: string, clientSecret: string): Promise<string> {
  const body = await expectStatus(url, 'POST', '/oauth/token', 200, { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });
  return String(body.access_token);
}

export interface BenchFixtures {
  petId: string;
  locationId: string;
  ownerId: string;
  /** Token of a staff client with scope `pets` whose rate limit is lifted for the benchmark. */
  token: string;
}

/** Location → parent → pet through the admin API, and a bench client with rateLimitPerMinute 100000000. */
export async function createFixtures(url: string): Promise<BenchFixtures> {
  const admin = await accessToken(url, benchAdmin.clientId, benchAdmin.clientSecret);
  const location = await expectStatus(url, 'POST', '/v1/locations', 201, { name: 'Bench clinic', timezone: 'Europe/London' }, admin);
  const parent = await expectStatus(url, 'POST', '/v1/pet-parents', 201, { name: 'Bench parent', email: 'bench@example.com', locationId: location.id }, admin);
  const pet = await expectStatus(
    url,
    'POST',
    '/v1/pets',
    201,
    { name: 'Rex', breed: 'Beagle', species: 'dog', ownerId: parent.id, locationId: location.id },
    admin,
  );
  const client = await expectStatus(
    url,
    'POST',
    '/v1/clients',
    201,
    { name: 'bench', role: 'staff', scopes: ['pets'], rateLimitPerMinute: 100_000_000 },
    admin,
  );
  const token = await accessToken(url, String(client.clientId), String(client.clientSecret));
  // One call through the pipeline proves the token and the fixtures before the load starts.
  await expectStatus(url, 'GET', `/v1/pets/${pet.id}`, 200, undefined, token);
  return { petId: String(pet.id), locationId: String(location.id), ownerId: String(parent.id), token };
}

/** The scheduling load: one location, 20 providers with working hours, 10,000 booked appointments. */
export interface SchedulingFixtures {
  locationId: string;
  petId: string;
  providerIds: string[];
  /** Token of a staff client with `bookings` (rate limit lifted). */
  token: string;
  /** The availability query: 14 days from tomorrow (dates in the location's zone). */
  availabilityPath: string;
  /** Free slots, in order, for the POST /v1/appointments run: each request books the next one. */
  freeSlots: Array<{ providerId: string; startsAt: string }>;
  bookedAppointments: number;
  /** Slots in one availability answer. */
  availabilitySlots: number;
}

const benchZone = 'Europe/London';
const benchProviders = 20;
const benchBooked = 10_000;
const workingDays = [1, 2, 3, 4, 5, 6];
/** vet_consultation: 30 minutes and 10 after, so 40-minute steps never collide. */
const visitMinutes = 30;
const stepMinutes = 40;
const dayStartMinutes = 8 * 60;
const dayEndMinutes = 18 * 60;

/**
 * Providers and schedules through the API; the 10,000 appointments (±45 days around today, about six
 * a working day per provider on a 60-minute grid) by direct SQLite inserts into the server's file,
 * which is much faster and which WAL lets happen while the server runs. POST slots start 50 days out,
 * past every fixture.
 */
export async function createSchedulingFixtures(url: string, dataDir: string, slotsWanted = 120_000): Promise<SchedulingFixtures> {
  const [{ DateTime }, { default: SQLite }, { newId, randomSecret }] = await Promise.all([
    import('luxon'),
    import('better-sqlite3'),
    import('../../src/db/ids.js'),
  ]);
  const admin = await accessToken(url, benchAdmin.clientId, benchAdmin.clientSecret);
  const location = await expectStatus(url, 'POST', '/v1/locations', 201, { name: 'Bench scheduling clinic', timezone: benchZone }, admin);
  const parent = await expectStatus(url, 'POST', '/v1/pet-parents', 201, { name: 'Bench owner', locationId: location.id }, admin);
  const pet = await expectStatus(
    url,
    'POST',
    '/v1/pets',
    201,
    { name: 'Bench dog', breed: 'Beagle', species: 'dog', ownerId: parent.id, locationId: location.id },
    admin,
  );
  const weekly = workingDays.map((weekday) => ({ weekday, start: '08:00', end: '18:00' }));
  const providerIds: string[] = [];
  for (let i = 0; i < benchProviders; i++) {
    const provider = await expectStatus(
      url,
      'POST',
      '/v1/providers',
      201,
      { name: `Bench vet ${String(i + 1).padStart(2, '0')}`, kind: 'vet', locationIds: [location.id] },
      admin,
    );
    await expectStatus(url, 'PUT', `/v1/appointments/schedules/${provider.id}`, 200, { locationId: location.id, weekly }, admin);
    providerIds.push(String(provider.id));
  }
  const client = await expectStatus(
    url,
    'POST',
    '/v1/clients',
    201,
    { name: 'bench scheduling', role: 'staff', scopes: ['pets', 'bookings'], rateLimitPerMinute: 100_000_000 },
    admin,
  );
  const token = await accessToken(url, String(client.clientId), String(client.clientSecret));

  const today = DateTime.now().setZone(benchZone).startOf('day');
  const localSlot = (day: typeof today, minutes: number) => day.plus({ minutes }).toUTC();
  const db = new SQLite(path.join(dataDir, 'live.sqlite'));
  let booked = 0;
  try {
    db.pragma('busy_timeout = 10000');
    const tenantId = (db.prepare('select id from tenants limit 1').get() as { id: string }).id;
    const insert = db.prepare(
      `insert into appointments (id, tenant_id, location_id, pet_id, provider_id, type, status, starts_at, ends_at, notes, created_at, updated_at, blocked_from, blocked_until, calendar_token, sequence)
       values (?, ?, ?, ?, ?, 'vet_consultation', ?, ?, ?, null, ?, ?, ?, ?, ?, 0)`,
    );
    const hours = Array.from({ length: (dayEndMinutes - dayStartMinutes) / 60 }, (_, i) => dayStartMinutes + i * 60);
    const nowIso = new Date().toISOString();
    db.transaction(() => {
      let round = 0;
      // Day by day from 45 days back, each provider takes the next hours of its day; until 10,000 are placed.
      for (let offset = -45; booked < benchBooked && offset < 200; offset++) {
        const day = today.plus({ days: offset });
        if (!workingDays.includes(day.weekday)) continue;
        for (const providerId of providerIds) {
          // Six or seven of the ten hours, a different pattern per provider and day.
          const count = 6 + ((round++ * 7) % 2);
          for (let k = 0; k < count && booked < benchBooked; k++) {
            const minutes = hours[(k * 3 + round) % hours.length]!;
            const start = localSlot(day, minutes);
            const end = start.plus({ minutes: visitMinutes });
            const startIso = start.toISO()!;
            const endIso = end.toISO()!;
            const status = offset < 0 ? (k % 5 === 0 ? 'cancelled' : 'completed') : 'confirmed';
            insert.run(
              newId('apt'),
              tenantId,
              location.id,
              pet.id,
              providerId,
              status,
              startIso,
              endIso,
              nowIso,
              nowIso,
              startIso,
              end.plus({ minutes: 10 }).toISO()!,
              `ct_live_${randomSecret(24)}`,
            );
            booked++;
          }
        }
      }
    })();
  } finally {
    db.close();
  }

  // Free slots for the POST run: from 50 days out, every working day, 40-minute steps, round-robin over the providers.
  const freeSlots: Array<{ providerId: string; startsAt: string }> = [];
  for (let offset = 50; freeSlots.length < slotsWanted && offset < 720; offset++) {
    const day = today.plus({ days: offset });
    if (!workingDays.includes(day.weekday)) continue;
    for (let minutes = dayStartMinutes; minutes + visitMinutes <= dayEndMinutes; minutes += stepMinutes) {
      const startsAt = localSlot(day, minutes).toISO()!;
      for (const providerId of providerIds) freeSlots.push({ providerId, startsAt });
    }
  }

  const from = today.plus({ days: 1 }).toISODate()!;
  const to = today.plus({ days: 14 }).toISODate()!;
  // limit=5000: the whole fortnight in one answer (about 1,600 slots), not the default first 1,000.
  const availabilityPath = `/v1/appointments/availability?locationId=${location.id}&type=vet_consultation&from=${from}&to=${to}&limit=5000`;
  // One call of each proves the fixtures before the load starts.
  const probe = await expectStatus(url, 'GET', availabilityPath, 200, undefined, token);
  if (!Array.isArray(probe.data) || probe.data.length === 0) throw new Error('availability returned no slots for the bench fixtures');
  const availabilitySlots = probe.data.length;
  return {
    locationId: String(location.id),
    petId: String(pet.id),
    providerIds,
    token,
    availabilityPath,
    freeSlots,
    bookedAppointments: booked,
    availabilitySlots,
  };
}
