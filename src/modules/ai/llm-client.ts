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
 * An OpenAI-compatible client (Ollama, llama.cpp server, vLLM): the base URL includes /v1 and the
 * client appends /chat/completions and /embeddings. Every call has a deadline; any failure is an
 * LlmUnavailable, never an error the caller has to tell apart.
 */
export class LlmClient {
  constructor(private readonly config: Pick<Config, 'llmBaseUrl' | 'llmModel' | 'embeddingsModel' | 'llmTimeoutMs'>) {}

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
    let res: Response;
    try {
      res = await fetch(`${this.config.llmBaseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(this.config.llmTimeoutMs),
      });
    } catch (err) {
      const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
      throw new LlmUnavailable(timedOut ? `the model server did not answer within ${this.config.llmTimeoutMs} ms` : 'the model server could not be reached');
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      throw new LlmUnavailable(`the model server answered ${res.status}`);
    }
    try {
      return await res.json();
    } catch {
      throw new LlmUnavailable('the model server answered with something other than JSON');
    }
  }
}
