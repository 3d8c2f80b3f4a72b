import test from 'ava';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createHttpServer, defaultServerLimits, type ServerLimits } from '../../src/http/server.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * Slow clients: 200 sockets trickling a request head from one address cannot hold the server,
 * and normal requests from another address keep being served meanwhile. The limits are the
 * production ones scaled down (the checking interval is what makes a stalled head close on time).
 * Latency is a benchmark's business (`npm run bench:slow-clients` prints p99 with and without the
 * slow sockets); here a normal call only has to be served, never starved (< 1 s).
 */
const limits: ServerLimits = {
  ...defaultServerLimits,
  headersTimeoutMs: 1_500,
  requestTimeoutMs: 5_000,
  idleTimeoutMs: 3_000,
  connectionsCheckingIntervalMs: 250,
  maxConnectionsPerIp: 150,
};

test('200 slow sockets: beyond the per-address cap they are closed at once, the rest when their head stalls; normal calls are served meanwhile', async (t) => {
  const app = await startTestApp({ jobs: false });
  t.teardown(() => app.close());
  const server = createHttpServer(app.app.koa.callback(), limits);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  }));
  const port = (server.address() as AddressInfo).port;
  const token = await app.adminToken();

  // The slow ones come from 127.0.0.2 (loopback is a /8): the cap is per client address.
  const closedAfter: number[] = [];
  const started = performance.now();
  const sockets = await Promise.all(
    Array.from({ length: 200 }, () =>
      new Promise<net.Socket>((resolve) => {
        const socket = net.connect({ host: '127.0.0.1', port, localAddress: '127.0.0.2' }, () => {
          socket.write('GET /v1/pets HTTP/1.1\r\nHost: x\r\n');
          resolve(socket);
        });
        socket.on('error', () => undefined);
        socket.on('close', () => closedAfter.push(performance.now() - started));
      }),
    ),
  );
  const trickle = setInterval(() => {
    for (const s of sockets) if (!s.destroyed) s.write('X-Slow: 1\r\n');
  }, 200);
  t.teardown(() => clearInterval(trickle));

  // Meanwhile, ordinary calls from 127.0.0.1.
  const latencies: number[] = [];
  for (let i = 0; i < 100; i++) {
    const before = performance.now();
    const res = await fetch(`http://127.0.0.1:${port}/v1/pets?limit=5`, { headers: { authorization: `Bearer ${token}` } });
    await res.text();
    t.is(res.status, 200);
    latencies.push(performance.now() - before);
  }
  latencies.sort((a, b) => a - b);
  const p99 = latencies[98]!;
  t.true(p99 < 1_000, `p99 ${p99.toFixed(1)} ms: normal calls were starved`);

  const deadline = performance.now() + 10_000;
  while (closedAfter.length < 200 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  clearInterval(trickle);
  t.is(closedAfter.length, 200, 'every slow socket was closed');
  closedAfter.sort((a, b) => a - b);
  t.true(closedAfter[49]! < 1_000, 'the 50 over the per-address cap were refused at once');
  t.true(closedAfter[199]! < limits.headersTimeoutMs + limits.connectionsCheckingIntervalMs + 2_000, `last closed after ${closedAfter[199]!.toFixed(0)} ms`);
});
