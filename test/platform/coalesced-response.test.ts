import test from 'ava';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHttpServer, defaultServerLimits } from '../../src/http/server.js';

/**
 * The server writes the answers of one event-loop turn together (CoalescedResponse). What a client
 * sees must not change: every answer whole, in request order on a connection, `finish` and the
 * end callback still fired, a streamed answer's early writes sent before its end.
 */
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createHttpServer(handler, { ...defaultServerLimits, maxConnectionsPerIp: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Sends raw bytes on one connection and collects what comes back until `done` says enough. */
function exchange(port: number, payload: string, done: (text: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(payload));
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (done(text)) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.on('error', reject);
    socket.setTimeout(30_000, () => reject(new Error(`timed out with ${JSON.stringify(text)}`)));
  });
}

test('pipelined requests on one connection get their answers whole and in order', async (t) => {
  const held: Array<() => void> = [];
  const server = await serve((req, res) => {
    // Later requests answer sooner (all five are held, then answered last first): order on the
    // wire must still follow the requests.
    const n = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('n'));
    held.push(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ n }));
    });
    if (held.length === 5) for (const answer of held.reverse()) answer();
  });
  t.teardown(server.close);
  const requests = [1, 2, 3, 4, 5].map((n) => `GET /?n=${n} HTTP/1.1\r\nHost: x\r\n\r\n`).join('');
  const text = await exchange(server.port, requests, (seen) => (seen.match(/\{"n":\d\}/g) ?? []).length === 5);
  t.deepEqual(text.match(/\{"n":\d\}/g), ['{"n":1}', '{"n":2}', '{"n":3}', '{"n":4}', '{"n":5}']);
  t.is(text.match(/HTTP\/1\.1 200 OK/g)?.length, 5);
});

test('answers made in one turn all arrive; finish and the end callback fire once each', async (t) => {
  let finished = 0;
  let callbacks = 0;
  const server = await serve((_req, res) => {
    res.on('finish', () => finished++);
    res.end('ok', () => callbacks++);
  });
  t.teardown(server.close);
  const answers = await Promise.all(Array.from({ length: 30 }, () => fetch(`http://127.0.0.1:${server.port}/`).then((res) => res.text())));
  t.deepEqual(
    answers,
    Array.from({ length: 30 }, () => 'ok'),
  );
  await new Promise((resolve) => setImmediate(resolve));
  t.is(finished, 30);
  t.is(callbacks, 30);
});

test('a streamed answer sends its early writes before it ends', async (t) => {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const server = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('first part;');
    void released.then(() => res.end('last part'));
  });
  t.teardown(server.close);
  const res = await fetch(`http://127.0.0.1:${server.port}/`);
  const reader = res.body!.getReader();
  const first = await reader.read();
  t.is(Buffer.from(first.value!).toString(), 'first part;');
  release();
  let rest = '';
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += Buffer.from(chunk.value).toString();
  t.is(rest, 'last part');
});
