/**
 * `events.stream()`: the appliance's live event stream (GET /v1/events/stream, Server-Sent Events)
 * as an async iterable that reconnects with backoff and resumes from the last event it yielded
 * (`Last-Event-ID`), so a dropped connection, a restart of the appliance or a slow consumer loses
 * nothing and repeats nothing.
 */
import { PetCareError } from './errors.js';
import type { Transport } from './transport.js';

export interface EventStreamOptions {
  /** Event types to receive (canonical or alias; default every type the client's scopes show). */
  types?: readonly string[];
  /** Resume after this event id (default: from now). */
  since?: string;
  /** Stops the stream (the loop ends without an error). */
  signal?: AbortSignal;
}

/** One event as the stream sends it: the webhook envelope. */
export interface StreamedEvent {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
}

const sleep = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/** Reads SSE messages off a body: `{ id, event, data }` for each message with data. */
async function* messages(body: ReadableStream<Uint8Array>): AsyncGenerator<{ id: string | undefined; data: string }> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, '\n');
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let id: string | undefined;
      const data: string[] = [];
      for (const line of frame.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') id = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length) yield { id, data: data.join('\n') };
    }
  }
}

export function eventStream(transport: Transport, options: EventStreamOptions = {}): AsyncIterable<StreamedEvent> {
  return {
    async *[Symbol.asyncIterator]() {
      const { signal } = options;
      let lastId = options.since;
      let failures = 0;
      while (!signal?.aborted) {
        let res: Response | undefined;
        try {
          res = await transport.openStream(
            '/v1/events/stream',
            options.types?.length ? { types: options.types.join(',') } : undefined,
            lastId ? { 'last-event-id': lastId } : {},
            signal,
          );
          if (res.ok && res.body) {
            failures = 0;
            for await (const message of messages(res.body)) {
              const event = JSON.parse(message.data) as StreamedEvent;
              lastId = message.id ?? event.id;
              yield event;
            }
          } else if (res.status !== 429 && res.status < 500) {
            // 400 (an id the log no longer holds), 401, 403: reconnecting cannot help.
            throw await transport.failure(res);
          }
        } catch (error) {
          if (signal?.aborted) return;
          if (error instanceof PetCareError) throw error;
          // A network error or a cut stream: reconnect below.
        }
        if (signal?.aborted) return;
        await sleep(transport.reconnectDelay(failures++, res && !res.ok ? res : undefined), signal);
      }
    },
  };
}
