/**
 * `npm run bench:import` (issue 29): moving a practice in through POST /v1/imports, against the same
 * pets sent one by one through POST /v1/pets, on one server in one run.
 *
 * Generates (deterministic from --seed, streamed to temp files, never held in memory) 40,000 pet
 * parents, 100,000 pets spread over them and 300,000 vaccinations spread over the pets, as CSV files
 * with the columns of GET /v1/imports/templates/{type}; starts the server as `npm start` runs it
 * (compiled into .cache/import-bench, so dist/ is left alone); then, in order:
 *   1. a quiet probe: GET /v1/pets/:id every 50 ms and nothing else (latency counted from when each
 *      probe was due, so a blocked event loop shows);
 *   2. POST /v1/pets one by one, sequentially and with --concurrency requests in flight (--one-by-one pets each);
 *   3. the three imports, parents then pets then vaccinations, each uploaded by curl (a process of its
 *      own) and polled until done, with the probe running and the server's RSS sampled throughout;
 *   4. the quiet probe again, and the RSS once the server has settled.
 * Prints rows/s per type (from the upload's start to the import's finishedAt), the ratio of the pets
 * import to the one-by-one rates (target ≥ 20×), the server's RSS before, during (peak) and after
 * (target: growth < 100 MB of the anonymous part; shown whole, anonymous (RssAnon) and file-backed
 * (RssFile + RssShmem: the database file SQLite maps, which grows with the file), every thread counted), and the probe's p99 during each import against the
 * quiet p99 (target ≤ 3×). Results go to bench-results/import-*.json (ignored).
 *
 *   npm run bench:import                                   100,000 pets, 40,000 parents, 300,000 vaccinations
 *   npm run bench:import -- --pets 10000                   a tenth (parents 0.4 × and vaccinations 3 × the pets unless given)
 *   npm run bench:import -- --profile                      the server under `node --cpu-prof`; the imports' window summarised
 *
 * Options: --parents, --vaccinations, --one-by-one (2000), --concurrency (16), --seed (29), --rerun (import
 * the pets file again: every row unchanged), --skip-build (reuse .cache/import-bench/dist), --server-node-args
 * (flags for the server's node, e.g. --server-node-args=--max-old-space-size=128 to tell garbage from what is kept). Env: BENCH_PIN=0
 * (no taskset), BENCH_LOG_LEVEL (the server's, default info).
 */
import { execFile, execSync } from 'node:child_process';
import { once } from 'node:events';
import {
  copyFileSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { formatSummary, summarizeProfile, type CpuProfile } from '../../scripts/cpuprofile-summary.js';
import { accessToken, benchAdmin, createFixtures, expectStatus, pinLoadGenerator, startGateway, type Fields, type GatewayServer } from './bench-servers.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({
  options: {
    pets: { type: 'string', default: '100000' },
    parents: { type: 'string' },
    vaccinations: { type: 'string' },
    'one-by-one': { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '16' },
    seed: { type: 'string', default: '29' },
    profile: { type: 'boolean', default: false },
    rerun: { type: 'boolean', default: false },
    'skip-build': { type: 'boolean', default: false },
    'server-node-args': { type: 'string', default: '' },
  },
});
const count = (name: string, text: string | undefined): number => {
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} must be a positive whole number`);
  return value;
};
const pets = count('pets', values.pets);
const parents = count('parents', values.parents ?? String(Math.max(1, Math.round(pets * 0.4))));
const vaccinations = count('vaccinations', values.vaccinations ?? String(pets * 3));
const oneByOne = count('one-by-one', values['one-by-one']);
const concurrency = count('concurrency', values.concurrency);
const seed = count('seed', values.seed);

// Issue 29's targets.
const targets = { importOverOneByOne: 20, rssGrowthMb: 100, probeOverQuiet: 3 } as const;

const serverCpu = pinLoadGenerator();
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const log = (line: string) => process.stdout.write(`${line}\n`);

// ---- The files: deterministic, written as they are generated (backpressure respected) ----

/** mulberry32: a small PRNG, so the same seed writes the same files. */
function prng(state: number): () => number {
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const firstNames = [
  'Alex',
  'Priya',
  'Siobhan',
  'Tomas',
  'Grace',
  'Daniel',
  'Hannah',
  'Mateo',
  'Aisha',
  'Liam',
  'Yuki',
  'Olivia',
  'Noah',
  'Fatima',
  'Erik',
  'Chloe',
];
const lastNames = [
  'Morgan',
  'Natarajan',
  'OBrien',
  'Alvarez',
  'Whitfield',
  'Kim',
  'Berg',
  'Rossi',
  'Okafor',
  'Murphy',
  'Tanaka',
  'Schmidt',
  'Dubois',
  'Haddad',
  'Novak',
  'Silva',
];
const petNames = ['Bella', 'Milo', 'Luna', 'Biscuit', 'Otis', 'Cleo', 'Kiwi', 'Rocky', 'Nala', 'Max', 'Pepper', 'Ziggy', 'Mochi', 'Hazel', 'Bruno', 'Willow'];
const kinds: Array<{ species: string; breeds: string[]; vaccines: string[] }> = [
  {
    species: 'dog',
    breeds: ['Labrador Retriever', 'Border Collie', 'French Bulldog', 'German Shepherd', 'Beagle', 'Cockapoo'],
    vaccines: ['Rabies', 'DHPP', 'Leptospirosis', 'Bordetella'],
  },
  { species: 'cat', breeds: ['Domestic Shorthair', 'Maine Coon', 'Siamese', 'British Shorthair'], vaccines: ['Rabies', 'FVRCP', 'FeLV'] },
  { species: 'rabbit', breeds: ['Holland Lop', 'Netherland Dwarf'], vaccines: ['RHDV2', 'Myxomatosis'] },
];
const sizes = ['small', 'medium', 'large', 'xlarge'];
const dayMs = 86_400_000;
/** Every date is counted from this anchor, not from today, so the files are the same whenever they are generated. */
const anchorDay = Date.UTC(2026, 5, 1) / dayMs;
const isoDay = (day: number) => new Date(day * dayMs).toISOString().slice(0, 10);

const parentId = (i: number) => `C${String(i).padStart(7, '0')}`;
const petId = (i: number) => `P${String(i).padStart(7, '0')}`;
/** Pet i's owner, and its birth day: the same function is used by the pets and the vaccinations files. */
const ownerOf = (i: number) => Math.floor((i * parents) / pets);
const kindOf = (i: number) => kinds[i % 10 < 6 ? 0 : i % 10 < 9 ? 1 : 2]!;
const birthDayOf = (i: number) => anchorDay - 200 - Math.floor(prng(seed * 1_000_003 + i)() * 5000);

async function writeLines(file: string, header: string, rows: number, line: (i: number) => string): Promise<number> {
  const out = createWriteStream(file);
  out.write(`${header}\n`);
  const chunk: string[] = [];
  for (let i = 0; i < rows; i++) {
    chunk.push(line(i));
    if (chunk.length === 1000 || i === rows - 1) {
      if (!out.write(`${chunk.join('\n')}\n`)) await once(out, 'drain');
      chunk.length = 0;
    }
  }
  out.end();
  await once(out, 'finish');
  return statSync(file).size;
}

async function generate(dir: string): Promise<Record<'pet-parents' | 'pets' | 'vaccinations', { file: string; rows: number; bytes: number }>> {
  const random = prng(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const files = {
    'pet-parents': { file: path.join(dir, 'pet-parents.csv'), rows: parents, bytes: 0 },
    pets: { file: path.join(dir, 'pets.csv'), rows: pets, bytes: 0 },
    vaccinations: { file: path.join(dir, 'vaccinations.csv'), rows: vaccinations, bytes: 0 },
  };
  files['pet-parents'].bytes = await writeLines(files['pet-parents'].file, 'externalId,name,email,phone,reminderConsent', parents, (i) => {
    const first = pick(firstNames);
    const last = pick(lastNames);
    const phone = `+1 555 ${String(Math.floor(random() * 1000)).padStart(3, '0')} ${String(i % 10_000).padStart(4, '0')}`;
    return `${parentId(i)},${first} ${last},${first.toLowerCase()}.${last.toLowerCase()}.${i}@example.com,${phone},${random() < 0.7 ? 'yes' : 'no'}`;
  });
  files.pets.bytes = await writeLines(files.pets.file, 'externalId,name,breed,species,ownerExternalId,birthDate,size', pets, (i) => {
    const kind = kindOf(i);
    return `${petId(i)},${pick(petNames)},${pick(kind.breeds)},${kind.species},${parentId(ownerOf(i))},${isoDay(birthDayOf(i))},${pick(sizes)}`;
  });
  files.vaccinations.bytes = await writeLines(files.vaccinations.file, 'externalId,petExternalId,vaccine,administeredOn,dueOn,lotNumber', vaccinations, (k) => {
    const pet = Math.floor((k * pets) / vaccinations);
    const born = birthDayOf(pet);
    const given = born + 60 + Math.floor(random() * (anchorDay - born - 60));
    const vaccine = pick(kindOf(pet).vaccines);
    const due = given + (vaccine === 'Rabies' ? 1095 : 365);
    return `V${String(k).padStart(8, '0')},${petId(pet)},${vaccine},${isoDay(given)},${isoDay(due)},${vaccine.slice(0, 2).toUpperCase()}-${String(Math.floor(random() * 100_000)).padStart(5, '0')}`;
  });
  return files;
}

// ---- The server ----

/** The server as `npm start` runs it, compiled into .cache/import-bench (ignored), so dist/ (which others may use) is left alone. */
function buildServer(): string {
  const serverRoot = path.join(root, '.cache', 'import-bench');
  mkdirSync(serverRoot, { recursive: true });
  copyFileSync(path.join(root, 'package.json'), path.join(serverRoot, 'package.json'));
  if (!existsSync(path.join(serverRoot, 'node_modules'))) symlinkSync(path.join(root, 'node_modules'), path.join(serverRoot, 'node_modules'));
  if (!values['skip-build']) {
    log(`compiling the server into ${path.relative(root, serverRoot)}/dist…`);
    execSync(`npx tsc -p tsconfig.build.json --outDir ${JSON.stringify(path.join(serverRoot, 'dist'))}`, { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  return serverRoot;
}

/**
 * The server's resident set in MB, from /proc (null where there is none): in all, and its anonymous part
 * (heaps, buffers). The rest is mostly the database file mapped by SQLite (mmap_size): pages of a file
 * the kernel may drop at any time, which grow with the file as the import writes it, not with the import.
 */
interface Rss {
  total: number;
  anon: number;
  file: number;
}

/** Each part's own peak. */
const peakOf = (a: Rss | null, b: Rss): Rss =>
  a === null ? b : { total: Math.max(a.total, b.total), anon: Math.max(a.anon, b.anon), file: Math.max(a.file, b.file) };

function rssOf(pid: number | undefined): Rss | null {
  if (pid === undefined) return null;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? Number.NaN);
    const rss = { total: kb('VmRSS') / 1024, anon: kb('RssAnon') / 1024, file: (kb('RssFile') + kb('RssShmem')) / 1024 };
    return Number.isFinite(rss.total) ? rss : null;
  } catch {
    return null;
  }
}

// ---- The probe: GET /v1/pets/:id every 50 ms, latency from when it was due ----

interface ProbeFigures {
  p50: number;
  p99: number;
  max: number;
  samples: number;
  errors: number;
}

const percentile = (sorted: readonly number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? Number.NaN;

function startProbe(url: string, petPath: string, token: string): { stop(): Promise<ProbeFigures> } {
  const latencies: number[] = [];
  let errors = 0;
  let stopped = false;
  const inFlight = new Set<Promise<void>>();
  const loop = (async () => {
    const started = performance.now();
    for (let n = 0; !stopped; n++) {
      const due = started + n * 50;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      if (stopped) break;
      const request = fetch(url + petPath, { headers: { authorization: `Bearer ${token}` } }).then(
        async (res) => {
          await res.arrayBuffer();
          if (res.status !== 200) errors++;
          latencies.push(performance.now() - due);
        },
        () => {
          errors++;
          latencies.push(performance.now() - due);
        },
      );
      inFlight.add(request);
      void request.finally(() => inFlight.delete(request));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      await Promise.all(inFlight);
      latencies.sort((a, b) => a - b);
      return { p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), max: latencies.at(-1) ?? Number.NaN, samples: latencies.length, errors };
    },
  };
}

async function quietProbe(url: string, petPath: string, token: string, ms: number): Promise<ProbeFigures> {
  const probe = startProbe(url, petPath, token);
  await sleep(ms);
  return probe.stop();
}

// ---- POST /v1/pets one by one ----

interface OneByOne {
  pets: number;
  concurrency: number;
  seconds: number;
  perSecond: number;
  /** The server's CPU (user + system) per pet: a figure that depends less on what else the machine runs. */
  serverCpuUsPerPet: number | null;
}

async function postPets(server: GatewayServer, fx: { token: string; ownerId: string; locationId: string }, n: number, inFlight: number): Promise<OneByOne> {
  const url = server.url;
  let next = 0;
  const cpuBefore = server.cpuSeconds();
  const started = performance.now();
  const worker = async () => {
    while (next < n) {
      const i = next++;
      await expectStatus(
        url,
        'POST',
        '/v1/pets',
        201,
        { name: `One by one ${i}`, breed: 'Beagle', species: 'dog', ownerId: fx.ownerId, locationId: fx.locationId, birthDate: '2020-01-01', size: 'medium' },
        fx.token,
      );
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = server.cpuSeconds();
  const serverCpuUsPerPet = cpuBefore === null || cpuAfter === null ? null : ((cpuAfter - cpuBefore) * 1e6) / n;
  return { pets: n, concurrency: inFlight, seconds, perSecond: n / seconds, serverCpuUsPerPet };
}

// ---- An import: uploaded by curl, polled until it ends ----

interface ImportFigures {
  type: string;
  rows: number;
  bytes: number;
  /** From the upload's start to the import's finishedAt. */
  seconds: number;
  rowsPerSecond: number;
  uploadSeconds: number;
  /** validating → importing → done, by the server's own times (createdAt to finishedAt). */
  serverSeconds: number;
  serverCpuSeconds: number | null;
  created: number;
  updated: number;
  skipped: number;
  failed: number;
  firstErrors: unknown[];
  status: string;
  /** The peak of each part during this import (each part's own peak). */
  rssPeak: Rss | null;
  probe: ProbeFigures;
}

async function runImport(
  server: GatewayServer,
  admin: string,
  probeOf: () => { stop(): Promise<ProbeFigures> },
  type: string,
  file: { file: string; rows: number; bytes: number },
  locationId: string,
  onRss: (rss: Rss) => void,
): Promise<ImportFigures> {
  const probe = probeOf();
  const cpuBefore = server.cpuSeconds();
  let rssPeak: Rss | null = null;
  const sampleRss = () => {
    const rss = rssOf(server.child.pid);
    if (rss !== null) {
      rssPeak = peakOf(rssPeak, rss);
      onRss(rss);
    }
  };
  const sampler = setInterval(sampleRss, 100);
  const startedAt = Date.now();
  const started = performance.now();
  // curl sends the file from a process of its own: the client's copy of the upload is not this process's (the probe's) work.
  const { stdout } = await promisify(execFile)(
    'curl',
    [
      '-sS',
      '-H',
      `Authorization: Bearer ${admin}`,
      '-F',
      `type=${type}`,
      '-F',
      `locationId=${locationId}`,
      '-F',
      'dryRun=false',
      '-F',
      `file=@${file.file};type=text/csv`,
      '-w',
      '\n%{http_code}',
      `${server.url}/v1/imports`,
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  const uploadSeconds = (performance.now() - started) / 1000;
  const [text, status] = [stdout.slice(0, stdout.lastIndexOf('\n')), stdout.slice(stdout.lastIndexOf('\n') + 1)];
  if (status !== '202') throw new Error(`POST /v1/imports (${type}) answered ${status}: ${text.slice(0, 500)}`);
  const id = String((JSON.parse(text) as Fields).id);
  let body: Fields = {};
  let lastLine = 0;
  for (;;) {
    body = await expectStatus(server.url, 'GET', `/v1/imports/${id}`, 200, undefined, admin);
    const done = ['done', 'failed', 'cancelled'].includes(String(body.status));
    if (performance.now() - lastLine > 2000 || done) {
      lastLine = performance.now();
      const elapsed = (performance.now() - started) / 1000;
      log(
        `  ${type}: ${String(body.status).padEnd(10)} ${fmt(Number(body.processed))} / ${body.total === null ? '?' : fmt(Number(body.total))} rows` +
          `  ${fmt(Number(body.processed) / Math.max(0.001, elapsed))} rows/s  RSS ${fmt(rssOf(server.child.pid)?.total ?? 0)} MB (anon ${fmt(rssOf(server.child.pid)?.anon ?? 0)})  ${elapsed.toFixed(1)} s`,
      );
    }
    if (done) break;
    await sleep(200);
  }
  clearInterval(sampler);
  sampleRss();
  const cpuAfter = server.cpuSeconds();
  const probeFigures = await probe.stop();
  const finishedAt = Date.parse(String(body.finishedAt));
  const seconds = (finishedAt - startedAt) / 1000;
  return {
    type,
    rows: file.rows,
    bytes: file.bytes,
    seconds,
    rowsPerSecond: file.rows / seconds,
    uploadSeconds,
    serverSeconds: (finishedAt - Date.parse(String(body.createdAt))) / 1000,
    serverCpuSeconds: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
    created: Number(body.created),
    updated: Number(body.updated),
    skipped: Number(body.skipped),
    failed: Number(body.failed),
    firstErrors: Array.isArray(body.errors) ? body.errors.slice(0, 5) : [],
    status: String(body.status),
    rssPeak,
    probe: probeFigures,
  };
}

// ---- The run ----

const serverRoot = buildServer();
const work = mkdtempSync(path.join(tmpdir(), 'petcare-import-bench-'));
const profileDir = path.join(root, 'bench-results', 'profiles', `import-${new Date().toISOString().replace(/[:.]/g, '-')}`);
let server: GatewayServer | null = null;
try {
  const generating = performance.now();
  const files = await generate(work);
  log(
    `generated in ${((performance.now() - generating) / 1000).toFixed(1)} s (seed ${seed}): ` +
      Object.entries(files)
        .map(([type, f]) => `${fmt(f.rows)} ${type} (${fmt(f.bytes / 1024 / 1024, 1)} MB)`)
        .join(', '),
  );
  if (values.profile) mkdirSync(profileDir, { recursive: true });
  server = await startGateway(serverRoot, {
    cpu: serverCpu,
    logLevel: process.env.BENCH_LOG_LEVEL ?? 'info',
    // The bench admin polls and uploads; the rate limit is not what is measured.
    env: { PETCARE_RATE_LIMIT_PER_MINUTE: '100000000' },
    nodeArgs: [...(values.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), ...values['server-node-args'].split(/\s+/).filter(Boolean)],
  });
  const gateway = server;
  const fx = await createFixtures(gateway.url);
  const admin = await accessToken(gateway.url, benchAdmin.clientId, benchAdmin.clientSecret);
  const petPath = `/v1/pets/${fx.petId}`;
  const probeOf = () => startProbe(gateway.url, petPath, fx.token);
  // A warm-up: JIT and SQLite's page cache, so the quiet probe measures the API and not its first calls.
  await postPets(gateway, fx, 200, 4);
  for (let i = 0; i < 200; i++) await expectStatus(gateway.url, 'GET', petPath, 200, undefined, fx.token);

  log('quiet probe (GET /v1/pets/:id every 50 ms, 10 s)…');
  const quiet = await quietProbe(gateway.url, petPath, fx.token, 10_000);
  log(`POST /v1/pets one by one: ${fmt(oneByOne)} pets sequentially, then ${fmt(oneByOne)} with ${concurrency} in flight…`);
  const sequential = await postPets(gateway, fx, oneByOne, 1);
  const concurrent = await postPets(gateway, fx, oneByOne, concurrency);
  log(`  sequential ${fmt(sequential.perSecond)} pets/s, ${concurrency} in flight ${fmt(concurrent.perSecond)} pets/s`);

  await sleep(2000);
  const rssBefore = rssOf(gateway.child.pid);
  let rssMax = rssBefore;
  const onRss = (rss: Rss) => (rssMax = peakOf(rssMax, rss));
  const windowFrom = Number(process.hrtime.bigint() / 1000n);
  const imports: ImportFigures[] = [];
  for (const type of ['pet-parents', 'pets', 'vaccinations'] as const) {
    log(`import ${type}: ${fmt(files[type].rows)} rows…`);
    imports.push(await runImport(gateway, admin, probeOf, type, files[type], fx.locationId, onRss));
  }
  const windowTo = Number(process.hrtime.bigint() / 1000n);
  if (values.rerun) {
    log('import pets again (the same file: every row unchanged)…');
    imports.push({ ...(await runImport(gateway, admin, probeOf, 'pets', files.pets, fx.locationId, onRss)), type: 'pets (re-run)' });
  }
  // The imported rows answer through the API, by external id.
  const check = await expectStatus(gateway.url, 'GET', `/v1/pets?externalId=${petId(pets - 1)}`, 200, undefined, admin);
  const found = Array.isArray(check.data) ? (check.data[0] as Fields | undefined) : undefined;
  if (!found) throw new Error(`GET /v1/pets?externalId=${petId(pets - 1)} found nothing after the import`);
  await sleep(5000);
  const rssAfter = rssOf(gateway.child.pid);
  const quietAgain = await quietProbe(gateway.url, petPath, fx.token, 5_000);
  await gateway.stop();
  server = null;

  // ---- Report ----
  const petsImport = imports.find((i) => i.type === 'pets')!;
  const ratioSequential = petsImport.rowsPerSecond / sequential.perSecond;
  const ratioConcurrent = petsImport.rowsPerSecond / concurrent.perSecond;
  const growth =
    rssBefore === null || rssMax === null
      ? null
      : { total: rssMax.total - rssBefore.total, anon: rssMax.anon - rssBefore.anon, file: rssMax.file - rssBefore.file };
  const during = imports.filter((i) => !i.type.includes('re-run'));
  const worstP99 = Math.max(...during.map((i) => i.probe.p99));
  const mark = (pass: boolean) => (pass ? 'met' : '**missed**');
  log('');
  log(
    `| import | rows | file | rows/s | upload | server time | server CPU (per row) | created / updated / skipped / failed | RSS peak | probe p50 / p99 / max |`,
  );
  log(`|---|---|---|---|---|---|---|---|---|---|`);
  for (const i of imports) {
    log(
      `| ${i.type} | ${fmt(i.rows)} | ${fmt(i.bytes / 1024 / 1024, 1)} MB | **${fmt(i.rowsPerSecond)}** | ${i.uploadSeconds.toFixed(1)} s | ${i.serverSeconds.toFixed(1)} s | ` +
        `${i.serverCpuSeconds === null ? '?' : `${i.serverCpuSeconds.toFixed(1)} s (${fmt((i.serverCpuSeconds * 1e6) / i.rows)} µs)`} | ${fmt(i.created)} / ${fmt(i.updated)} / ${fmt(i.skipped)} / ${fmt(i.failed)} | ` +
        `${i.rssPeak === null ? '?' : `${fmt(i.rssPeak.total)} MB (anon ${fmt(i.rssPeak.anon)})`} | ${i.probe.p50.toFixed(1)} / ${i.probe.p99.toFixed(1)} / ${i.probe.max.toFixed(1)} ms |`,
    );
  }
  log('');
  log(
    `POST /v1/pets one by one: sequential ${fmt(sequential.perSecond)} pets/s (${fmt(sequential.pets)} in ${sequential.seconds.toFixed(1)} s), ${concurrent.concurrency} in flight ${fmt(concurrent.perSecond)} pets/s; ` +
      `server CPU per pet ${fmt(sequential.serverCpuUsPerPet ?? Number.NaN)} µs and ${fmt(concurrent.serverCpuUsPerPet ?? Number.NaN)} µs`,
  );
  log(
    `pets import / one by one: ${ratioSequential.toFixed(1)}× sequential, ${ratioConcurrent.toFixed(1)}× with ${concurrency} in flight ` +
      `(target ≥ ${targets.importOverOneByOne}×: ${mark(ratioSequential >= targets.importOverOneByOne)} against sequential, ${mark(ratioConcurrent >= targets.importOverOneByOne)} against ${concurrency} in flight)`,
  );
  const mb = (r: Rss | null, part: keyof Rss) => (r === null ? '?' : fmt(r[part]));
  log(
    `server RSS: before ${mb(rssBefore, 'total')} MB, peak during ${mb(rssMax, 'total')} MB, after ${mb(rssAfter, 'total')} MB: growth ${growth === null ? '?' : fmt(growth.total)} MB; ` +
      `of it anonymous memory (heaps, buffers): before ${mb(rssBefore, 'anon')} MB, peak ${mb(rssMax, 'anon')} MB, after ${mb(rssAfter, 'anon')} MB: growth ${growth === null ? '?' : fmt(growth.anon)} MB ` +
      `(target < ${targets.rssGrowthMb} MB: ${mark(growth !== null && growth.anon < targets.rssGrowthMb)} for the anonymous part, ${mark(growth !== null && growth.total < targets.rssGrowthMb)} for the whole RSS); ` +
      `file-backed (RssFile + RssShmem: the database file SQLite maps, mmap_size): before ${mb(rssBefore, 'file')} MB, peak ${mb(rssMax, 'file')} MB, after ${mb(rssAfter, 'file')} MB: growth ${growth === null ? '?' : fmt(growth.file)} MB. ` +
      `Every thread of the process counts, the import's worker included.`,
  );
  log(
    `GET /v1/pets/:id probe p99: quiet ${quiet.p99.toFixed(1)} ms (again after: ${quietAgain.p99.toFixed(1)} ms), during the imports up to ${worstP99.toFixed(1)} ms ` +
      `= ${(worstP99 / quiet.p99).toFixed(1)}× (target ≤ ${targets.probeOverQuiet}×: ${mark(worstP99 <= targets.probeOverQuiet * quiet.p99)})`,
  );
  for (const i of imports) if (i.failed > 0 || i.status !== 'done') log(`  ${i.type}: ${i.status}, first errors ${JSON.stringify(i.firstErrors)}`);

  let profile: { file: string; summary: ReturnType<typeof summarizeProfile> } | null = null;
  if (values.profile) {
    // The main thread's profile (thread id 0 in the name); worker threads write their own beside it.
    const written = readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile'));
    const main = written.find((f) => /\.\d+\.0\.\d+\.cpuprofile$/.test(f)) ?? written[0];
    if (!main) throw new Error(`no profile written in ${profileDir}`);
    const data = JSON.parse(readFileSync(path.join(profileDir, main), 'utf8')) as CpuProfile;
    const summary = summarizeProfile(data, { from: windowFrom, to: windowTo });
    profile = { file: path.relative(root, path.join(profileDir, main)), summary: { ...summary, byFunction: summary.byFunction.slice(0, 100) } };
    log(
      `\nprofile of the server's main thread during the three imports: ${profile.file}${written.length > 1 ? ` (and ${written.length - 1} worker profiles)` : ''}\n`,
    );
    log(formatSummary(summary, 30));
  }

  const out = path.join(root, 'bench-results', `import-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(
    out,
    JSON.stringify(
      {
        at: new Date().toISOString(),
        environment: {
          node: process.version,
          cpus: os.cpus().length,
          cpuModel: os.cpus()[0]?.model ?? '?',
          loadAverage: os.loadavg(),
          serverCpu: serverCpu ?? null,
        },
        sizes: { parents, pets, vaccinations, seed },
        serverNodeArgs: values['server-node-args'],
        quiet,
        quietAgain,
        sequential,
        concurrent,
        imports,
        ratios: { sequential: ratioSequential, concurrent: ratioConcurrent },
        rss: { before: rssBefore, peak: rssMax, after: rssAfter, growth },
        profile,
      },
      null,
      2,
    ),
  );
  log(`\nresults: ${path.relative(root, out)}`);
} finally {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
}
