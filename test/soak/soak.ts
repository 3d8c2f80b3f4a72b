/**
 * Soak: mixed API traffic against the real app for SOAK_SECONDS (default 600) with a forced
 * garbage collection every SOAK_GC_MS, on the Node that runs it (npm run soak → Node 24).
 * It exists because a native finalizer abort (better-sqlite3 12 on Node 24.19+) only showed
 * after enough statements were collected: a run that ends prints its totals and exits 0 only
 * when the process survived, no request answered 5xx and every answer was the one expected.
 *
 *   npm run soak                     # 10 minutes
 *   SOAK_SECONDS=60 npm run soak     # a quick one
 */
import { performance } from 'node:perf_hooks';
import { createHousehold, createPet } from '../helpers/factories.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const seconds = Number(process.env.SOAK_SECONDS ?? 600);
const gcEveryMs = Number(process.env.SOAK_GC_MS ?? 200);
const workers = Number(process.env.SOAK_CONCURRENCY ?? 8);

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error('soak: run with --expose-gc (npm run soak does)');
  process.exit(2);
}

interface Tally {
  requests: number;
  byStatus: Map<number, number>;
  unexpected: string[];
}

type Step = (t: TestApp, token: string, world: World) => Promise<{ status: number; expected: number[]; label: string }>;

interface World {
  locationId: string;
  parentId: string;
  petIds: string[];
  seq: number;
}

const steps: Step[] = [
  async (t, token, w) => {
    const id = w.petIds[w.seq++ % w.petIds.length]!;
    return { ...(await t.request('GET', `/v1/pets/${id}`, { token })), expected: [200], label: 'GET pet' };
  },
  async (t, token) => ({ ...(await t.request('GET', '/v1/pets?limit=25', { token })), expected: [200], label: 'list pets' }),
  async (t, token, w) => {
    const res = await t.request('POST', '/v1/pets', {
      token,
      idempotencyKey: `soak-${process.pid}-${w.seq++}`,
      body: { name: 'Soak', breed: 'Beagle', species: 'dog', ownerId: w.parentId, locationId: w.locationId },
    });
    if (res.status === 201 && w.petIds.length < 500) w.petIds.push(res.body.id);
    return { ...res, expected: [201], label: 'POST pet' };
  },
  async (t, token, w) => {
    const id = w.petIds[w.seq++ % w.petIds.length]!;
    return { ...(await t.request('PATCH', `/v1/pets/${id}`, { token, body: { breed: `Breed ${w.seq % 7}` } })), expected: [200], label: 'PATCH pet' };
  },
  async (t, token, w) => {
    const id = w.petIds[w.seq++ % w.petIds.length]!;
    const res = await t.request('POST', `/v1/pets/${id}/vaccinations`, {
      token,
      body: { vaccine: 'Rabies', administeredOn: '2026-01-10', dueOn: '2027-01-10' },
    });
    return { ...res, expected: [201], label: 'POST vaccination' };
  },
  async (t, token, w) => {
    const id = w.petIds[w.seq++ % w.petIds.length]!;
    return { ...(await t.request('GET', `/v1/pets/${id}/vaccinations`, { token })), expected: [200], label: 'list vaccinations' };
  },
  async (t, token) => ({ ...(await t.request('GET', '/v1/events?limit=50', { token })), expected: [200], label: 'list events' }),
  async (t, _token, w) => ({ ...(await t.request('GET', `/v1/pets/${w.petIds[0]}`, { token: 'not-a-token' })), expected: [401], label: 'bad token' }),
  async (t, token) => ({ ...(await t.request('POST', '/v1/pets', { token, body: { name: '' } })), expected: [400], label: 'invalid body' }),
  async (t, token) => ({ ...(await t.request('GET', '/v1/pets/pet_missing', { token })), expected: [404], label: 'missing pet' }),
];

async function main(): Promise<void> {
  const t = await startTestApp({ config: { rateLimitPerMinute: 1_000_000 } });
  const { location, parent, pet } = await createHousehold(t);
  const world: World = { locationId: location.id, parentId: parent.id, petIds: [pet.id], seq: 0 };
  for (let i = 0; i < 20; i++) world.petIds.push((await createPet(t, parent.id, location.id)).id);
  const token = await t.adminToken();
  const tally: Tally = { requests: 0, byStatus: new Map(), unexpected: [] };

  const gcTimer = setInterval(() => gc!(), gcEveryMs);
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let lastReport = started;
  const rssStart = process.memoryUsage().rss;

  const worker = async (n: number) => {
    let i = n;
    while (performance.now() < deadline) {
      const step = steps[i++ % steps.length]!;
      const { status, expected, label } = await step(t, token, world);
      tally.requests++;
      tally.byStatus.set(status, (tally.byStatus.get(status) ?? 0) + 1);
      if (!expected.includes(status) && tally.unexpected.length < 20) tally.unexpected.push(`${label}: ${status}`);
      const now = performance.now();
      if (n === 0 && now - lastReport > 30_000) {
        lastReport = now;
        const rss = Math.round(process.memoryUsage().rss / 2 ** 20);
        console.log(`soak: ${Math.round((now - started) / 1000)} s, ${tally.requests} requests, rss ${rss} MiB`);
      }
    }
  };
  await Promise.all(Array.from({ length: workers }, (_, n) => worker(n)));
  clearInterval(gcTimer);
  await t.close();

  const elapsed = (performance.now() - started) / 1000;
  const statuses = [...tally.byStatus.entries()]
    .sort(([a], [b]) => a - b)
    .map(([s, n]) => `${s}×${n}`)
    .join(' ');
  const serverErrors = [...tally.byStatus.entries()].filter(([s]) => s >= 500).reduce((sum, [, n]) => sum + n, 0);
  console.log(`soak: ${tally.requests} requests in ${elapsed.toFixed(0)} s (${(tally.requests / elapsed).toFixed(0)}/s) on Node ${process.versions.node}`);
  console.log(`soak: statuses ${statuses}; rss ${Math.round(rssStart / 2 ** 20)} → ${Math.round(process.memoryUsage().rss / 2 ** 20)} MiB`);
  if (serverErrors > 0 || tally.unexpected.length > 0) {
    console.error(`soak: FAILED — ${serverErrors} server errors; unexpected: ${tally.unexpected.join(', ')}`);
    process.exit(1);
  }
  console.log('soak: passed (no abort, no 5xx, every answer as expected)');
}

await main();
