import type { Config } from '../../config.js';

/** The model server could not answer in time or at all: the caller falls back (extractive, lexical). */
export class LlmUnavailable extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'LlmUnavailable';
  }
}

export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

/**
 * The most of an answer read from the model server. An embeddings answer of 32 chunks (the indexing
 * batch) at 4,096 dimensions is ~3 MB of JSON; chat answers are far smaller. Past this the answer is
 * not read further: a server streaming without end cannot fill the API's memory.
 */
export const maxLlmResponseBytes = 8 * 1024 * 1024;

/**
 * An OpenAI-compatible client (Ollama, llama.cpp server, vLLM): the base URL includes /v1 and the
 * client appends /chat/completions and /embeddings. Every call has a deadline, follows no redirect
 * (a 3xx would re-send the prompt, documents included, wherever it points) and reads at most
 * `maxResponseBytes` of the answer; any failure is an LlmUnavailable, never an error the caller
 * has to tell apart.
 */
export class LlmClient {
  constructor(
    private readonly config: Pick<Config, 'llmBaseUrl' | 'llmModel' | 'embeddingsModel' | 'llmTimeoutMs'>,
    private readonly maxResponseBytes = maxLlmResponseBytes,
  ) {}

  get chatModel(): string | null {
    return this.config.llmBaseUrl && this.config.llmModel ? this.config.llmModel : null;
  }

  get embeddingModel(): string | null {
    return this.config.llmBaseUrl && this.config.embeddingsModel ? this.config.embeddingsModel : null;
  }

  async chat(messages: ChatMessage[]): Promise<string> {
    const model = this.chatModel;
    if (!model) throw new LlmUnavailable('no chat model configured');
    const body = await this.post('/chat/completions', { model, messages, temperature: 0, stream: false });
    const content = (body as { choices?: Array<{ message?: { content?: unknown } }> }).choices?.[0]?.message?.content;
    if (typeof content !== 'string') throw new LlmUnavailable('the chat answer had no message content');
    return content;
  }

  /** One vector per input, in order. */
  async embed(inputs: string[]): Promise<Float32Array[]> {
    const model = this.embeddingModel;
    if (!model) throw new LlmUnavailable('no embedding model configured');
    const body = (await this.post('/embeddings', { model, input: inputs })) as { data?: Array<{ index?: number; embedding?: unknown }> };
    const data = body.data;
    if (!Array.isArray(data) || data.length !== inputs.length) throw new LlmUnavailable('the embeddings answer did not have one vector per input');
    const ordered = [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    return ordered.map((item) => {
      const vector = item.embedding;
      if (!Array.isArray(vector) || vector.length === 0 || !vector.every((v) => typeof v === 'number' && Number.isFinite(v))) {
        throw new LlmUnavailable('an embedding was not a list of numbers');
      }
      return Float32Array.from(vector as number[]);
    });
  }

  private async post(path: string, payload: unknown): Promise<unknown> {
    const timeout = `the model server did not answer within ${this.config.llmTimeoutMs} ms`;
    let res: Response;
    try {
      res = await fetch(`${this.config.llmBaseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(this.config.llmTimeoutMs),
        redirect: 'manual',
      });
    } catch (err) {
      throw new LlmUnavailable(isAbort(err) ? timeout : 'the model server could not be reached');
    }
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel().catch(() => undefined);
      const location = res.headers.get('location');
      throw new LlmUnavailable(
        `the model server answered a redirect (HTTP ${res.status}${location ? ` to ${location.slice(0, 200)}` : ''}), which is not followed`,
      );
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      throw new LlmUnavailable(`the model server answered ${res.status}`);
    }
    let text: string;
    try {
      text = await readCapped(res, this.maxResponseBytes);
    } catch (err) {
      if (err instanceof LlmUnavailable) throw err;
      throw new LlmUnavailable(isAbort(err) ? timeout : 'the model server’s answer was cut off');
    }
    try {
      return JSON.parse(text);
    } catch {
      throw new LlmUnavailable('the model server answered with something other than JSON');
    }
  }
}

const isAbort = (err: unknown): boolean => err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');

/** The body as UTF-8 text, read only up to `max` bytes: a longer one (declared or streamed) is dropped unread. */
async function readCapped(res: Response, max: number): Promise<string> {
  const tooLarge = () => new LlmUnavailable(`the model server’s answer is larger than ${max} bytes; not read further`);
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > max) {
    await res.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    parts.push(value);
  }
  return Buffer.concat(parts, size).toString('utf8');
}
