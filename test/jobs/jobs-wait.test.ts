import test from 'ava';
import type { IncomingMessage } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type { JobDefinition } from '../../src/jobs/job-definition.js';
import { eventually } from '../helpers/eventually.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * POST /v1/jobs/{name}/run {wait: true} may wait up to 120 s, longer than the server's idle limit
 * (30 s, meant for slow clients). Here the limit is 300 ms and the job finishes only after it has
 * passed on the waiting request's socket: the answer still arrives. A client that stalls its own
 * request is still cut by the same limit.
 */
const idleTimeoutMs = 300;

test('a run waited for outlasts the idle limit: the socket is kept while the answer is produced, and the answer is 200', async (t) => {
  const app = await startTestApp({ serverLimits: { idleTimeoutMs } });
  t.teardown(() => app.close());
  const path = '/v1/jobs/test-outlasts-idle/run';
  let idleFired = false;
  let idlePassed!: () => void;
  const passed = new Promise<void>((resolve) => (idlePassed = resolve));
  // The idle timer of the socket carrying the waiting request: once it has fired, the limit is behind us.
  app.server.on('request', (req: IncomingMessage) => {
    if (req.url !== path) return;
    req.socket.once('timeout', () => {
      idleFired = true;
      idlePassed();
    });
  });
  const job: JobDefinition = {
    name: 'test-outlasts-idle',
    description: 'Finishes once the idle limit has passed on the request waiting for it.',
    schedule: null,
    run: async () => {
      await passed;
      return { outlasted: true };
    },
  };
  app.app.runner.register([job]);

  const token = await app.adminToken();
  const res = await app.request('POST', path, { token, body: { wait: true, waitSeconds: 120 } });
  t.is(res.status, 200, res.text);
  t.like(res.body, { name: 'test-outlasts-idle', status: 'succeeded', result: { outlasted: true } });
  t.true(idleFired, 'the idle limit passed while the request waited');

  // The connection is still usable afterwards (keep-alive): the next call is answered as usual.
  const next = await app.request('GET', '/v1/jobs/test-outlasts-idle', { token });
  t.is(next.status, 200, next.text);
});

test('the idle limit still closes a socket whose request stops arriving', async (t) => {
  const app = await startTestApp({ serverLimits: { idleTimeoutMs }, jobs: false });
  t.teardown(() => app.close());
  const token = await app.adminToken();
  const { port } = app.server.address() as AddressInfo;
  let closed = false;
  const socket = net.connect({ host: '127.0.0.1', port }, () => {
    // A body of 50 bytes announced, 4 sent, then nothing.
    socket.write(
      `POST /v1/jobs/housekeeping/run HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"wa`,
    );
  });
  socket.on('error', () => undefined);
  socket.on('close', () => (closed = true));
  t.teardown(() => socket.destroy());
  // The other limits are 20 s (head) and 120 s (request): only the idle limit closes it this soon.
  await eventually(() => closed, { what: 'the stalled socket closed by the idle limit' });
  t.true(closed);
});
