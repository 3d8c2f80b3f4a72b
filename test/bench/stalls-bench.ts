/**
 * Stalls under a backup (issue 25): a backup of a large database while a client keeps writing and
 * another keeps reading. Prints, for a window without and a window with a backup running: the
 * event loop's delay (p50/p99/max, sampled by monitorEventLoopDelay in the server's own process),
 * GET p99, writes completed, and the backup's duration. The targets: the backup completes while the
 * writes go on (it used to restart on every write and never finish), and the event loop's delay
 * with a backup stays of the order of the window without one.
 * Then (issue 27.4) a probe: GET /v1/pets/:id every 50 ms and nothing else, quiet and during each
 * heavy operation alone — 3 knowledge uploads of 25 MB extracted and indexed, a backup, a job
 * catch-up (vaccination reminders for BENCH_STALL_REMINDERS pets at once). A probe's latency counts
 * from when it was due, so a blocked event loop (which also delays the probe's own timer) shows.
 * And during heavy reads, each repeated back to back for BENCH_STALL_WINDOW_MS: a tenant-wide year
 * summary never asked before (uncached), the pages of a year of appointments_by_status records, a
 * year of vaccination_compliance_rate by day as CSV (uncached). They matter on a big database:
 * BENCH_STALL_DATA names a data dir (the scale bench's, e.g. /work/scale-data/scale-0.1) whose
 * SQLite files are copied to a temp dir (the original is never opened) and served instead. After
 * each, a few calls alone (no probe) give the main thread's CPU time a call (process.threadCpuUsage:
 * what a call takes of the event loop, less at the mercy of the machine's load than the stalls).
 * Target: the probe's max during each operation ≤ 3 × its quiet p99.
 *   npm run bench:stalls                       (BENCH_STALL_MB=150: the events table is filled to about that size)
 *   BENCH_STALL_DATA=/work/scale-data/scale-0.1 npm run bench:stalls     (the reads on a copy of the scale file)
 *   BENCH_STALL_CASES=load,uploads,backup,catch-up,reads                 (the default without BENCH_STALL_DATA; with it: reads)
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { benchSetting } from './bench-servers.js';
import { newId } from '../../src/db/ids.js';
import { form } from '../ai/ai-support.js';
import { createHousehold } from '../helpers/factories.js';
import { startTestApp } from '../helpers/test-app.js';

const targetMb = benchSetting('BENCH_STALL_MB', 150);
const windowMs = benchSetting('BENCH_STALL_WINDOW_MS', 4000);
const uploadMb = benchSetting('BENCH_STALL_UPLOAD_MB', 25);
const reminders = benchSetting('BENCH_STALL_REMINDERS', 5000);

const dataFrom = process.env.BENCH_STALL_DATA;
const cases = new Set((process.env.BENCH_STALL_CASES ?? (dataFrom ? 'reads' : 'load,uploads,backup,catch-up,reads')).split(','));
const unknownCase = [...cases].find((c) => !['load', 'uploads', 'backup', 'catch-up', 'reads'].includes(c));
if (unknownCase) throw new Error(`BENCH_STALL_CASES: no case ${unknownCase} (load, uploads, backup, catch-up, reads)`);

/** A copy of BENCH_STALL_DATA's databases (and their WAL) in a temp dir, which the test app removes when it closes. */
function copiedDataDir(from: string): string {
  if (!existsSync(path.join(from, 'live.sqlite'))) throw new Error(`BENCH_STALL_DATA: no live.sqlite in ${from}`);
  const dir = mkdtempSync(path.join(tmpdir(), 'petcare-stalls-data-'));
  const started = performance.now();
  for (const name of ['live.sqlite', 'live.sqlite-wal', 'sandbox.sqlite', 'sandbox.sqlite-wal']) {
    if (existsSync(path.join(from, name))) copyFileSync(path.join(from, name), path.join(dir, name));
  }
  console.log(`copied ${from} to ${dir} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return dir;
}

const jobsNeeded = ['load', 'uploads', 'backup', 'catch-up'].some((c) => cases.has(c));
const t = await startTestApp({ dataDir: dataFrom ? copiedDataDir(dataFrom) : undefined, jobs: jobsNeeded, config: { rateLimitPerMinute: 100_000_000 } });
const token = await t.adminToken();
const household = await createHousehold(t);

// Fill the live database through its own connection: events with a 1 KB payload (no subscriber, nothing to deliver).
const live = t.stores.get('live');
const at = new Date(t.clock.now()).toISOString();
if (!dataFrom && (cases.has('load') || cases.has('backup'))) {
  const payload = JSON.stringify({ note: 'x'.repeat(1000) });
  const insert = live.sqlite.prepare('INSERT INTO events (id, tenant_id, type, data, created_at) VALUES (?, ?, ?, ?, ?)');
  const rows = Math.ceil((targetMb * 1024 * 1024) / 1100);
  for (let done = 0; done < rows; done += 10_000) {
    live.sqlite.transaction(() => {
      for (let i = done; i < Math.min(rows, done + 10_000); i++) insert.run(newId('evt'), t.tenantId, 'bench.filler', payload, at);
    })();
  }
  live.sqlite.pragma('wal_checkpoint(TRUNCATE)');
}
const sizeMb = statSync(path.join(t.dataDir, 'live.sqlite')).size / 1024 / 1024;

interface Window {
  loopP50: number;
  loopP99: number;
  loopMax: number;
  getP99: number;
  writes: number;
  backupMs: number | null;
}

/** Writes (POST /v1/pets) and reads (GET /v1/pets/:id) back to back until `until` resolves. */
async function load(until: Promise<unknown>): Promise<{ writes: number; getLatencies: number[] }> {
  let stop = false;
  void until.finally(() => (stop = true));
  let writes = 0;
  const getLatencies: number[] = [];
  const writer = (async () => {
    while (!stop) {
      const res = await t.request('POST', '/v1/pets', {
        token,
        body: { name: 'Stall', species: 'dog', breed: 'Beagle', ownerId: household.parent.id, locationId: household.location.id },
      });
      if (res.status !== 201) throw new Error(`write: ${res.status} ${res.text}`);
      writes++;
    }
  })();
  const reader = (async () => {
    while (!stop) {
      const before = performance.now();
      const res = await t.request('GET', `/v1/pets/${household.pet.id}`, { token });
      if (res.status !== 200) throw new Error(`read: ${res.status}`);
      getLatencies.push(performance.now() - before);
    }
  })();
  await Promise.all([writer, reader, until]);
  return { writes, getLatencies };
}

async function measure(withBackup: boolean): Promise<Window> {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  let backupMs: number | null = null;
  const work = withBackup
    ? (async () => {
        const before = performance.now();
        const res = await t.request('POST', '/v1/jobs/backup/run', { token, body: { wait: true, waitSeconds: 120 } });
        if (res.status !== 200 || res.body.status !== 'succeeded') throw new Error(`backup: ${res.status} ${res.text}`);
        backupMs = performance.now() - before;
      })()
    : new Promise((resolve) => setTimeout(resolve, windowMs));
  const { writes, getLatencies } = await load(work);
  histogram.disable();
  getLatencies.sort((a, b) => a - b);
  const ms = (ns: number) => ns / 1e6;
  return {
    loopP50: ms(histogram.percentile(50)),
    loopP99: ms(histogram.percentile(99)),
    loopMax: ms(histogram.max),
    getP99: getLatencies[Math.floor(getLatencies.length * 0.99)] ?? Number.NaN,
    writes,
    backupMs,
  };
}

const row = (name: string, w: Window) =>
  `${name.padEnd(22)} loop p50 ${w.loopP50.toFixed(1).padStart(6)} ms  p99 ${w.loopP99.toFixed(1).padStart(6)} ms  max ${w.loopMax.toFixed(1).padStart(6)} ms  ` +
  `GET p99 ${w.getP99.toFixed(1).padStart(6)} ms  writes ${String(w.writes).padStart(5)}${w.backupMs === null ? '' : `  backup ${(w.backupMs / 1000).toFixed(1)} s`}`;
console.log(`live.sqlite ${sizeMb.toFixed(0)} MB`);
if (cases.has('load')) {
  const quiet = await measure(false);
  const backup = await measure(true);
  const quietAgain = await measure(false);
  console.log('one writer (POST /v1/pets) and one reader (GET /v1/pets/:id) back to back');
  console.log(row('no backup', quiet));
  console.log(row('backup running', backup));
  console.log(row('no backup, again', quietAgain));
}

// ---- The probe: GET /v1/pets/:id every 50 ms, alone, quiet and during each heavy operation ----

interface Probe {
  p50: number;
  p99: number;
  max: number;
  samples: number;
  errors: number;
  loopMax: number;
  opMs: number;
}

const percentile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? Number.NaN;

/** Probes every 50 ms until `work` settles (and for at least `minMs`); each latency counts from when the probe was due. */
async function probe(work: () => Promise<unknown>, minMs = 0): Promise<Probe> {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  const latencies: number[] = [];
  let errors = 0;
  const inFlight = new Set<Promise<void>>();
  const started = performance.now();
  let done = false;
  const finished = work().finally(() => (done = true));
  const opMsPromise = finished.then(() => performance.now() - started);
  for (let n = 0; !done || performance.now() - started < minMs; n++) {
    const due = started + n * 50;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const request = t.request('GET', `/v1/pets/${household.pet.id}`, { token }).then(
      (res) => {
        if (res.status !== 200) throw new Error(`probe: ${res.status}`);
        latencies.push(performance.now() - due);
      },
      () => {
        // A connection reset (the symptom of a long stall): counted, and its time counts too.
        errors++;
        latencies.push(performance.now() - due);
      },
    );
    inFlight.add(request);
    void request.finally(() => inFlight.delete(request));
  }
  await Promise.all(inFlight);
  const opMs = await opMsPromise;
  histogram.disable();
  latencies.sort((a, b) => a - b);
  return {
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    max: latencies.at(-1) ?? Number.NaN,
    samples: latencies.length,
    errors,
    loopMax: histogram.max / 1e6,
    opMs,
  };
}

/** A text of about `mb` MB: paragraphs of sentences, so it chunks like a real document. */
function bigText(mb: number, seed: number): Buffer {
  const words = ['anaesthesia', 'fasting', 'vaccination', 'boarding', 'dose', 'weight', 'kennel', 'rabies', 'premedication', 'recovery', 'owner', 'consent'];
  const sentences: string[] = [];
  let size = 0;
  for (let i = 0; size < mb * 1_000_000; i++) {
    const sentence = `Rule ${seed}.${i} says the ${words[i % words.length]} of each ${words[(i * 7 + seed) % words.length]} is checked twice before the ${words[(i * 5 + 3) % words.length]}.`;
    sentences.push(i % 6 === 5 ? `${sentence}\n\n` : `${sentence} `);
    size += sentence.length + 1;
  }
  return Buffer.from(sentences.join(''), 'utf8');
}

/**
 * The uploads are sent by a process of their own: the client's copies of 3 × 25 MB bodies would
 * otherwise run on the server's event loop too and be counted as its stall.
 */
const uploader = `
const { readFileSync } = require('node:fs');
const [url, token, service, ...files] = process.argv.slice(1);
Promise.all(files.map(async (file) => {
  const res = await fetch(url + '/v1/ai/services/' + service + '/documents', {
    method: 'POST',
    headers: { authorization: 'Bearer ' + token, 'content-type': 'multipart/form-data; boundary=stalls' },
    body: readFileSync(file),
  });
  const body = await res.json();
  if (res.status !== 202) throw new Error('upload: ' + res.status + ' ' + JSON.stringify(body));
  return body.id;
})).then((ids) => console.log(JSON.stringify(ids)), (err) => { console.error(err); process.exit(1); });
`;

async function uploadsIndexed(): Promise<void> {
  const svc = await t.request('POST', '/v1/ai/services', { token, body: { name: `Stalls ${newId('x')}` } });
  if (svc.status !== 201) throw new Error(`service: ${svc.status} ${svc.text}`);
  const child = spawn(process.execPath, ['-e', uploader, t.url, token, svc.body.id, ...forms], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`the uploader exited with ${code}`);
  const ids = JSON.parse(out) as string[];
  for (;;) {
    const docs = await Promise.all(ids.map((id) => t.request('GET', `/v1/ai/services/${svc.body.id}/documents/${id}`, { token })));
    const failed = docs.find((d) => d.body.status === 'failed');
    if (failed) throw new Error(`indexing failed: ${failed.body.error}`);
    if (docs.every((d) => d.body.status === 'indexed')) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function backupRun(): Promise<void> {
  t.clock.advance(60_000); // archives are named by the clock's time: not the first backup's name again
  const res = await t.request('POST', '/v1/jobs/backup/run', { token, body: { wait: true, waitSeconds: 120 } });
  if (res.status !== 200 || res.body.status !== 'succeeded') throw new Error(`backup: ${res.status} ${res.text}`);
}

// The catch-up: a vaccination due soon for each of `reminders` pets, never reminded (as after days of downtime).
const today = new Date(t.clock.now()).toISOString().slice(0, 10);
const due = new Date(t.clock.now() + 5 * 86_400_000).toISOString().slice(0, 10);
if (cases.has('catch-up')) {
  const insertPet = live.sqlite.prepare(
    'INSERT INTO pets (id, tenant_id, location_id, owner_id, name, breed, species, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const insertVaccination = live.sqlite.prepare(
    'INSERT INTO vaccinations (id, tenant_id, location_id, pet_id, vaccine, vaccine_key, administered_on, due_on, recorded_by_client_id, recorded_by_role, created_at) ' +
      'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  live.sqlite.transaction(() => {
    for (let i = 0; i < reminders; i++) {
      const pet = newId('pet');
      insertPet.run(pet, t.tenantId, household.location.id, household.parent.id, `Catch-up ${i}`, 'Beagle', 'dog', at, at);
      insertVaccination.run(newId('vac'), t.tenantId, household.location.id, pet, 'Rabies', 'rabies', today, due, 'bench', 'admin', at);
    }
  })();
}

// ---- Heavy reads: a year of the data, ending at its last payment (the scale file's history ends at its anchor) ----

const lastPayment = (live.sqlite.prepare('select max(created_at) as last from payments').get() as { last: string | null }).last;
const lastDay = (lastPayment ?? at).slice(0, 10);
const daysBefore = (date: string, n: number) => new Date(Date.parse(`${date}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10);
/** Each call a year not asked before (moved back a day each time), so no answer comes from the cache. */
let shift = 0;
const freshYear = () => {
  const to = daysBefore(lastDay, shift++);
  return { from: daysBefore(to, 364), to };
};
const timesOne: Record<string, number[]> = {};
/** Each case's call, for the pass without the probe. */
const callsOf: Record<string, () => Promise<void>> = {};

/** Runs `call` back to back for the window; each call's time goes to timesOne[name]. */
function repeatedly(name: string, call: () => Promise<void>): () => Promise<void> {
  callsOf[name] = call;
  return async () => {
    const times: number[] = (timesOne[name] = []);
    const started = performance.now();
    while (performance.now() - started < windowMs) {
      const before = performance.now();
      await call();
      times.push(performance.now() - before);
    }
  };
}

/**
 * The main thread's CPU time of each of `n` calls alone (no probe: its requests would be counted
 * too), in ms: the server's work and this in-process client's. The figure that does not move with
 * the machine's load the way wall-clock stalls do (process.threadCpuUsage).
 */
async function cpuAlone(name: string, n = 6): Promise<number[]> {
  const cpu: number[] = [];
  for (let i = 0; i < n; i++) {
    const before = process.threadCpuUsage();
    await callsOf[name]!();
    const used = process.threadCpuUsage(before);
    cpu.push((used.user + used.system) / 1000);
  }
  return cpu.sort((a, b) => a - b);
}

async function expectOk(path: string, headers?: Record<string, string>) {
  const res = await t.request('GET', path, { token, ...(headers ? { headers } : {}) });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text.slice(0, 300)}`);
  return res;
}

const summaryYear = repeatedly('summary', async () => {
  const { from, to } = freshYear();
  await expectOk(`/v1/analytics/summary?from=${from}&to=${to}`);
});
const recordYear = daysBefore(lastDay, 0);
let cursor: string | null = null;
const recordsPages = repeatedly('records', async () => {
  const res = await expectOk(
    `/v1/analytics/metrics/appointments_by_status/records?from=${daysBefore(recordYear, 364)}&to=${recordYear}&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
  );
  cursor = res.body.nextCursor;
});
const csvYear = repeatedly('csv', async () => {
  const { from, to } = freshYear();
  const res = await expectOk(`/v1/analytics/metrics/vaccination_compliance_rate?from=${from}&to=${to}&interval=day`, { accept: 'text/csv' });
  if (!res.text.startsWith('bucket,value')) throw new Error(`not CSV: ${res.text.slice(0, 100)}`);
});

async function catchUp(): Promise<void> {
  const res = await t.request('POST', '/v1/jobs/vaccination-reminders/run', { token, body: { wait: true, waitSeconds: 120 } });
  if (res.status !== 200 || res.body.status !== 'succeeded') throw new Error(`reminders: ${res.status} ${res.text}`);
}

// Each upload's multipart body, written once to a file the uploader process sends as it is.
const forms = (cases.has('uploads') ? [1, 2, 3] : []).map((n) => {
  const { rawBody } = form(bigText(uploadMb, n), `manual-${n}.txt`, 'text/plain', `Manual ${n}`);
  const boundary = /^--(\S+)\r\n/.exec(rawBody.subarray(0, 100).toString('latin1'))![1]!;
  const file = path.join(tmpdir(), `petcare-stalls-upload-${process.pid}-${n}`);
  // The uploader declares one boundary for all three.
  writeFileSync(file, Buffer.from(rawBody.toString('latin1').split(boundary).join('stalls'), 'latin1'));
  return file;
});
// Connections left idle while the bodies were built were closed by the server (keep-alive timeout): a
// few requests first, so the quiet window measures the API and not a reconnect.
for (let i = 0; i < 5; i++) await t.request('GET', `/v1/pets/${household.pet.id}`, { token }).catch(() => undefined);
const quietProbe = await probe(async () => undefined, windowMs);
console.log(
  `\nprobe: GET /v1/pets/:id every 50 ms, alone (latency from when each was due); target max ≤ 3 × quiet p99 (${(3 * quietProbe.p99).toFixed(1)} ms)`,
);
const report = (name: string, p: Probe) =>
  console.log(
    `${name.padEnd(30)} probe p50 ${p.p50.toFixed(1).padStart(6)} ms  p99 ${p.p99.toFixed(1).padStart(7)} ms  max ${p.max.toFixed(1).padStart(7)} ms ` +
      `(${(p.max / quietProbe.p99).toFixed(1).padStart(5)} × quiet p99)  loop max ${p.loopMax.toFixed(0).padStart(5)} ms  ${p.samples} probes${p.errors ? ` (${p.errors} failed)` : ''}  took ${(p.opMs / 1000).toFixed(1)} s`,
  );
report('quiet', quietProbe);
if (cases.has('uploads')) report(`3 × ${uploadMb} MB knowledge uploads`, await probe(uploadsIndexed));
if (cases.has('backup')) report('backup', await probe(backupRun));
if (cases.has('catch-up')) report(`catch-up: ${reminders} reminders`, await probe(catchUp));
if (cases.has('reads')) {
  const calls = async (name: string) => {
    const times = [...(timesOne[name] ?? [])].sort((a, b) => a - b);
    const cpu = await cpuAlone(name);
    return (
      `${times.length} calls, p50 ${percentile(times, 0.5).toFixed(0)} ms max ${(times.at(-1) ?? Number.NaN).toFixed(0)} ms; ` +
      `alone, main-thread CPU a call p50 ${percentile(cpu, 0.5).toFixed(1)} ms max ${(cpu.at(-1) ?? Number.NaN).toFixed(1)} ms`
    );
  };
  const summary = await probe(summaryYear);
  report('year summary, uncached', summary);
  console.log(`  ${''.padEnd(28)} (${await calls('summary')})`);
  const records = await probe(recordsPages);
  report('records pages of a year', records);
  console.log(`  ${''.padEnd(28)} (${await calls('records')})`);
  const csv = await probe(csvYear);
  report('CSV: a year by day, uncached', csv);
  console.log(`  ${''.padEnd(28)} (${await calls('csv')})`);
}
report('quiet, again', await probe(async () => undefined, windowMs));
for (const file of forms) rmSync(file, { force: true });
await t.close();
