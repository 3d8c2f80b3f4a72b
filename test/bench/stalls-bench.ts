/**
 * Stalls under a backup (issue 25): a backup of a large database while a client keeps writing and
 * another keeps reading. Prints, for a window without and a window with a backup running: the
 * event loop's delay (p50/p99/max, sampled by monitorEventLoopDelay in the server's own process),
 * GET p99, writes completed, and the backup's duration. The targets: the backup completes while the
 * writes go on (it used to restart on every write and never finish), and the event loop's delay
 * with a backup stays of the order of the window without one.
 *   npm run bench:stalls                       (BENCH_STALL_MB=150: the events table is filled to about that size)
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import path from 'node:path';
import { statSync } from 'node:fs';
import { benchSetting } from './bench-servers.js';
import { newId } from '../../src/db/ids.js';
import { createHousehold } from '../helpers/factories.js';
import { startTestApp } from '../helpers/test-app.js';

const targetMb = benchSetting('BENCH_STALL_MB', 150);
const windowMs = benchSetting('BENCH_STALL_WINDOW_MS', 4000);

const t = await startTestApp({ config: { rateLimitPerMinute: 100_000_000 } });
const token = await t.adminToken();
const household = await createHousehold(t);

// Fill the live database through its own connection: events with a 1 KB payload (no subscriber, nothing to deliver).
const live = t.stores.get('live');
const payload = JSON.stringify({ note: 'x'.repeat(1000) });
const insert = live.sqlite.prepare('INSERT INTO events (id, tenant_id, type, data, created_at) VALUES (?, ?, ?, ?, ?)');
const rows = Math.ceil((targetMb * 1024 * 1024) / 1100);
const at = new Date(t.clock.now()).toISOString();
for (let done = 0; done < rows; done += 10_000) {
  live.sqlite.transaction(() => {
    for (let i = done; i < Math.min(rows, done + 10_000); i++) insert.run(newId('evt'), t.tenantId, 'bench.filler', payload, at);
  })();
}
live.sqlite.pragma('wal_checkpoint(TRUNCATE)');
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

const quiet = await measure(false);
const backup = await measure(true);
const quietAgain = await measure(false);
const row = (name: string, w: Window) =>
  `${name.padEnd(22)} loop p50 ${w.loopP50.toFixed(1).padStart(6)} ms  p99 ${w.loopP99.toFixed(1).padStart(6)} ms  max ${w.loopMax.toFixed(1).padStart(6)} ms  ` +
  `GET p99 ${w.getP99.toFixed(1).padStart(6)} ms  writes ${String(w.writes).padStart(5)}${w.backupMs === null ? '' : `  backup ${(w.backupMs / 1000).toFixed(1)} s`}`;
console.log(`live.sqlite ${sizeMb.toFixed(0)} MB; one writer (POST /v1/pets) and one reader (GET /v1/pets/:id) back to back`);
console.log(row('no backup', quiet));
console.log(row('backup running', backup));
console.log(row('no backup, again', quietAgain));
await t.close();
