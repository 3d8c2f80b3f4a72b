/**
 * The client. Resources are data — `[method, path]` pairs, generated into `resources.ts` from the
 * modules' manifests and routes — turned into methods by one builder, so each method's ids, query,
 * body and answer types come from the generated OpenAPI types for that path and method:
 *
 * - `['post' | 'get' | 'patch' | 'put' | 'delete', path]`: `(...ids, body or query, options?)`
 * - `['action', path]`: a POST without a body: `(...ids, options?)`
 * - `['list', path]`: `(...ids, query?, options?)` → a PageIterable over every page
 */
import { PageIterable, type Page } from './pagination.js';
import { Transport, paramCount, type PetCareOptions } from './transport.js';
import type { Answer, Body, CallOptions, HttpMethod, IdArgs, ItemOf, Operation, OperationFn, PathsWith, QueryOf } from './types.js';
import type { paths } from './openapi-types.js';
import { eventStream, type EventStreamOptions, type StreamedEvent } from './event-stream.js';
import { resources } from './resources.js';
import { verifyWebhook } from './webhooks.js';

type Entry = readonly [HttpMethod | 'action' | 'list', keyof paths & string];
interface Table {
  readonly [name: string]: Entry | Table;
}

/** A list method: the ids, then the filters (the cursor is the iterator's business). */
export type ListFn<P extends PathsWith<'get'> & string> = (
  ...args: [...IdArgs<P>, query?: Omit<QueryOf<Operation<P, 'get'>>, 'cursor'>, options?: CallOptions]
) => PageIterable<ItemOf<Operation<P, 'get'>>>;

type Methods<T> = {
  readonly [K in keyof T]: T[K] extends readonly ['list', infer P extends PathsWith<'get'> & string]
    ? ListFn<P>
    : T[K] extends readonly ['action', infer P extends PathsWith<'post'> & string]
      ? OperationFn<P, 'post'>
      : T[K] extends readonly [infer M extends HttpMethod, infer P extends keyof paths & string]
        ? OperationFn<P, M>
        : Methods<T[K]>;
};

// The generated table has the shape the builder takes.
resources satisfies Table;

export type Resources = Methods<typeof resources>;

/** Turns one `[kind, path]` entry into its method. */
function method(transport: Transport, [kind, path]: Entry): (...args: unknown[]) => unknown {
  const n = paramCount(path);
  const split = (args: unknown[]) => ({ ids: args.slice(0, n) as string[], input: args[n], options: args[n + 1] as CallOptions | undefined });
  if (kind === 'list') {
    return (...args: unknown[]) => {
      const { ids, input, options } = split(args);
      const query = (input ?? {}) as Record<string, unknown>;
      return new PageIterable((cursor) => transport.request('get', path, { ids, query: { ...query, cursor } }, options) as Promise<Page<unknown>>);
    };
  }
  if (kind === 'action') {
    return (...args: unknown[]) => transport.request('post', path, { ids: args.slice(0, n) as string[] }, args[n] as CallOptions | undefined);
  }
  const inQuery = kind === 'get' || kind === 'delete';
  return (...args: unknown[]) => {
    const { ids, input, options } = split(args);
    return transport.request(kind, path, inQuery ? { ids, query: input as Record<string, unknown> | undefined } : { ids, body: input }, options);
  };
}

function build(transport: Transport, table: Table): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(table)) out[name] = isEntry(value) ? method(transport, value) : build(transport, value);
  return out;
}

const isEntry = (value: Entry | Table): value is Entry => Array.isArray(value);

/** A file for `ai.knowledge.upload`: its bytes (Blob, Buffer or Uint8Array), a name, and optionally a title and type. */
export interface KnowledgeFile {
  file: Blob | Uint8Array;
  filename: string;
  title?: string;
  contentType?: string;
}

/** The JSON forms (the schema's `file` form documents the multipart part). */
type KnowledgeJson = Exclude<Body<'/v1/ai/services/{id}/documents', 'post'>, { file: unknown }>;
type KnowledgeDocument = Answer<'/v1/ai/services/{id}/documents', 'post'>;
/** `ai.knowledge.upload(serviceId, input, options?)`: a file (multipart) or the JSON forms `{title, text}` / `{documentId}`. */
export type KnowledgeUploadFn = (serviceId: string, input: KnowledgeFile | KnowledgeJson, options?: CallOptions) => Promise<KnowledgeDocument>;

/** Sends a file as multipart/form-data (one `file` part, an optional `title`); the JSON forms go through the table's method. */
function knowledgeUpload(transport: Transport, json: KnowledgeUploadFn): KnowledgeUploadFn {
  return (serviceId, input, options) => {
    if (!('filename' in input)) return json(serviceId, input, options);
    const form = new FormData();
    if (input.title !== undefined) form.append('title', input.title);
    const blob =
      input.file instanceof Blob ? input.file : new Blob([input.file as Uint8Array<ArrayBuffer>], input.contentType ? { type: input.contentType } : {});
    form.append('file', blob, input.filename);
    return transport.request('post', '/v1/ai/services/{id}/documents', { ids: [serviceId], form }, options) as Promise<KnowledgeDocument>;
  };
}

/** Request input for `client.request()`: the path's ids, the query and the JSON body. */
export interface RawRequest {
  ids?: readonly string[];
  query?: Record<string, unknown>;
  body?: unknown;
}

/** The resources' methods (`ai` and `events` are declared with their extra methods below). */
export interface PetCare extends Omit<Resources, 'ai' | 'events'> {}

/** The Pet-Care Platform client. */
export class PetCare {
  /** Knowledge services, documents and answers, the agent query, the care coordinator and recalls; `ai.knowledge.upload` also sends files. */
  readonly ai!: Resources['ai'] & { knowledge: { upload: KnowledgeUploadFn } };
  /**
   * The event log; `events.stream({types, since, signal})` is the live stream (GET /v1/events/stream)
   * as an async iterable that reconnects with backoff and resumes from the last event it yielded.
   */
  readonly events!: Resources['events'] & { stream(options?: EventStreamOptions): AsyncIterable<StreamedEvent> };
  /** `webhooks.verify(rawBody, signatureHeader, secret, options?)`: the same as the standalone `verifyWebhook`. */
  readonly webhooks = { verify: verifyWebhook };

  private readonly transport: Transport;

  constructor(options: PetCareOptions) {
    this.transport = new Transport(options);
    Object.assign(this, build(this.transport, resources));
    const knowledge = (this.ai as { knowledge: Record<string, unknown> }).knowledge;
    knowledge.upload = knowledgeUpload(this.transport, knowledge.add as KnowledgeUploadFn);
    (this.events as { stream: unknown }).stream = (options?: EventStreamOptions) => eventStream(this.transport, options);
  }

  /** Any call by method and path template (`/v1/pets/{id}`), for what has no named method. */
  request(method: HttpMethod, path: string, input: RawRequest = {}, options?: CallOptions): Promise<unknown> {
    return this.transport.request(method, path, input, options);
  }
}
