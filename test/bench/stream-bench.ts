/**
 * The live event stream under load (issue 30 §1): 200 concurrent Server-Sent Event streams on
 * GET /v1/events/stream while events flow (POST /v1/pets, each emitting `pet.registered` to every
 * stream) must not slow an ordinary GET /v1/pets/:id beyond 2 × its quiet p99.
 *
 * The compiled appliance (`node dist/src/main.js`, as `npm start` runs it; `npm run build` first)
 * runs on the production limits (5 streams per client, 100 connections per address): the streams
 * belong to 50 staff clients with `pets.read`, 4 each, and come from 127.0.0.2–127.0.0.5, read by a
 * child process of their own (so their bursts do not delay the probe's answers here). A probe
 * sends GET /v1/pets/:id every 20 ms. Each round has four windows: quiet (no streams, no writes),
 * writes alone (POST /v1/pets at 20/s), the 200 streams open and idle, and the 200 streams with the
 * same writes; the streams are opened and closed within the round, and the rounds interleave the
 * conditions so that a shared machine's load falls on all of them alike. Printed: the probe's
 * p50/p99/max per condition (all rounds pooled) and its p99's ratio to the quiet p99, the delivery
 * latency (from the write being sent to each stream reading its event) and whether every event
 * reached every stream, and the server's RSS and CPU.
 *   npm run build && npm run bench:stream
 *   BENCH_STREAMS=200 BENCH_STREAM_WRITES_PER_S=20 BENCH_STREAM_WINDOW_MS=8000 BENCH_STREAM_ROUNDS=4
 *   BENCH_PIN=1 pins the server to a core of its own (off by default here: on a busy machine a server
 *   confined to one core waits for that core); BENCH_PROFILE=1 writes its .cpuprofile under bench-results/.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { accessToken, benchAdmin, benchSetting, createFixtures, expectStatus, pinLoadGenerator, startGateway } from './bench-servers.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const streamCount = benchSetting('BENCH_STREAMS', 200);
const perClient = 4;
const writesPerSecond = benchSetting('BENCH_STREAM_WRITES_PER_S', 20);
const windowMs = benchSetting('BENCH_STREAM_WINDOW_MS', 8_000);
const rounds = benchSetting('BENCH_STREAM_ROUNDS', 4);
const probeEveryMs = 20;
const profile = process.env.BENCH_PROFILE === '1';
const profileDir = path.join(root, 'bench-results');

const serverCpu = process.env.BENCH_PIN === '1' ? pinLoadGenerator() : undefined;
if (profile) mkdirSync(profileDir, { recursive: true });
const server = await startGateway(root, { cpu: serverCpu, ...(profile ? { nodeArgs: ['--cpu-prof', '--cpu-prof-dir', profileDir] } : {}) });
const { port } = new URL(server.url);

/** The server's resident set, in MB (VmRSS of /proc/<pid>/status). */
function rssMb(): number {
  const status = readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? Number.NaN) / 1024;
}

const percentile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? Number.NaN;

/**
 * The stream readers' process (plain JavaScript, run with `node -e`): on `{open}` it opens the
 * streams and answers once each has said `: connected`; on `{close}` it closes them and answers the
 * delivery latencies it measured (now minus the send time in the pet's name) and how many streams
 * the server ended on its own.
 */
const readerScript = `
const http = require('node:http');
const { performance } = require('node:perf_hooks');
let streams = [], deliveries = [], dropped = 0, closing = false;
function open(i, port, token) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/v1/events/stream', localAddress: '127.0.0.' + (2 + (i % 4)), agent: false,
      headers: { authorization: 'Bearer ' + token, accept: 'text/event-stream' } }, (res) => {
      // A 429 while the server still releases the previous round's stream: try again.
      if (res.statusCode === 429) { res.resume(); setTimeout(() => open(i, port, token).then(resolve, reject), 100); return; }
      if (res.statusCode !== 200) return reject(new Error('stream ' + i + ': ' + res.statusCode));
      res.setEncoding('utf8');
      let buffer = '', connected = false;
      res.on('data', (chunk) => {
        buffer += chunk;
        for (let end = buffer.indexOf('\\n\\n'); end !== -1; end = buffer.indexOf('\\n\\n')) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (!connected && frame.includes(': connected')) { connected = true; resolve(req); }
          const sent = /"name":"b\\d+-([\\d.]+)"/.exec(frame);
          if (sent && frame.includes('event: pet.registered')) deliveries.push(performance.timeOrigin + performance.now() - Number(sent[1]));
        }
      });
      res.on('close', () => { if (!closing) dropped++; });
    });
    req.on('error', (error) => (closing ? undefined : reject(error)));
  });
}
process.on('message', async (message) => {
  try {
    if (message.open) {
      const { port, tokens, streamCount, perClient } = message.open;
      closing = false;
      streams = await Promise.all(Array.from({ length: streamCount }, (_, i) => open(i, port, tokens[Math.floor(i / perClient)])));
      process.send({ opened: streams.length });
    } else if (message.close) {
      closing = true;
      for (const req of streams) req.destroy();
      process.send({ deliveries, dropped });
      deliveries = [];
      dropped = 0;
    }
  } catch (error) {
    process.send({ error: String(error && error.message || error) });
  }
});
process.on('disconnect', () => process.exit(0));
`;

/** One condition's figures, pooled over the rounds. */
class Condition {
  readonly latencies: number[] = [];
  peakRssMb = 0;
  cpuSeconds = 0;
  writes = 0;
  seconds = 0;
  constructor(readonly name: string) {}
}

try {
  const fixtures = await createFixtures(server.url);
  const admin = await accessToken(server.url, benchAdmin.clientId, benchAdmin.clientSecret);
  const probeUrl = `${server.url}/v1/pets/${fixtures.petId}`;
  const probeHeaders = { authorization: `Bearer ${fixtures.token}` };

  /** GET /v1/pets/:id every 20 ms for `windowMs` (at once when the last one ran late), into `into`; the server's peak RSS and CPU meanwhile. */
  async function probeWindow(into: Condition, writer?: { writes(): number }): Promise<void> {
    const cpuBefore = server.cpuSeconds() ?? Number.NaN;
    const writesBefore = writer?.writes() ?? 0;
    const start = performance.now();
    for (let i = 0; ; i++) {
      const due = start + i * probeEveryMs;
      if (due - start >= windowMs) break;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const sent = performance.now();
      const res = await fetch(probeUrl, { headers: probeHeaders });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`probe: ${res.status}`);
      into.latencies.push(performance.now() - sent);
      if (i % 50 === 0) into.peakRssMb = Math.max(into.peakRssMb, rssMb());
    }
    into.peakRssMb = Math.max(into.peakRssMb, rssMb());
    into.cpuSeconds += (server.cpuSeconds() ?? Number.NaN) - cpuBefore;
    into.writes += (writer?.writes() ?? 0) - writesBefore;
    into.seconds += (performance.now() - start) / 1000;
  }

  /** POST /v1/pets at `writesPerSecond` until stopped; each pet's name is its number, and when it was sent is kept. */
  let written = 0;
  function startWriter() {
    let stop = false;
    let writes = 0;
    const done = (async () => {
      const start = performance.now();
      for (let i = 0; !stop; i++) {
        const wait = start + (i * 1000) / writesPerSecond - performance.now();
        if (wait > 0) await sleep(wait);
        // The name carries when it was sent (epoch ms), for the readers' process to time the delivery.
        const name = `b${written++}-${(performance.timeOrigin + performance.now()).toFixed(1)}`;
        await expectStatus(
          server.url,
          'POST',
          '/v1/pets',
          201,
          { name, breed: 'Beagle', species: 'dog', ownerId: fixtures.ownerId, locationId: fixtures.locationId },
          fixtures.token,
        );
        writes++;
      }
    })();
    return {
      writes: () => writes,
      async stop() {
        stop = true;
        await done;
      },
    };
  }

  // The streams' clients: staff with pets.read, 4 streams each (the production cap is 5).
  const tokens: string[] = [];
  for (let c = 0; c < Math.ceil(streamCount / perClient); c++) {
    const client = await expectStatus(
      server.url,
      'POST',
      '/v1/clients',
      201,
      { name: `stream-${c}`, role: 'staff', scopes: ['pets.read'], rateLimitPerMinute: 100_000_000 },
      admin,
    );
    tokens.push(await accessToken(server.url, String(client.clientId), String(client.clientSecret)));
  }

  /** Delivery latencies of the bench writer's pet.registered events, over every stream (from the readers' process). */
  const deliveries: number[] = [];
  let dropped = 0;
  const readers = spawn(process.execPath, ['-e', readerScript], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ask = async <T>(message: object): Promise<T> => {
    readers.send(message);
    const [answer] = (await once(readers, 'message')) as [T & { error?: string }];
    if (answer.error) throw new Error(`stream readers: ${answer.error}`);
    return answer;
  };
  const openStreams = () => ask<{ opened: number }>({ open: { port: Number(port), tokens, streamCount, perClient } });
  async function closeStreams(): Promise<void> {
    const answer = await ask<{ deliveries: number[]; dropped: number }>({ close: true });
    for (const d of answer.deliveries) deliveries.push(d);
    dropped += answer.dropped;
  }

  const quiet = new Condition('quiet');
  const writing = new Condition('writes alone');
  const idle = new Condition(`${streamCount} streams, no writes`);
  const loaded = new Condition(`${streamCount} streams + writes`);
  let expected = 0;
  let idleRss = 0;
  let afterRss = 0;

  // Warm up the route.
  for (let i = 0; i < 200; i++) await (await fetch(probeUrl, { headers: probeHeaders })).arrayBuffer();
  for (let round = 0; round < rounds; round++) {
    await probeWindow(quiet);

    const alone = startWriter();
    await probeWindow(writing, alone);
    await alone.stop();

    await openStreams();
    idleRss = Math.max(idleRss, rssMb());
    await probeWindow(idle);

    const withStreams = startWriter();
    await probeWindow(loaded, withStreams);
    await withStreams.stop();
    expected += withStreams.writes() * streamCount;
    // Let the last writes' events arrive (the feed polls every 250 ms).
    await sleep(1500);
    afterRss = Math.max(afterRss, rssMb());
    await closeStreams();
    process.stdout.write(`round ${round + 1} of ${rounds} done\n`);
  }

  readers.disconnect();
  for (const c of [quiet, writing, idle, loaded]) c.latencies.sort((a, b) => a - b);
  deliveries.sort((a, b) => a - b);
  const quietP99 = percentile(quiet.latencies, 0.99);
  const row = (c: Condition) => {
    const p99 = percentile(c.latencies, 0.99);
    return (
      `${c.name.padEnd(24)} GET p50 ${percentile(c.latencies, 0.5).toFixed(1).padStart(5)} ms  p99 ${p99.toFixed(1).padStart(6)} ms  ` +
      `max ${(c.latencies.at(-1) ?? Number.NaN).toFixed(1).padStart(6)} ms  (p99 ${(p99 / quietP99).toFixed(2)} × quiet)  ${String(c.latencies.length).padStart(5)} probes  ` +
      `${String(c.writes).padStart(4)} writes  server CPU ${((100 * c.cpuSeconds) / c.seconds).toFixed(0).padStart(3)} %  peak RSS ${c.peakRssMb.toFixed(0)} MB`
    );
  };
  console.log(
    `\nGET /v1/pets/:id every ${probeEveryMs} ms, ${rounds} rounds of ${windowMs / 1000} s windows per condition (pooled); writes: POST /v1/pets at ${writesPerSecond}/s`,
  );
  for (const c of [quiet, writing, idle, loaded]) console.log(row(c));
  console.log(
    `\n${streamCount} streams: ${deliveries.length} of ${expected} deliveries${dropped ? `, ${dropped} streams dropped by the server` : ', none dropped'}; ` +
      `delivery latency (write sent → event read) p50 ${percentile(deliveries, 0.5).toFixed(0)} ms  p99 ${percentile(deliveries, 0.99).toFixed(0)} ms  ` +
      `max ${(deliveries.at(-1) ?? Number.NaN).toFixed(0)} ms (the feed polls every 250 ms)`,
  );
  console.log(
    `server RSS: quiet ${quiet.peakRssMb.toFixed(0)} MB, ${streamCount} streams open ${idleRss.toFixed(0)} MB, peak with events ${loaded.peakRssMb.toFixed(0)} MB, after ${afterRss.toFixed(0)} MB`,
  );
  const ratio = percentile(loaded.latencies, 0.99) / quietP99;
  const overWrites = percentile(loaded.latencies, 0.99) / percentile(writing.latencies, 0.99);
  console.log(
    `target: GET p99 with ${streamCount} streams and events ≤ 2 × quiet p99 (${(2 * quietP99).toFixed(1)} ms): ${ratio <= 2 ? 'met' : 'MISSED'} (${ratio.toFixed(2)} ×; ` +
      `${overWrites.toFixed(2)} × the p99 with the same writes and no streams)`,
  );
} finally {
  await server.stop();
}
if (profile) console.log(`CPU profile of the server written under ${path.relative(process.cwd(), profileDir)}/`);
