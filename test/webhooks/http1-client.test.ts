import test from 'ava';
import { execFile, spawnSync } from 'node:child_process';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Exchange, Http1Pool, type Answer } from '../../src/modules/webhooks/http1-pool.js';
import { maxHeadBytes, ResponseError, ResponseReader, type ReadState } from '../../src/modules/webhooks/http1-response.js';
import { OutboundPolicy } from '../../src/modules/webhooks/outbound-policy.js';
import { maxResponseBytes, WebhookSender, type SendOutcome } from '../../src/modules/webhooks/webhook-sender.js';
import { eventually } from '../helpers/eventually.js';
import { freePort } from '../helpers/free-port.js';

/**
 * The webhook sender's own HTTP/1.1 client (http1-response.ts, http1-pool.ts, webhook-sender.ts)
 * against real servers on 127.0.0.1: raw net servers that write exact bytes (framing and timing
 * under the test's control) and node:http servers for the ordinary case.
 */

// ---------------------------------------------------------------------------------------------
// ResponseReader: every response fed whole, split in two at every position, and byte by byte.
// ---------------------------------------------------------------------------------------------

interface Read {
  state: ReadState;
  status: number | null;
  location: string | undefined;
  excerpt: string;
  reusable: boolean;
  done: boolean;
  bodyBytes: number;
}

/** Feeds `pieces` in order as a connection would (stopping at the first answer that is not 'more'); `closed` then ends the input. */
function read(pieces: Buffer[], options: { keep?: number; limit?: number; closed?: boolean } = {}): Read {
  const reader = new ResponseReader(options.keep ?? 1024, options.limit ?? 64 * 1024);
  let state: ReadState = 'more';
  for (const piece of pieces) {
    state = reader.feed(piece);
    if (state !== 'more') break;
  }
  if (state === 'more' && options.closed && reader.endOfInput()) state = 'done';
  return {
    state,
    status: reader.head?.status ?? null,
    location: reader.head?.location,
    excerpt: reader.excerpt().toString('latin1'),
    reusable: reader.reusable,
    done: reader.done,
    bodyBytes: reader.bodyBytes,
  };
}

/** The ways to cut `bytes`: whole, in two at every position (empty halves included), and one byte at a time. */
function* splits(bytes: Buffer, step = 1): Generator<{ how: string; pieces: Buffer[] }> {
  yield { how: 'whole', pieces: [bytes] };
  for (let i = 0; i <= bytes.length; i += step) yield { how: `split at ${i}`, pieces: [bytes.subarray(0, i), bytes.subarray(i)] };
  const bytewise: Buffer[] = [];
  for (let i = 0; i < bytes.length; i++) bytewise.push(bytes.subarray(i, i + 1));
  yield { how: 'byte by byte', pieces: bytewise };
}

const bytes = (text: string): Buffer => Buffer.from(text, 'latin1');

interface ReaderCase {
  name: string;
  response: string;
  expected: Partial<Read>;
  keep?: number;
  limit?: number;
  /** The body runs to the end of the connection: endOfInput() completes it. */
  closed?: boolean;
}

const readerCases: ReaderCase[] = [
  {
    name: 'Content-Length body',
    response: 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 11\r\n\r\nhello world',
    expected: { state: 'done', status: 200, location: undefined, excerpt: 'hello world', reusable: true, done: true, bodyBytes: 11 },
  },
  {
    name: 'Content-Length 0',
    response: 'HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n',
    expected: { state: 'done', status: 202, excerpt: '', reusable: true, done: true, bodyBytes: 0 },
  },
  {
    name: 'the same Content-Length twice',
    response: 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\ncontent-length:2\r\n\r\nok',
    expected: { state: 'done', status: 200, excerpt: 'ok', reusable: true, done: true },
  },
  {
    name: 'chunked body with chunk extensions and trailers',
    response:
      'HTTP/1.1 201 Created\r\nLocation: /deliveries/7\r\nTransfer-Encoding: chunked\r\n\r\n' +
      '5;name=value\r\nhello\r\n' +
      '6 ; a="b;c" ; d\r\n world\r\n' +
      'A\r\n, chunked!\r\n' +
      '0;last=yes\r\nX-Trailer: 1\r\nX-Other: two\r\n\r\n',
    expected: { state: 'done', status: 201, location: '/deliveries/7', excerpt: 'hello world, chunked!', reusable: true, done: true, bodyBytes: 21 },
  },
  {
    name: 'chunked body, upper-case hex and no trailers',
    response: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1A\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\n\r\n',
    expected: { state: 'done', status: 200, excerpt: 'abcdefghijklmnopqrstuvwxyz', reusable: true, done: true, bodyBytes: 26 },
  },
  {
    name: '204 No Content (no body even without a length)',
    response: 'HTTP/1.1 204 No Content\r\nDate: Mon, 01 Jan 2024 00:00:00 GMT\r\n\r\n',
    expected: { state: 'done', status: 204, excerpt: '', reusable: true, done: true, bodyBytes: 0 },
  },
  {
    name: '304 Not Modified (its Content-Length describes another response)',
    response: 'HTTP/1.1 304 Not Modified\r\nContent-Length: 100\r\nETag: "x"\r\n\r\n',
    expected: { state: 'done', status: 304, excerpt: '', reusable: true, done: true, bodyBytes: 0 },
  },
  {
    name: 'body delimited by the end of the connection',
    response: 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nall of this until the close',
    closed: true,
    expected: { state: 'done', status: 200, excerpt: 'all of this until the close', reusable: false, done: true, bodyBytes: 27 },
  },
  {
    name: '100 Continue, then 200',
    response: 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok',
    expected: { state: 'done', status: 200, excerpt: 'ok', reusable: true, done: true },
  },
  {
    name: '103 Early Hints (with headers, a Location and a Connection: close of its own), then 200',
    response:
      'HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\nLocation: /not-this\r\nConnection: close\r\n\r\n' +
      'HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\ndone',
    expected: { state: 'done', status: 200, location: undefined, excerpt: 'done', reusable: true, done: true },
  },
  {
    name: 'headers with LF-only line ends',
    response: 'HTTP/1.1 200 OK\nContent-Length: 5\nX-A: b\n\nhello',
    expected: { state: 'done', status: 200, excerpt: 'hello', reusable: true, done: true },
  },
  {
    name: 'LF-only line ends in the head and the chunk lines',
    response: 'HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n3\nabc\n0\nX-T: 1\n\n',
    expected: { state: 'done', status: 200, excerpt: 'abc', reusable: true, done: true },
  },
  {
    name: 'LF-only 204 without headers',
    response: 'HTTP/1.1 204 No Content\n\n',
    expected: { state: 'done', status: 204, excerpt: '', reusable: true, done: true },
  },
  {
    name: 'a status line without a reason phrase',
    response: 'HTTP/1.1 200\r\nContent-Length: 2\r\n\r\nok',
    expected: { state: 'done', status: 200, excerpt: 'ok', reusable: true, done: true },
  },
  {
    name: 'a status line with an empty reason phrase',
    response: 'HTTP/1.1 200 \r\nContent-Length: 2\r\n\r\nok',
    expected: { state: 'done', status: 200, excerpt: 'ok', reusable: true, done: true },
  },
  {
    name: '302 with a Location',
    response: 'HTTP/1.1 302 Found\r\nLocation:   https://example.com/next?a=1  \r\nContent-Length: 0\r\n\r\n',
    expected: { state: 'done', status: 302, location: 'https://example.com/next?a=1', excerpt: '', reusable: true, done: true },
  },
  {
    name: 'Transfer-Encoding and Content-Length: read as chunked, not reusable',
    response: 'HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n',
    expected: { state: 'done', status: 200, excerpt: 'hello', reusable: false, done: true, bodyBytes: 5 },
  },
  {
    name: 'a last transfer coding other than chunked: delimited by the close',
    response: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nzzzz',
    closed: true,
    expected: { state: 'done', status: 200, excerpt: 'zzzz', reusable: false, done: true },
  },
  {
    name: 'Connection: close',
    response: 'HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok',
    expected: { state: 'done', status: 200, excerpt: 'ok', reusable: false, done: true },
  },
  {
    name: 'Connection: keep-alive, Close (a token list)',
    response: 'HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: 2\r\n\r\nok',
    expected: { state: 'done', status: 200, reusable: false, done: true },
  },
  {
    name: 'HTTP/1.0 without keep-alive',
    response: 'HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok',
    expected: { state: 'done', status: 200, excerpt: 'ok', reusable: false, done: true },
  },
  {
    name: 'HTTP/1.0 with keep-alive',
    response: 'HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nok',
    expected: { state: 'done', status: 200, excerpt: 'ok', reusable: true, done: true },
  },
  {
    name: 'the excerpt keeps only the first `keep` bytes',
    response: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n4\r\ndefg\r\n5\r\nhijkl\r\n0\r\n\r\n',
    keep: 5,
    expected: { state: 'done', status: 200, excerpt: 'abcde', reusable: true, done: true, bodyBytes: 12 },
  },
  {
    name: 'a body of exactly the limit is read to its end',
    response: `HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n${'x'.repeat(50)}`,
    keep: 10,
    limit: 50,
    expected: { state: 'done', status: 200, excerpt: 'x'.repeat(10), reusable: true, done: true, bodyBytes: 50 },
  },
];

for (const c of readerCases) {
  test(`ResponseReader: ${c.name} — the same however the bytes are split`, (a) => {
    const response = bytes(c.response);
    const options = { keep: c.keep, limit: c.limit, closed: c.closed };
    const whole = read([response], options);
    a.like(whole, c.expected, 'fed whole');
    for (const { how, pieces } of splits(response)) a.deepEqual(read(pieces, options), whole, how);
  });
}

test('ResponseReader: a body over the limit reports limit, whatever the split', (a) => {
  for (const response of [
    `HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n${'y'.repeat(100)}`,
    `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n20\r\n${'y'.repeat(32)}\r\n20\r\n${'y'.repeat(32)}\r\n0\r\n\r\n`,
    `HTTP/1.1 200 OK\r\n\r\n${'y'.repeat(100)}`,
  ]) {
    for (const { how, pieces } of splits(bytes(response))) {
      const r = read(pieces, { keep: 10, limit: 50 });
      a.is(r.state, 'limit', how);
      a.is(r.status, 200, how);
      a.is(r.excerpt, 'y'.repeat(10), how);
      a.false(r.done, how);
      a.true(r.bodyBytes > 50, how);
    }
  }
});

test('ResponseReader: bytes after the end of the response are counted as leftover', (a) => {
  const reader = new ResponseReader(1024, 65536);
  a.is(reader.feed(bytes('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n')), 'done');
  a.is(reader.leftover, 'HTTP/1.1 200 OK\r\n'.length);
  a.is(reader.excerpt().toString(), 'ok');
  const interim = new ResponseReader(1024, 65536);
  a.is(interim.feed(bytes('HTTP/1.1 204 No Content\r\n\r\nxyz')), 'done');
  a.is(interim.leftover, 3);
});

test('ResponseReader: an incomplete response is not completed by the end of the input', (a) => {
  for (const response of [
    'HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort',
    'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel',
    'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n',
    'HTTP/1.1 200 OK\r\nContent-Le',
    'HTTP/1.1 100 Continue\r\n\r\n',
    '',
  ]) {
    const reader = new ResponseReader(1024, 65536);
    a.is(reader.feed(bytes(response)), 'more', response);
    a.false(reader.endOfInput(), response);
    a.false(reader.done, response);
  }
});

interface BadCase {
  name: string;
  response: string;
  message: RegExp;
  /** Split at every `step`th position only (long inputs). */
  step?: number;
}

const longValue = 'v'.repeat(maxHeadBytes + 100);
const badCases: BadCase[] = [
  { name: 'a garbage status line', response: 'hello there\r\n\r\n', message: /not an HTTP\/1\.x response/ },
  { name: 'a status line of another protocol', response: 'HTTP/2 200\r\n\r\n', message: /not an HTTP\/1\.x response/ },
  { name: 'a two-digit status', response: 'HTTP/1.1 20 OK\r\nContent-Length: 0\r\n\r\n', message: /not an HTTP\/1\.x response/ },
  { name: 'a header line without a colon', response: 'HTTP/1.1 200 OK\r\nNo colon here\r\nContent-Length: 0\r\n\r\n', message: /malformed response header/ },
  { name: 'a non-numeric Content-Length', response: 'HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\n', message: /invalid Content-Length/ },
  { name: 'a negative Content-Length', response: 'HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n', message: /invalid Content-Length/ },
  { name: 'an empty Content-Length', response: 'HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\n', message: /invalid Content-Length/ },
  { name: 'a Content-Length with a plus sign', response: 'HTTP/1.1 200 OK\r\nContent-Length: +5\r\n\r\nhello', message: /invalid Content-Length/ },
  {
    name: 'two different Content-Lengths',
    response: 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!',
    message: /invalid Content-Length/,
  },
  { name: 'a non-hex chunk size', response: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n', message: /invalid chunk size/ },
  { name: 'an empty chunk size', response: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\nhello\r\n0\r\n\r\n', message: /invalid chunk size/ },
  { name: 'a 0x chunk size', response: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n', message: /invalid chunk size/ },
  { name: 'a negative chunk size', response: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n', message: /invalid chunk size/ },
  {
    name: 'a chunk longer than its size',
    response: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello world\r\n0\r\n\r\n',
    message: /longer than its size/,
  },
  {
    name: 'a head over 16 KiB',
    response: `HTTP/1.1 200 OK\r\nX-Long: ${longValue}\r\nContent-Length: 0\r\n\r\n`,
    message: /head is too long/,
    step: 97,
  },
  {
    name: 'a head over 16 KiB in many short lines',
    response: `HTTP/1.1 200 OK\r\n${'X-Many: 0123456789abcdef\r\n'.repeat(700)}Content-Length: 0\r\n\r\n`,
    message: /head is too long/,
    step: 97,
  },
  {
    name: 'a chunk line over 1 KiB',
    response: `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=${'e'.repeat(2000)}\r\nhello\r\n0\r\n\r\n`,
    message: /chunk line is too long/,
    step: 7,
  },
  {
    name: '101 Switching Protocols',
    response: 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n',
    message: /switched protocols \(101\)/,
  },
];

for (const c of badCases) {
  test(`ResponseReader: ${c.name} throws ResponseError, however the bytes are split`, (a) => {
    for (const { how, pieces } of splits(bytes(c.response), c.step)) {
      const error = a.throws(() => read(pieces), { instanceOf: ResponseError, message: c.message }, how);
      if (error) a.is((error as ResponseError).code, 'EBADRESPONSE');
    }
  });
}

test('ResponseReader: a head of exactly 16 KiB is read, one byte more is refused, however the bytes are split', (a) => {
  const make = (size: number): string => {
    const start = 'HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX-Pad: ';
    const end = '\r\n\r\n';
    return start + 'p'.repeat(size - start.length - end.length) + end;
  };
  const fits = make(maxHeadBytes);
  a.is(fits.length, maxHeadBytes);
  for (const { how, pieces } of splits(bytes(fits), 61)) a.like(read(pieces), { state: 'done', status: 200 }, how);
  for (const { how, pieces } of splits(bytes(make(maxHeadBytes + 1)), 61)) a.throws(() => read(pieces), { instanceOf: ResponseError }, how);
});

// ---------------------------------------------------------------------------------------------
// Servers
// ---------------------------------------------------------------------------------------------

interface RawRequest {
  /** Request line and header lines, without the blank line. */
  head: string;
  body: Buffer;
  /** Every byte of the request as it arrived. */
  raw: Buffer;
  /** Which connection (0-based, in accept order) carried it. */
  connection: number;
}

interface Counted {
  port: number;
  url: (path?: string) => string;
  /** Connections accepted. */
  connections: number;
  /** Open now, and at most at once. */
  open: number;
  maxOpen: number;
  /** Connections closed (seen from the server's side). */
  closed: number;
  close(): Promise<void>;
}

interface RawServer extends Counted {
  requests: RawRequest[];
}

const servers: Counted[] = [];
const senders: WebhookSender[] = [];
const pools: Http1Pool[] = [];

test.after.always(async () => {
  for (const s of senders) s.close();
  for (const p of pools) p.destroy(new Error('test over'));
  await Promise.all(servers.map((s) => s.close()));
});

/** Counts connections of `server` (raw TCP ones for http/https) and closes them all on close(). */
async function listen(server: net.Server): Promise<Counted> {
  const sockets = new Set<net.Socket>();
  const counted: Counted = {
    port: 0,
    url: (p = '/hooks') => `http://127.0.0.1:${counted.port}${p}`,
    connections: 0,
    open: 0,
    maxOpen: 0,
    closed: 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    counted.connections++;
    counted.open++;
    counted.maxOpen = Math.max(counted.maxOpen, counted.open);
    socket.on('error', () => {});
    socket.on('close', () => {
      sockets.delete(socket);
      counted.open--;
      counted.closed++;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  counted.port = (server.address() as AddressInfo).port;
  servers.push(counted);
  return counted;
}

/**
 * A server that writes exact bytes: `onRequest` gets every complete request (head and a body of
 * its Content-Length) with the socket, and answers (or not) as it likes.
 */
async function rawServer(onRequest: (request: RawRequest, socket: net.Socket, server: RawServer) => void): Promise<RawServer> {
  let accepted = 0;
  const server = net.createServer({ noDelay: true }, (socket) => {
    const connection = accepted++;
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffered.toString('latin1', 0, end);
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        const raw = buffered.subarray(0, end + 4 + length);
        buffered = buffered.subarray(raw.length);
        const request: RawRequest = { head, body: raw.subarray(end + 4), raw, connection };
        srv.requests.push(request);
        onRequest(request, socket, srv);
      }
    });
  });
  const srv: RawServer = Object.assign(await listen(server), { requests: [] as RawRequest[] });
  return srv;
}

interface HttpServer extends Counted {
  requests: Array<{ url: string; headers: http.IncomingHttpHeaders; body: string }>;
}

/** A node:http receiver; `answer` writes the response (default: 200 "ok"). */
async function httpServer(
  answer: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void = (_q, res) => res.end('ok'),
): Promise<HttpServer> {
  const requests: HttpServer['requests'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ url: req.url ?? '', headers: req.headers, body });
      answer(req, res, body);
    });
  });
  return Object.assign(await listen(server), { requests });
}

const loopback = (): OutboundPolicy => new OutboundPolicy(['127.0.0.1', 'localhost']);

function sender(policy: OutboundPolicy = loopback(), maxSockets?: number): WebhookSender {
  const s = maxSockets === undefined ? new WebhookSender(policy) : new WebhookSender(policy, maxSockets);
  senders.push(s);
  return s;
}

/** The sender's pool, for its connection counts. */
const poolOf = (s: WebhookSender): Http1Pool => (s as unknown as { pool: Http1Pool }).pool;

function post(s: WebhookSender, url: string, extra: { body?: string; headers?: string[]; timeoutMs?: number } = {}): Promise<SendOutcome> {
  return s.send({
    url,
    body: extra.body ?? '{"id":"evt_1"}',
    headers: extra.headers ?? ['Content-Type', 'application/json'],
    timeoutMs: extra.timeoutMs ?? 5000,
  });
}

const answer = (socket: net.Socket, text: string | Buffer): void => void socket.write(typeof text === 'string' ? bytes(text) : text);

// ---------------------------------------------------------------------------------------------
// WebhookSender over real sockets
// ---------------------------------------------------------------------------------------------

test('a 200 with a body: ok, status, excerpt and a latency', async (a) => {
  const server = await httpServer((_q, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{"received":true,"note":"merci ✓"}');
  });
  const outcome = await post(sender(), server.url());
  a.deepEqual(
    { ...outcome, latencyMs: 0 },
    { ok: true, status: 200, latencyMs: 0, excerpt: '{"received":true,"note":"merci ✓"}', error: null, interrupted: false },
  );
  a.true(outcome.latencyMs > 0);
  a.is(server.requests.length, 1);
  a.is(server.requests[0]!.body, '{"id":"evt_1"}');
});

test('an empty 2xx body gives a null excerpt; the excerpt is the first 1 KiB, without a cut UTF-8 sequence', async (a) => {
  const long = `${'a'.repeat(1023)}é and more`; // é (2 bytes) straddles byte 1024
  const server = await httpServer((req, res) => {
    if (req.url === '/empty') return void res.writeHead(204).end();
    res.end(long);
  });
  const s = sender();
  a.like(await post(s, server.url('/empty')), { ok: true, status: 204, excerpt: null });
  const outcome = await post(s, server.url('/long'));
  a.is(outcome.excerpt, 'a'.repeat(1023));
});

test('a 500 is not ok: error "HTTP 500", the body as excerpt', async (a) => {
  const server = await httpServer((_q, res) => {
    res.writeHead(500);
    res.end('database on fire');
  });
  a.deepEqual(
    { ...(await post(sender(), server.url())), latencyMs: 0 },
    {
      ok: false,
      status: 500,
      latencyMs: 0,
      excerpt: 'database on fire',
      error: 'HTTP 500',
      interrupted: false,
    },
  );
});

test('a 302 is not followed: error names the Location', async (a) => {
  const server = await httpServer((req, res) => {
    res.writeHead(302, { Location: `http://127.0.0.1:${server.port}/elsewhere` });
    res.end();
  });
  const outcome = await post(sender(), server.url());
  a.like(outcome, { ok: false, status: 302, error: `redirect not followed (HTTP 302 to http://127.0.0.1:${server.port}/elsewhere)` });
  a.deepEqual(
    server.requests.map((r) => r.url),
    ['/hooks'],
  );
  const bare = await httpServer((_q, res) => void res.writeHead(307).end());
  a.like(await post(sender(), bare.url()), { ok: false, status: 307, error: 'redirect not followed (HTTP 307)' });
});

test('the exact bytes on the wire: a well-formed POST with Host, the headers in order and a UTF-8 Content-Length', async (a) => {
  const server = await rawServer((_r, socket) => answer(socket, 'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'));
  const body = '{"pet":"Müsli 🐶","note":"café — ünïcödé"}';
  const headers = [
    'Content-Type',
    'application/json',
    'User-Agent',
    'PetCare-Webhooks/1.0',
    'webhook-id',
    'evt_123',
    'X-Spaced',
    'a  b\tc',
    'Webhook-Signature',
    'v1,abc=',
  ];
  const outcome = await post(sender(), `http://127.0.0.1:${server.port}/hooks/in?x=1&y=é`, { body, headers });
  a.true(outcome.ok, outcome.error ?? '');
  a.is(server.requests.length, 1);
  const expected =
    `POST /hooks/in?x=1&y=%C3%A9 HTTP/1.1\r\n` +
    `Host: 127.0.0.1:${server.port}\r\n` +
    'Content-Type: application/json\r\nUser-Agent: PetCare-Webhooks/1.0\r\nwebhook-id: evt_123\r\nX-Spaced: a  b\tc\r\nWebhook-Signature: v1,abc=\r\n' +
    `Content-Length: ${Buffer.byteLength(body, 'utf8')}\r\n\r\n`;
  a.not(Buffer.byteLength(body, 'utf8'), body.length, 'the body has multi-byte characters');
  a.deepEqual(server.requests[0]!.raw, Buffer.concat([Buffer.from(expected, 'latin1'), Buffer.from(body, 'utf8')]));
  // And node:http reads the same request as we meant it.
  const parsed = await httpServer();
  a.true((await post(sender(), parsed.url('/p?q=1'), { body, headers })).ok);
  a.like(parsed.requests[0]!, { url: '/p?q=1', body });
  a.is(parsed.requests[0]!.headers['content-length'], String(Buffer.byteLength(body, 'utf8')));
  a.is(parsed.requests[0]!.headers.host, `127.0.0.1:${parsed.port}`);
});

test('sequential sends reuse one keep-alive connection', async (a) => {
  const server = await httpServer();
  const s = sender();
  for (let i = 0; i < 10; i++) a.true((await post(s, server.url(), { body: `{"n":${i}}` })).ok);
  a.is(server.connections, 1);
  a.is(server.requests.length, 10);
  a.deepEqual(poolOf(s).stats(), [{ origin: `p|127.0.0.1|${server.port}`, open: 1, idle: 1 }]);
});

test('Connection: close (and an HTTP/1.0 answer) make the next send open a new connection', async (a) => {
  const server = await rawServer((_r, socket, srv) => {
    const n = srv.requests.length - 1;
    if (n === 0)
      answer(socket, 'HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok'); // and the server does not close
    else if (n === 2) answer(socket, 'HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok');
    else answer(socket, 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
  });
  const s = sender();
  for (let i = 0; i < 4; i++) a.true((await post(s, server.url())).ok, `send ${i}`);
  a.deepEqual(
    server.requests.map((r) => r.connection),
    [0, 1, 1, 2],
  );
  // The client dropped the connections it could not reuse.
  await eventually(() => server.closed === 2, { what: () => `2 closed connections (${server.closed})` });
});

test('bytes after the end of a response: the connection is not reused', async (a) => {
  const server = await rawServer((_r, socket, srv) => {
    answer(
      socket,
      srv.requests.length === 1 ? 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n\r\n' : 'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n',
    );
  });
  const s = sender();
  a.like(await post(s, server.url()), { ok: true, excerpt: 'ok' });
  a.true((await post(s, server.url())).ok);
  a.deepEqual(
    server.requests.map((r) => r.connection),
    [0, 1],
  );
});

test('a receiver that closes an idle keep-alive connection between sends: the next send still succeeds', async (a) => {
  const sockets: net.Socket[] = [];
  const server = await rawServer((_r, socket) => {
    sockets.push(socket);
    answer(socket, 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
  });
  const s = sender();
  a.true((await post(s, server.url())).ok);
  // The receiver closes the idle connection (FIN). Its side closes once ours answered the FIN with
  // our own, so by then the pool has seen the close.
  sockets[0]!.end();
  await eventually(() => server.closed === 1, { what: 'the first connection closed' });
  const second = await post(s, server.url());
  a.true(second.ok, `after a FIN: ${second.error}`);
  // Now a reset (RST) of the idle connection.
  sockets[1]!.resetAndDestroy();
  await eventually(() => poolOf(s).stats()[0]?.open === 0, { what: () => `the reset seen by the pool: ${JSON.stringify(poolOf(s).stats())}` });
  const third = await post(s, server.url());
  a.true(third.ok, `after a RST: ${third.error}`);
  a.deepEqual(
    server.requests.map((r) => r.connection),
    [0, 1, 2],
  );
});

test.serial('a receiver that never answers: timeout within about timeoutMs, and the connection is dropped', async (a) => {
  const server = await rawServer(() => {});
  const s = sender();
  const outcome = await post(s, server.url(), { timeoutMs: 200 });
  a.like(outcome, { ok: false, status: null, excerpt: null, interrupted: false, error: 'timeout: no complete answer within 200 ms' });
  // Not before the deadline (a lower bound: load can only make it later; how much later is a benchmark's business).
  a.true(outcome.latencyMs >= 195, `latency ${outcome.latencyMs}`);
  await eventually(() => server.closed === 1, { what: 'the timed-out connection closed' });
  a.deepEqual(poolOf(s).stats(), [{ origin: `p|127.0.0.1|${server.port}`, open: 0, idle: 0 }]);
});

test.serial('a receiver that answers the head and stalls in the body: timeout too', async (a) => {
  const server = await rawServer((_r, socket) => answer(socket, 'HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc'));
  const outcome = await post(sender(), server.url(), { timeoutMs: 200 });
  a.like(outcome, { ok: false, status: null, error: 'timeout: no complete answer within 200 ms' });
});

test.serial('deadlines of different lengths: the shorter one fires first', async (a) => {
  const server = await rawServer(() => {});
  const s = sender();
  const order: string[] = [];
  const long = post(s, server.url(), { timeoutMs: 600 }).then((o) => (order.push('long'), o));
  const short = post(s, server.url(), { timeoutMs: 150 }).then((o) => (order.push('short'), o));
  const shortOutcome = await short;
  a.deepEqual(order, ['short'], 'the short deadline was not held back by the long one');
  a.regex(shortOutcome.error ?? '', /^timeout: no complete answer within 150 ms/);
  a.regex((await long).error ?? '', /^timeout: no complete answer within 600 ms/);
  a.deepEqual(order, ['short', 'long']);
});

test('a receiver that closes mid-body: not ok, an error, no hang', async (a) => {
  const server = await rawServer((_r, socket, srv) => {
    const n = srv.requests.length;
    if (n === 1) socket.end(bytes('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly part of it'));
    else if (n === 2) socket.end(bytes('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nsixteen bytes!!!\r\n5\r\nab'));
    else if (n === 3) socket.end(bytes('HTTP/1.1 200 OK\r\nContent-Le'));
    else {
      socket.write(bytes('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npart'), () => socket.resetAndDestroy());
    }
  });
  const s = sender();
  for (const what of ['Content-Length body', 'chunked body', 'head', 'reset']) {
    const outcome = await post(s, server.url(), { timeoutMs: 5000 });
    a.like(outcome, { ok: false, status: null, interrupted: false }, what);
    a.regex(outcome.error ?? '', /ECONNRESET|socket hang up/, what); // the close, not the 5 s timeout
  }
});

test('a close-delimited body: complete at the close, the connection not reused', async (a) => {
  const server = await rawServer((_r, socket) => socket.end(bytes('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nthe body runs to the close')));
  const s = sender();
  a.like(await post(s, server.url()), { ok: true, status: 200, excerpt: 'the body runs to the close' });
  a.like(await post(s, server.url()), { ok: true, status: 200 });
  a.is(server.connections, 2);
});

test('requests queued for a connection are served in order, whatever the framing of the answers', async (a) => {
  for (const framing of ['length', 'close'] as const) {
    const server = await rawServer((r, socket) => {
      const body = `#${/\r\nx-seq: (\d+)/i.exec(r.head)![1]}`;
      if (framing === 'length') answer(socket, `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      else socket.end(bytes(`HTTP/1.1 200 OK\r\n\r\n${body}`));
    });
    const s = sender(loopback(), 1);
    const outcomes = await Promise.all(Array.from({ length: 8 }, (_, i) => post(s, server.url(), { headers: ['X-Seq', String(i)] })));
    a.deepEqual(
      outcomes.map((o) => o.excerpt),
      Array.from({ length: 8 }, (_, i) => `#${i}`),
      framing,
    );
    a.deepEqual(
      server.requests.map((r) => Number(/\r\nx-seq: (\d+)/i.exec(r.head)![1])),
      [0, 1, 2, 3, 4, 5, 6, 7],
      `${framing}: arrival order`,
    );
    // (With close framing the server may see the next connection before the close of the last one.)
    if (framing === 'length') a.is(server.connections, 1, 'one connection carried them all');
  }
});

test('a chunked answer split across TCP writes with pauses', async (a) => {
  const pieces = [
    'HTTP/1.1 200 OK\r\nTransfer-',
    'Encoding: chunked\r\nX-Slow: yes\r\n\r',
    '\n4\r\nWiki\r',
    '\n5;ext="1"\r\npedia\r\n',
    'E\r\n in\r\n\r\nchunks.\r\n0',
    '\r\nTrailer: x\r\n',
    '\r\n',
  ];
  const server = await rawServer((_r, socket) => {
    let i = 0;
    const next = (): void => {
      if (i === pieces.length) return;
      answer(socket, pieces[i++]!);
      setTimeout(next, 15);
    };
    next();
  });
  const s = sender();
  a.like(await post(s, server.url()), { ok: true, status: 200, excerpt: 'Wikipedia in\r\n\r\nchunks.' });
  a.like(await post(s, server.url()), { ok: true, status: 200, excerpt: 'Wikipedia in\r\n\r\nchunks.' });
  a.is(server.connections, 1, 'a chunked answer leaves the connection reusable');
});

test('an answer over 64 KiB: the outcome arrives with its status, the connection is dropped', async (a) => {
  const big = 100 * 1024;
  const server = await rawServer((r, socket) => {
    const path = r.head.split(' ')[1];
    if (path === '/exact')
      return answer(socket, Buffer.concat([bytes(`HTTP/1.1 200 OK\r\nContent-Length: ${maxResponseBytes}\r\n\r\n`), Buffer.alloc(maxResponseBytes, 'e')]));
    if (path === '/chunked') {
      answer(socket, 'HTTP/1.1 503 Service Unavailable\r\nTransfer-Encoding: chunked\r\n\r\n');
      for (let i = 0; i < 20; i++) answer(socket, Buffer.concat([bytes('1000\r\n'), Buffer.alloc(0x1000, 'c'), bytes('\r\n')]));
      return;
    }
    answer(socket, Buffer.concat([bytes(`HTTP/1.1 200 OK\r\nContent-Length: ${big}\r\n\r\n`), Buffer.alloc(big, 'b')]));
  });
  const s = sender();
  a.like(await post(s, server.url('/big')), { ok: true, status: 200, excerpt: 'b'.repeat(1024) });
  await eventually(() => server.closed === 1, { what: 'the oversized connection closed' });
  a.like(await post(s, server.url('/exact')), { ok: true, status: 200, excerpt: 'e'.repeat(1024) });
  a.like(await post(s, server.url('/chunked')), { ok: false, status: 503, error: 'HTTP 503', excerpt: 'c'.repeat(1024) });
  a.deepEqual(
    server.requests.map((r) => r.connection),
    [0, 1, 1],
    'a body of exactly 64 KiB keeps its connection; one over it does not',
  );
  await eventually(() => server.closed === 2, { what: 'the oversized chunked connection closed' });
});

test.serial('100 sends at once with maxSockets 4: all succeed, never more than 4 connections', async (a) => {
  const server = await httpServer((_q, res, body) => {
    setTimeout(() => res.end(`echo ${body}`), 2);
  });
  const s = sender(loopback(), 4);
  const outcomes = await Promise.all(Array.from({ length: 100 }, (_, i) => post(s, server.url(), { body: String(i) })));
  a.deepEqual(
    outcomes.map((o) => [o.ok, o.excerpt]),
    Array.from({ length: 100 }, (_, i) => [true, `echo ${i}`]),
  );
  a.is(server.requests.length, 100);
  a.true(server.maxOpen <= 4, `at most 4 at once, saw ${server.maxOpen}`);
  a.true(server.connections <= 4, `${server.connections} connections`);
  a.deepEqual(poolOf(s).stats(), [{ origin: `p|127.0.0.1|${server.port}`, open: server.connections, idle: server.connections }]);
});

test('abortAll() while a request hangs: interrupted, the queued one too', async (a) => {
  const server = await rawServer(() => {});
  const s = sender(loopback(), 1);
  const first = post(s, server.url(), { timeoutMs: 30_000 });
  const queued = post(s, server.url(), { timeoutMs: 30_000 });
  await eventually(() => server.requests.length === 1, { what: 'the first request at the server' });
  s.abortAll();
  for (const outcome of await Promise.all([first, queued])) {
    a.like(outcome, { ok: false, status: null, interrupted: true, error: 'interrupted: the service stopped during the attempt' });
  }
  await eventually(() => server.closed === 1, { what: 'the cut connection closed' });
  a.is(server.requests.length, 1, 'the queued request was never written');
  a.is(server.connections, 1);
});

test('close() while a request hangs: interrupted', async (a) => {
  const server = await rawServer(() => {});
  const s = sender();
  const pending = post(s, server.url(), { timeoutMs: 30_000 });
  await eventually(() => server.requests.length === 1, { what: 'the request at the server' });
  s.close();
  a.like(await pending, { ok: false, interrupted: true });
  await eventually(() => server.closed === 1, { what: 'the connection closed' });
});

test('connection refused: not ok, ECONNREFUSED', async (a) => {
  const port = await freePort();
  const outcome = await post(sender(), `http://127.0.0.1:${port}/hooks`);
  a.like(outcome, { ok: false, status: null, interrupted: false });
  a.regex(outcome.error ?? '', /ECONNREFUSED/);
});

test('a name whose every address refuses: the error names each address tried', async (a) => {
  const port = await freePort();
  const resolve = async (): Promise<LookupAddress[]> => [
    { address: '127.0.0.2', family: 4 },
    { address: '127.0.0.3', family: 4 },
  ];
  const outcome = await post(sender(new OutboundPolicy(['127.0.0.0/8', 'multi.test'], { resolve })), `http://multi.test:${port}/hooks`);
  a.like(outcome, { ok: false, status: null, interrupted: false });
  a.regex(outcome.error ?? '', new RegExp(`ECONNREFUSED 127\\.0\\.0\\.2:${port}.*ECONNREFUSED 127\\.0\\.0\\.3:${port}`));
});

test('a header value or name with a line break: not ok, nothing sent', async (a) => {
  const server = await rawServer((_r, socket) => answer(socket, 'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'));
  const s = sender();
  for (const headers of [
    ['X-Evil', 'a\r\nX-Injected: 1'],
    ['X-Evil', 'a\nb'],
    ['X-Evil', 'nul\0'],
    ['X-Evil\r\nX-Injected', '1'],
  ]) {
    const outcome = await post(s, server.url(), { headers });
    a.like(outcome, { ok: false, status: null, interrupted: false });
    a.regex(outcome.error ?? '', /control character/);
  }
  a.deepEqual(poolOf(s).stats(), [], 'no connection was ever opened');
  a.true((await post(s, server.url(), { headers: ['X-Fine', 'tab\tis fine'] })).ok);
  a.is(server.connections, 1);
  a.is(server.requests.length, 1);
  a.false(server.requests[0]!.raw.includes('X-Injected'));
});

test('an IP literal the policy refuses: refused before any connection', async (a) => {
  const server = await rawServer((_r, socket) => answer(socket, 'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'));
  const s = sender(new OutboundPolicy([]));
  for (let i = 0; i < 2; i++) {
    const outcome = await post(s, server.url());
    a.like(outcome, { ok: false, status: null, interrupted: false, error: 'refused by the outbound policy: 127.0.0.1 is a loopback address' });
  }
  a.deepEqual(poolOf(s).stats(), [], 'no connection was ever opened');
  a.like(await post(s, 'not a url'), { ok: false, error: 'invalid URL' });
  // The server is reachable: an allowed sender's request is the first connection it sees.
  a.true((await post(sender(), server.url())).ok);
  a.is(server.connections, 1);
});

/** A Resolve that records the names asked and answers like the system resolver. */
function recordingResolve(asked: string[]) {
  return (hostname: string, family: 0 | 4 | 6) =>
    new Promise<LookupAddress[]>((resolve, reject) => {
      asked.push(hostname);
      dnsLookup(hostname, { all: true, family }, (err, addresses) => (err ? reject(err) : resolve(addresses)));
    });
}

test('a name URL connects through the policy lookup; a name it refuses never connects', async (a) => {
  const server = await httpServer();
  const asked: string[] = [];
  const s = sender(new OutboundPolicy(['localhost'], { resolve: recordingResolve(asked) }));
  const outcome = await post(s, `http://localhost:${server.port}/hooks`);
  a.true(outcome.ok, outcome.error ?? '');
  a.is(server.requests[0]!.headers.host, `localhost:${server.port}`);
  a.true((await post(s, `http://localhost:${server.port}/hooks`)).ok);
  a.deepEqual(asked, ['localhost'], 'one lookup, for the one connection');
  a.is(server.connections, 1);

  const strictAsked: string[] = [];
  const strict = sender(new OutboundPolicy([], { resolve: recordingResolve(strictAsked) }));
  const refused = await post(strict, `http://localhost:${server.port}/hooks`);
  a.like(refused, { ok: false, status: null, interrupted: false });
  a.regex(refused.error ?? '', /^refused by the outbound policy: localhost resolves to 127\.0\.0\.1 is a loopback address/);
  a.deepEqual(strictAsked, ['localhost']);
  a.is(server.connections, 1, 'the refused name never connected');
});

test('an IPv6 literal URL: connected as it is, Host in brackets', async (a) => {
  const server = http.createServer((req, res) => res.end(req.headers.host));
  const listening = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(0, '::1', () => resolve(true));
  });
  if (!listening) {
    a.log('SKIPPED: no IPv6 loopback (::1) on this machine');
    return a.pass();
  }
  try {
    const port = (server.address() as AddressInfo).port;
    const outcome = await post(sender(new OutboundPolicy(['::1'])), `http://[::1]:${port}/hooks`);
    a.like(outcome, { ok: true, status: 200, excerpt: `[::1]:${port}` });
    a.like(await post(sender(new OutboundPolicy([])), `http://[::1]:${port}/hooks`), {
      ok: false,
      error: 'refused by the outbound policy: ::1 is a loopback address',
    });
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

test('a malformed answer over the wire: not ok, EBADRESPONSE, the connection dropped; interim 1xx and bare-LF answers are read', async (a) => {
  const server = await rawServer((r, socket) => {
    const path = r.head.split(' ')[1];
    if (path === '/garbage') answer(socket, 'SMTP ready\r\n\r\n');
    else if (path === '/101') answer(socket, 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n');
    else if (path === '/lf') answer(socket, 'HTTP/1.1 200 OK\nContent-Type: text/plain\nContent-Length: 7\n\nbare LF');
    else answer(socket, 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfinal');
  });
  const s = sender();
  const garbage = await post(s, server.url('/garbage'));
  a.like(garbage, { ok: false, status: null });
  a.regex(garbage.error ?? '', /^EBADRESPONSE: not an HTTP\/1\.x response/);
  const upgrade = await post(s, server.url('/101'));
  a.regex(upgrade.error ?? '', /^EBADRESPONSE: the receiver switched protocols \(101\)/);
  a.like(await post(s, server.url('/interim')), { ok: true, status: 200, excerpt: 'final' });
  a.like(await post(s, server.url('/lf')), { ok: true, status: 200, excerpt: 'bare LF' }, 'an answer with bare LF line ends');
  a.deepEqual(
    server.requests.map((r) => r.connection),
    [0, 1, 2, 2],
  );
});

// ---------------------------------------------------------------------------------------------
// Http1Pool on its own: the idle sweeper, a queued exchange cut, destroy().
// ---------------------------------------------------------------------------------------------

function exchange(request: string): { exchange: Exchange; settled: Promise<{ err: Error | null; answer: Answer | null; reused: boolean }> } {
  let done!: (v: { err: Error | null; answer: Answer | null; reused: boolean }) => void;
  const settled = new Promise<{ err: Error | null; answer: Answer | null; reused: boolean }>((resolve) => (done = resolve));
  return { exchange: new Exchange(request, (err, answer, reused) => done({ err, answer, reused })), settled };
}

const get = (port: number): string => `GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`;

function pool(idleMs: number, maxSockets = 2, now?: () => number): Http1Pool {
  const p = new Http1Pool({ maxSockets, idleMs, keep: 64, limit: 1024, lookup: dnsLookup as unknown as net.LookupFunction, ...(now ? { now } : {}) });
  pools.push(p);
  return p;
}

test('Http1Pool: reused flag, and idle connections closed by the sweeper after idleMs', async (a) => {
  const server = await rawServer((_r, socket) => answer(socket, 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'));
  const p = pool(100);
  const origin = { secure: false, hostname: '127.0.0.1', port: server.port };
  const first = exchange(get(server.port));
  p.send(origin, first.exchange);
  const one = await first.settled;
  a.is(one.err, null);
  a.is(one.answer?.head.status, 200);
  a.is(one.answer?.excerpt.toString(), 'ok');
  a.false(one.reused);
  const second = exchange(get(server.port));
  p.send(origin, second.exchange);
  a.true((await second.settled).reused);
  a.deepEqual(p.stats(), [{ origin: `p|127.0.0.1|${server.port}`, open: 1, idle: 1 }]);
  await eventually(() => server.closed === 1, { what: 'the idle connection swept' });
  await eventually(() => p.stats().length === 0, { what: () => `the origin forgotten: ${JSON.stringify(p.stats())}` });
  a.is(server.connections, 1);
});

test('Http1Pool: a connection idle longer than idleMs is not reused, even before the sweeper runs', async (a) => {
  const server = await rawServer((_r, socket) => answer(socket, 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'));
  // The pool's clock is moved by hand: the sweeper (every second) sees nothing idle past idleMs
  // until the clock jumps, and the jump and the send run in one turn, so the sweeper cannot come between.
  let now = 1_000;
  const p = pool(60_000, 2, () => now);
  const origin = { secure: false, hostname: '127.0.0.1', port: server.port };
  const first = exchange(get(server.port));
  p.send(origin, first.exchange);
  a.is((await first.settled).err, null);
  a.deepEqual(p.stats(), [{ origin: `p|127.0.0.1|${server.port}`, open: 1, idle: 1 }]);
  now += 60_001; // idle past idleMs
  const second = exchange(get(server.port));
  p.send(origin, second.exchange);
  const two = await second.settled;
  a.is(two.err, null);
  a.false(two.reused, 'a stale connection would race the server closing it');
  a.deepEqual(
    server.requests.map((r) => r.connection),
    [0, 1],
  );
});

test('Http1Pool: a queued exchange that is aborted is skipped; destroy() cuts the rest', async (a) => {
  const server = await rawServer(() => {}); // never answers
  const p = pool(4000, 1);
  const origin = { secure: false, hostname: '127.0.0.1', port: server.port };
  const [one, two, three] = [exchange(get(server.port)), exchange(get(server.port)), exchange(get(server.port))];
  p.send(origin, one.exchange);
  p.send(origin, two.exchange);
  p.send(origin, three.exchange);
  await eventually(() => server.requests.length === 1, { what: 'the first request at the server' });
  two.exchange.abort(new Error('cut while queued'));
  a.is((await two.settled).err?.message, 'cut while queued');
  one.exchange.abort(new Error('cut on the wire'));
  a.is((await one.settled).err?.message, 'cut on the wire');
  // The connection is gone: the third (not the aborted second) gets a new one.
  await eventually(() => server.requests.length === 2, { what: 'the third request at the server' });
  a.is(server.connections, 2);
  p.destroy(new Error('pool destroyed'));
  a.is((await three.settled).err?.message, 'pool destroyed');
  await eventually(() => server.closed === 2, { what: 'both connections closed' });
  a.deepEqual(p.stats(), []);
});

// ---------------------------------------------------------------------------------------------
// https with a certificate nobody trusts
// ---------------------------------------------------------------------------------------------

const hasOpenssl = spawnSync('sh', ['-c', 'command -v openssl'], { encoding: 'utf8' }).status === 0;

(hasOpenssl ? test : test.skip)(
  `https to a self-signed receiver: a certificate error, the request handler never runs${hasOpenssl ? '' : ' (SKIPPED: openssl is not installed)'}`,
  async (a) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'http1-client-'));
    try {
      await promisify(execFile)('openssl', [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
      ]);
      let handled = 0;
      const server = https.createServer({ key: await readFile(path.join(dir, 'key.pem')), cert: await readFile(path.join(dir, 'cert.pem')) }, (_q, res) => {
        handled++;
        res.end('should not be reached');
      });
      const counted = await listen(server);
      const s = sender();
      for (const url of [`https://127.0.0.1:${counted.port}/hooks`, `https://localhost:${counted.port}/hooks`]) {
        const outcome = await post(s, url);
        a.like(outcome, { ok: false, status: null, interrupted: false }, url);
        a.regex(outcome.error ?? '', /self[- ]signed certificate/, url);
      }
      a.is(counted.connections, 2, 'both handshakes reached the server');
      await eventually(() => counted.open === 0, { what: 'the refused connections closed' });
      a.is(handled, 0, 'no request was ever handled');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
);
