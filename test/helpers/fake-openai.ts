import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatRequest {
  model: string;
  messages: Array<{ role: string; content: string }>;
}

export interface FakeOpenAi {
  /** Base URL including /v1, as PETCARE_LLM_BASE_URL takes it. */
  baseUrl: string;
  chats: ChatRequest[];
  embeddingInputs: string[][];
  /** What the chat endpoint answers (default: cites source [1]). */
  reply: (request: ChatRequest) => string;
  /** Answer every call with 503. */
  down: boolean;
  /** Wait this long before answering (a slow server). */
  delayMs: number;
  /** Length of the vectors the embeddings endpoint returns. */
  dimension: number;
  close(): Promise<void>;
}

/** A deterministic bag-of-words embedding: texts sharing words are near in cosine distance. */
export function fakeEmbedding(text: string, dimension: number): number[] {
  const vector = new Array<number>(dimension).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let h = 2166136261;
    for (const c of word) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
    vector[h % dimension]! += 1;
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((v) => v / norm);
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  for await (const chunk of req) parts.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(parts).toString('utf8'));
}

/** An OpenAI-compatible server on 127.0.0.1 (POST /v1/chat/completions and /v1/embeddings) that records what it was sent. */
export async function startFakeOpenAi(): Promise<FakeOpenAi> {
  const sockets = new Set<import('node:net').Socket>();
  const fake: FakeOpenAi = {
    baseUrl: '',
    chats: [],
    embeddingInputs: [],
    reply: () => 'The sources say so [1].',
    down: false,
    delayMs: 0,
    dimension: 64,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = (await readBody(req)) as Record<string, unknown>;
      if (fake.delayMs) await new Promise((resolve) => setTimeout(resolve, fake.delayMs).unref()); // never what keeps a test process alive
      if (fake.down) {
        res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"down"}');
        return;
      }
      if (req.url === '/v1/chat/completions') {
        const request = body as unknown as ChatRequest;
        fake.chats.push(request);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'chatcmpl-1',
            object: 'chat.completion',
            choices: [{ index: 0, message: { role: 'assistant', content: fake.reply(request) } }],
          }),
        );
        return;
      }
      if (req.url === '/v1/embeddings') {
        const input = (Array.isArray(body.input) ? body.input : [body.input]) as string[];
        fake.embeddingInputs.push(input);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            object: 'list',
            data: input.map((text, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(text, fake.dimension) })),
          }),
        );
        return;
      }
      res.writeHead(404).end();
    })().catch(() => res.writeHead(400).end());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return fake;
}
