import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** A server the benchmark started in a child process, so it has a core of its own and no tsx loader. */
export interface BenchServer {
  readonly url: string;
  readonly child: ChildProcess;
  /** CPU seconds (user + system) the server process has used so far; null where /proc is missing. */
  cpuSeconds(): number | null;
  /** SIGTERM, then wait for exit (a --cpu-prof profile is written on exit). */
  stop(): Promise<void>;
}

export const benchAdmin = { clientId: 'pk_live_benchadmin', clientSecret: 'sk_live_benchadminsecret' } as const;

/** A port nobody listens on right now (the gateway logs its port only at info level). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

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

const helloWorld = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end('hello world');
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => { server.close(() => process.exit(0)); server.closeAllConnections(); });
`;

/** (a) the baseline: the cheapest possible Node HTTP server. */
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
      PETCARE_LOG_LEVEL: options.logLevel ?? 'warn',
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

/** The few fields the setup reads from API responses. */
type Fields = Record<string, string>;

async function call(url: string, method: string, pathname: string, body: unknown, token?: string): Promise<{ status: number; body: Fields }> {
  const res = await fetch(url + pathname, {
    method,
    headers: { 'content-type': 'application/json', accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Fields) : {} };
}

async function expect(url: string, method: string, pathname: string, status: number, body: unknown, token?: string): Promise<Fields> {
  const res = await call(url, method, pathname, body, token);
  if (res.status !== status) throw new Error(`${method} ${pathname} answered ${res.status}, expected ${status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

async function accessToken(url: string, clientId: string, clientSecret: string): Promise<string> {
  const body = await expect(url, 'POST', '/oauth/token', 200, { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });
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
  const location = await expect(url, 'POST', '/v1/locations', 201, { name: 'Bench clinic', timezone: 'Europe/London' }, admin);
  const parent = await expect(url, 'POST', '/v1/pet-parents', 201, { name: 'Bench parent', email: 'bench@example.com', locationId: location.id }, admin);
  const pet = await expect(url, 'POST', '/v1/pets', 201, { name: 'Rex', breed: 'Beagle', species: 'dog', ownerId: parent.id, locationId: location.id }, admin);
  const client = await expect(url, 'POST', '/v1/clients', 201, { name: 'bench', role: 'staff', scopes: ['pets'], rateLimitPerMinute: 100_000_000 }, admin);
  const token = await accessToken(url, String(client.clientId), String(client.clientSecret));
  // One call through the pipeline proves the token and the fixtures before the load starts.
  await expect(url, 'GET', `/v1/pets/${pet.id}`, 200, undefined, token);
  return { petId: String(pet.id), locationId: String(location.id), ownerId: String(parent.id), token };
}
