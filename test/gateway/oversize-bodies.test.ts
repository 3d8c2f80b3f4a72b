import { execFile } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { promisify } from 'node:util';
import test from 'ava';
import { createHousehold, createLocation } from '../helpers/factories.js';
import { eventually } from '../helpers/eventually.js';
import { startTestApp, useTestApp } from '../helpers/test-app.js';
import { assertProblem } from './gateway-support.js';

/**
 * Bodies over the limit answer 413 to Node's fetch (undici), not EPIPE: the gateway answers with
 * Connection: close and drains the unread rest of the body, bounded, instead of resetting the
 * connection under a client that is still sending (issue 10 §2).
 */
const mb = 1024 * 1024;
let admin: string;
let petId: string;

const t = useTestApp(test, { jobs: false });
test.before(async () => {
  admin = await t.adminToken();
  ({
    pet: { id: petId },
  } = await createHousehold(t));
});

/**
 * Sends each body with fetch from a separate Node process whose event loop is busy for a moment
 * after sending starts, as a loaded client's would be: by the time it reads, the answer has long
 * arrived, and a server that reset the connection has wiped it (EPIPE). In this process the
 * server would run between the client's writes and hide that race.
 */
const clientScript = String.raw`
const { url, token, petId, attempts } = JSON.parse(process.argv[1]);
const mb = 1024 * 1024;
const busy = () => setTimeout(() => { const end = Date.now() + 150; while (Date.now() < end); }, 5);
function stream(head, total, tail) {
  let sent = 0;
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  return new ReadableStream({
    start(c) { c.enqueue(Buffer.from(head)); },
    pull(c) {
      if (sent >= total) { c.enqueue(Buffer.from(tail)); c.close(); return; }
      sent += chunk.length;
      c.enqueue(chunk);
    },
  });
}
const auth = { authorization: 'Bearer ' + token };
const boundary = 'oversize-7MA4YWxkTrZu0gW';
const part = '--' + boundary + '\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\nContent-Type: text/plain\r\n\r\n';
const cases = {
  'multipart 26 MB': () => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.alloc(26 * mb, 0x61)], { type: 'text/plain' }), 'big.txt');
    return fetch(url + '/v1/pets/' + petId + '/documents', { method: 'POST', headers: auth, body: form });
  },
  'multipart 26 MB streamed': () => fetch(url + '/v1/pets/' + petId + '/documents', {
    method: 'POST', duplex: 'half',
    headers: { ...auth, 'content-type': 'multipart/form-data; boundary=' + boundary },
    body: stream(part, 26 * mb, '\r\n--' + boundary + '--\r\n'),
  }),
  'JSON 26 MB': () => fetch(url + '/v1/pets', {
    method: 'POST', headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'x'.repeat(26 * mb) }),
  }),
  'JSON 26 MB streamed': () => fetch(url + '/v1/pets', {
    method: 'POST', duplex: 'half', headers: { ...auth, 'content-type': 'application/json' },
    body: stream('{"name":"', 26 * mb, '"}'),
  }),
  'refused before reading: 401 on a 26 MB upload': () => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.alloc(26 * mb, 0x61)]), 'big.txt');
    return fetch(url + '/v1/pets/' + petId + '/documents', { method: 'POST', headers: { authorization: 'Bearer nope' }, body: form });
  },
};
const results = {};
for (const [name, send] of Object.entries(cases)) {
  results[name] = [];
  for (let i = 0; i < attempts; i++) {
    try {
      const pending = send();
      busy();
      const res = await pending;
      const body = await res.json();
      results[name].push({ status: res.status, code: body.code, connection: res.headers.get('connection'), type: res.headers.get('content-type') });
    } catch (err) {
      results[name].push({ error: String(err.cause?.code ?? err.cause?.message ?? err.message) });
    }
  }
}
process.stdout.write(JSON.stringify(results));
`;

type Outcome = { status?: number; code?: string; connection?: string | null; type?: string | null; error?: string };

async function sendFromAnotherProcess(attempts: number): Promise<Record<string, Outcome[]>> {
  const input = JSON.stringify({ url: t.url, token: admin, petId, attempts });
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', clientScript, input], { maxBuffer: mb, timeout: 120_000 });
  return JSON.parse(stdout) as Record<string, Outcome[]>;
}

test.serial('fetch reads the 413 of a 26 MB upload and of a 26 MB JSON body, sent whole or streamed, and the 401 of an unread upload', async (a) => {
  const results = await sendFromAnotherProcess(3);
  const expected: Record<string, [number, string]> = {
    'multipart 26 MB': [413, 'payload_too_large'],
    'multipart 26 MB streamed': [413, 'payload_too_large'],
    'JSON 26 MB': [413, 'payload_too_large'],
    'JSON 26 MB streamed': [413, 'payload_too_large'],
    'refused before reading: 401 on a 26 MB upload': [401, 'invalid_token'],
  };
  for (const [name, [status, code]] of Object.entries(expected)) {
    a.is(results[name]?.length, 3, name);
    for (const outcome of results[name] ?? []) {
      a.deepEqual(outcome, { status, code, connection: 'close', type: 'application/problem+json' }, name);
    }
  }
  // Nothing was stored by the refused uploads.
  const docs = await t.request('GET', `/v1/pets/${petId}/documents`, { token: admin });
  a.deepEqual(docs.body.data, []);
});

/** A raw HTTP/1.1 client that sends headers, then `chunk` again and again as fast as the server takes it, and never reads. */
function endlessSender(port: number, head: string, chunk: Buffer, limitBytes: number): Promise<{ written: number; closedBy: string; ms: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket: Socket = connect(port, '127.0.0.1');
    let written = 0;
    let done = false;
    const finish = (closedBy: string) => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve({ written, closedBy, ms: Date.now() - started });
    };
    const pump = () => {
      while (!done && written < limitBytes) {
        written += chunk.length;
        if (!socket.write(chunk)) return; // wait for 'drain'
      }
      if (written >= limitBytes) finish('client gave up');
    };
    socket.on('connect', () => {
      socket.write(head);
      pump();
    });
    socket.on('drain', pump);
    socket.on('error', (err: NodeJS.ErrnoException) => finish(err.code ?? err.message));
    socket.on('close', () => finish('close'));
    socket.pause(); // never reads the answer
  });
}

test.serial('the drain is bounded: a client pushing 10 GB at a refused request is cut off after the configured bytes', async (a) => {
  const small = await startTestApp({ jobs: false, config: { refusedBodyDrainBytes: 2 * mb } });
  try {
    const token = await small.adminToken();
    const port = Number(new URL(small.url).port);
    const tenGb = 10 * 1024 * mb;
    const head = `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${tenGb}\r\n\r\n`;
    // The client stops by itself after 512 MB: reaching that would mean the server kept reading.
    const data = Buffer.alloc(256 * 1024, 0x61);
    const result = await endlessSender(port, head, data, 512 * mb);
    a.not(result.closedBy, 'client gave up', JSON.stringify(result));
    // 2 MB drained plus what the two kernels' socket buffers hold on loopback.
    a.true(result.written < 64 * mb, `the server read ${result.written} bytes before cutting off`);

    // A chunked body with no length is cut off the same way.
    const chunked = `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const framed = Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]);
    const endless = await endlessSender(port, chunked, framed, 512 * mb);
    a.not(endless.closedBy, 'client gave up', JSON.stringify(endless));
    a.true(endless.written < 64 * mb, `the server read ${endless.written} bytes before cutting off`);

    // The server is fine afterwards.
    a.is((await small.request('GET', '/v1/pets', { token })).status, 200);
  } finally {
    await small.close();
  }
});

test.serial('a refused body that stops arriving is not waited for: the server drops the connection after the idle bound', async (a) => {
  const port = Number(new URL(t.url).port);
  // The server's side of the connection, to see when it lets go (the client only learns it by writing).
  const accepted: Socket[] = [];
  const onConnection = (s: Socket) => accepted.push(s);
  t.server.on('connection', onConnection);
  a.teardown(() => t.server.off('connection', onConnection));
  // allowHalfOpen: the client keeps its side open after the server's FIN, as a client still sending would.
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  let text = '';
  let ended = false;
  const failed = new Promise<string>((resolve) => {
    socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    socket.on('close', () => resolve('close'));
  });
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  socket.on('end', () => (ended = true));
  await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
  // Declares 5 MB, sends 100 KB, then goes quiet without closing.
  socket.write(
    `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${admin}\r\nContent-Type: application/json\r\nContent-Length: ${5 * mb}\r\n\r\n`,
  );
  socket.write(Buffer.alloc(100 * 1024, 0x61));
  const serverSide = accepted.find((s) => s.remotePort === socket.localPort);
  a.truthy(serverSide, 'the server accepted the connection');
  await waitFor(() => ended);
  a.regex(text, /^HTTP\/1\.1 413 /);
  a.regex(text, /\r\nconnection: close\r\n/i);
  a.regex(text, /"code":"payload_too_large"/);
  // The server half-closed after its answer and still reads; after the 5 s idle bound (the app's,
  // not configurable here) it lets go of its side, so bytes sent then are refused (RST) instead of drained.
  a.false(serverSide!.destroyed, 'the server still drains after its answer');
  await eventually(() => serverSide!.destroyed, { what: 'the server letting go after the idle bound' });
  const trickle = setInterval(() => socket.write(Buffer.alloc(1024, 0x61)), 20);
  try {
    a.truthy(await failed, 'the bytes were refused: the connection failed or closed');
  } finally {
    clearInterval(trickle);
    socket.destroy();
  }
});

test.serial('while a refused body drains, other writes go through: no transaction or lock is held', async (a) => {
  const port = Number(new URL(t.url).port);
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  let answered = '';
  socket.on('data', (chunk) => (answered += chunk.toString('latin1')));
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
  socket.write(
    `POST /v1/pets/${petId}/documents HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${admin}\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: ${40 * mb}\r\n\r\n`,
  );
  // Keep trickling body bytes while the other writes run.
  const trickle = setInterval(() => socket.write(Buffer.alloc(16 * 1024, 0x61)), 50);
  try {
    await waitFor(() => answered.startsWith('HTTP/1.1 413 '));
    const location = await createLocation(t); // a write: its own transaction
    const parent = await t.request('POST', '/v1/pet-parents', {
      token: admin,
      body: { name: 'During the drain', email: 'drain@example.com', locationId: location.id, reminderConsent: false },
    });
    a.is(parent.status, 201, parent.text);
    a.false(socket.destroyed, 'the refused connection is still draining');
  } finally {
    clearInterval(trickle);
    socket.destroy();
  }
});

test.serial('bodies within the limits are unaffected: the connection stays open for the next request', async (a) => {
  const ok = await t.request('POST', '/v1/locations', { token: admin, body: { name: 'Small body', timezone: 'UTC' } });
  a.is(ok.status, 201);
  a.not(ok.headers.get('connection'), 'close');
  // Just over the JSON limit: refused with the same answer.
  const over = await t.request('POST', '/v1/locations', {
    token: admin,
    rawBody: JSON.stringify({ name: 'x'.repeat(t.config.jsonBodyLimitBytes), timezone: 'UTC' }),
    headers: { 'content-type': 'application/json' },
  });
  assertProblem(a, over, 413, 'payload_too_large');
});

async function waitFor(check: () => boolean): Promise<void> {
  await eventually(check, { intervalMs: 10 });
}
