import test from 'ava';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { createHttpServer, defaultServerLimits, type ServerLimits } from '../../src/http/server.js';
import { eventually } from '../helpers/eventually.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * Slow clients: 200 sockets trickling a request head from one address cannot hold the server,
 * and normal requests from another address keep being served meanwhile. The limits are the
 * production ones with a per-address cap of 150; the head timeout starts long and is then
 * lowered (Node reads `server.headersTimeout` at each connections check), so what the test sees
 * does not depend on how fast a loaded machine runs it. Latency is a benchmark's business
 * (`npm run bench:slow-clients` prints p99 with and without the slow sockets); here normal calls
 * only have to be served while the slow sockets still hold their places.
 */
const limits: ServerLimits = {
  ...defaultServerLimits,
  headersTimeoutMs: 300_000,
  requestTimeoutMs: 300_000,
  idleTimeoutMs: 300_000,
  connectionsCheckingIntervalMs: 250,
  maxConnectionsPerIp: 150,
};

test('200 slow sockets: beyond the per-address cap they are closed at once, the rest when their head stalls; normal calls are served meanwhile', async (t) => {
  const app = await startTestApp({ jobs: false });
  t.teardown(() => app.close());
  const server = createHttpServer(app.app.koa.callback(), limits);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const port = (server.address() as AddressInfo).port;
  const token = await app.adminToken();

  // The slow ones come from 127.0.0.2 (loopback is a /8): the cap is per client address.
  let closed = 0;
  const sockets = await Promise.all(
    Array.from(
      { length: 200 },
      () =>
        new Promise<net.Socket>((resolve) => {
          const socket = net.connect({ host: '127.0.0.1', port, localAddress: '127.0.0.2' }, () => {
            socket.write('GET /v1/pets HTTP/1.1\r\nHost: x\r\n');
            resolve(socket);
          });
          socket.on('error', () => undefined);
          socket.on('close', () => closed++);
        }),
    ),
  );
  const trickle = setInterval(() => {
    for (const s of sockets) if (!s.destroyed) s.write('X-Slow: 1\r\n');
  }, 200);
  t.teardown(() => clearInterval(trickle));

  // The 50 over the cap are closed by the server without waiting for anything (the head timeout is minutes away).
  await eventually(() => closed >= 50, { timeoutMs: 30_000, what: () => `the 50 over the cap closed (${closed} so far)` });
  t.is(closed, 50, 'the 150 within the cap stay open');

  // Meanwhile, ordinary calls from 127.0.0.1 are served, while the 150 slow sockets still hold their places.
  for (let i = 0; i < 100; i++) {
    const res = await fetch(`http://127.0.0.1:${port}/v1/pets?limit=5`, { headers: { authorization: `Bearer ${token}` } });
    await res.text();
    t.is(res.status, 200);
  }
  t.is(closed, 50, 'the normal calls were served while the slow heads were still open');
  t.is(sockets.filter((s) => !s.destroyed).length, 150);

  // A stalled head is closed at the head timeout although it keeps trickling (it is never idle).
  server.headersTimeout = 1_500;
  await eventually(() => closed === 200, { timeoutMs: 30_000, what: () => `every slow socket closed (${closed} so far)` });
  clearInterval(trickle);
  t.is(closed, 200, 'every slow socket was closed');
});
