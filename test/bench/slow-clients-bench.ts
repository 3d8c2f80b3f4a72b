/**
 * Slow clients (issue: 50 trickling sockets stayed open past 100 s): p50/p99 of ordinary
 * GET /v1/pets calls alone, then with 200 sockets trickling a request head from another loopback
 * address, on the production limits. Target: p99 under 100 ms with the slow sockets.
 *   npm run bench:slow-clients
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createHttpServer, defaultServerLimits } from '../../src/http/server.js';
import { startTestApp } from '../helpers/test-app.js';

const app = await startTestApp({ jobs: false, config: { rateLimitPerMinute: 1_000_000 } });
const server = createHttpServer(app.app.koa.callback(), defaultServerLimits);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = (server.address() as AddressInfo).port;
const token = await app.adminToken();

async function sample(n: number): Promise<{ p50: number; p99: number }> {
  const latencies: number[] = [];
  for (let i = 0; i < n; i++) {
    const before = performance.now();
    const res = await fetch(`http://127.0.0.1:${port}/v1/pets?limit=5`, { headers: { authorization: `Bearer ${token}` } });
    await res.text();
    latencies.push(performance.now() - before);
  }
  latencies.sort((a, b) => a - b);
  return { p50: latencies[Math.floor(n / 2)]!, p99: latencies[Math.floor(n * 0.99)]! };
}

const alone = await sample(500);
const sockets: net.Socket[] = [];
for (let i = 0; i < 200; i++) {
  const socket = net.connect({ host: '127.0.0.1', port, localAddress: '127.0.0.2' }, () => socket.write('GET /v1/pets HTTP/1.1\r\nHost: x\r\n'));
  socket.on('error', () => undefined);
  sockets.push(socket);
}
const trickle = setInterval(() => {
  for (const s of sockets) if (!s.destroyed) s.write('X-Slow: 1\r\n');
}, 1000);
const withSlow = await sample(500);
clearInterval(trickle);
const open = sockets.filter((s) => !s.destroyed).length;
for (const s of sockets) s.destroy();
console.log(`alone:               p50 ${alone.p50.toFixed(1)} ms  p99 ${alone.p99.toFixed(1)} ms`);
console.log(
  `200 slow sockets:    p50 ${withSlow.p50.toFixed(1)} ms  p99 ${withSlow.p99.toFixed(1)} ms  (target p99 < 100 ms; ${open} slow sockets still open, cap ${defaultServerLimits.maxConnectionsPerIp} per address)`,
);
server.closeAllConnections();
server.close();
await app.close();
