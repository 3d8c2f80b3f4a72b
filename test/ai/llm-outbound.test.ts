import test from 'ava';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { maxLlmResponseBytes } from '../../src/modules/ai/llm-client.js';
import { eventually } from '../helpers/eventually.js';
import { createLocation } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { indexed, service } from './ai-support.js';

/**
 * Calls to the model server (PETCARE_LLM_BASE_URL) follow no redirect and read a bounded answer:
 * a 307 to another local server sends it nothing (the prompt and the documents in it stay put), and
 * an answer streaming without end is given up at the cap. Either way the API answers as it does for
 * an unreachable model: extractively, with `fallback` saying why.
 */

interface Recorder {
  url: string;
  requests: Array<{ method: string; path: string; body: string }>;
  close(): Promise<void>;
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void | Promise<void>): Promise<Recorder> {
  const sockets = new Set<Socket>();
  const recorder: Recorder = { url: '', requests: [], close: async () => undefined };
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const body = Buffer.concat(parts).toString('utf8');
      recorder.requests.push({ method: req.method ?? '', path: req.url ?? '', body });
      void handler(req, res, body);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  recorder.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  recorder.close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return recorder;
}

/** What the model server does with each call. */
type Mode = 'redirect' | 'stream-forever' | 'declare-huge';

const huge = 64 * 1024 * 1024;
let mode: Mode = 'redirect';
let elsewhere: Recorder;
let model: Recorder;
/** The last streamed answer: bytes written before the client went away, and whether it went away. */
const stream = { written: 0, cut: false };
let admin: string;
let svc: { id: string };

test.before(async () => {
  elsewhere = await listen(
    (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"choices":[{"message":{"content":"Elsewhere [1]."}}]}'),
  );
  model = await listen(async (req, res) => {
    if (mode === 'redirect') {
      res.writeHead(307, { location: `${elsewhere.url}${req.url}` }).end();
      return;
    }
    if (mode === 'declare-huge') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(huge) });
      res.write('{"choices":[');
      res.on('close', () => (stream.cut = !res.writableFinished));
      return;
    }
    // A chunked answer of 64 MB, written as fast as the client reads it.
    stream.written = 0;
    stream.cut = false;
    res.writeHead(200, { 'content-type': 'application/json' });
    let closed = false;
    let wake: () => void = () => undefined;
    res.on('close', () => {
      closed = true;
      stream.cut = !res.writableFinished;
      wake();
    });
    res.on('drain', () => wake());
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    res.write('{"choices":[{"message":{"content":"');
    while (!closed && stream.written < huge) {
      stream.written += chunk.length;
      if (!res.write(chunk)) await new Promise<void>((resolve) => (wake = resolve));
    }
    if (!closed) res.end('"}}]}');
  });
});
const t = useTestApp(test, () => ({ config: { llmBaseUrl: `${model.url}/v1`, llmModel: 'fake-chat', embeddingsModel: 'fake-embed', llmTimeoutMs: 10_000 } }));
test.before(async () => {
  admin = await t.adminToken();
  const location = await createLocation(t, { name: 'Downtown' });
  svc = await service(t, admin, { name: 'Protocols', locationIds: [location.id] });
});

test.after.always(async () => {
  await model?.close();
  await elsewhere?.close();
});

const ask = () =>
  t.request('POST', `/v1/ai/services/${svc.id}/query`, { token: admin, body: { question: 'How long are adult cats fasted before anaesthesia?' } });

test.serial('a 307 from the model server is not followed: the server it points to receives nothing; indexing and answers fall back', async (a) => {
  mode = 'redirect';
  // Indexing asks for embeddings: refused, the document is indexed without vectors and says why.
  const doc = await indexed(t, admin, svc.id, { body: { title: 'Fasting', text: 'Adult cats are fasted for six hours before anaesthesia.' } });
  a.regex(
    doc.error,
    /indexed without vectors: the model server answered a redirect \(HTTP 307 to http:\/\/127\.0\.0\.1:\d+\/v1\/embeddings\), which is not followed/,
  );

  const res = await ask();
  a.is(res.status, 200, res.text);
  a.like(res.body, { abstained: false, model: 'extractive', retrieval: 'lexical' });
  a.regex(res.body.answer, /six hours/);
  a.regex(res.body.fallback, /^model unavailable \(the model server answered a redirect \(HTTP 307 .*\/v1\/chat\/completions\), which is not followed\)/);
  a.true(
    model.requests.some((r) => r.path === '/v1/chat/completions' && r.body.includes('six hours')),
    'the prompt went to the configured server only',
  );
  a.true(model.requests.some((r) => r.path === '/v1/embeddings'));
  a.deepEqual(elsewhere.requests, [], 'nothing reached the server the redirect pointed to');
});

test.serial('an answer streaming without end is given up at the cap, and the query answers extractively with the reason', async (a) => {
  mode = 'stream-forever';
  const before = model.requests.length;
  const res = await ask();
  a.is(res.status, 200, res.text);
  a.like(res.body, { abstained: false, model: 'extractive' });
  a.regex(res.body.fallback, new RegExp(`larger than ${maxLlmResponseBytes} bytes; not read further`));
  a.true(model.requests.length > before);
  // The client dropped the connection: the model server's stream stopped far short of its 64 MB.
  await eventually(() => stream.cut, { what: 'the model server saw the client go away' });
  a.true(stream.written < huge / 2, `${stream.written} bytes written before the client went away`);
});

test.serial('an answer declaring more than the cap is not read at all', async (a) => {
  mode = 'declare-huge';
  stream.cut = false;
  const res = await ask();
  a.is(res.status, 200, res.text);
  a.like(res.body, { model: 'extractive' });
  a.regex(res.body.fallback, /larger than \d+ bytes; not read further/);
  await eventually(() => stream.cut, { what: 'the connection dropped' });
  a.deepEqual(elsewhere.requests, []);
});
