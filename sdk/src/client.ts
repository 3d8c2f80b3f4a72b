/**
 * The client. Resources are data — `[method, path]` pairs, generated into `resources.ts` from the
 * modules' manifests and routes — turned into methods by one builder, so each method's ids, query,
 * body and answer types come from the generated OpenAPI types for that path and method:
 *
 * - `['post' | 'get' | 'patch' | 'put' | 'delete', path]`: `(...ids, body or query, options?)`
 * - `['action', path]`: a POST without a body: `(...ids, options?)`
 * - `['list', path]`: `(...ids, query?, options?)` → a PageIterable over every page
 *
 * Every call returns an `ApiPromise`: the answer, or with `withResponse()` the answer and its
 * status and headers. Files and binary answers (multipart uploads, a document's bytes, the `.ics`
 * calendar) have methods of their own, written here.
 */
import { PageIterable, type Page } from './pagination.js';
import { Transport, apiPromise, paramCount, type PetCareOptions } from './transport.js';
import type { Answer, ApiPromise, Body, CallOptions, HttpMethod, IdArgs, ItemOf, Operation, OperationFn, PathsWith, QueryOf } from './types.js';
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
      return new PageIterable((cursor) => transport.request('get', path, { ids, query: { ...query, cursor } }, options) as ApiPromise<Page<unknown>>);
    };
  }
  if (kind === 'action') {
    return (...args: unknown[]) => transport.request('post', path, { ids: args.slice(0, n) as string[] }, args[n] as CallOptions | undefined);
  }
  const inQuery = kind === 'get' || kind === 'delete';
  return (...args: unknown[]) => {
    // A read without a query takes its options right after the ids (see InputArgs): tell them apart by their keys.
    if (inQuery && args.length === n + 1 && isCallOptions(args[n]))
      return transport.request(kind, path, { ids: args.slice(0, n) as string[] }, args[n] as CallOptions);
    const { ids, input, options } = split(args);
    return transport.request(kind, path, inQuery ? { ids, query: input as Record<string, unknown> | undefined } : { ids, body: input }, options);
  };
}

const callOptionKeys = new Set<string>(['idempotencyKey', 'apiVersion', 'headers', 'signal', 'timeoutMs'] satisfies (keyof CallOptions)[]);

/** A non-empty object of CallOptions keys only (no query of the API has a parameter by those names). */
const isCallOptions = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && Object.keys(value).length > 0 && Object.keys(value).every((key) => callOptionKeys.has(key));

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
export type KnowledgeUploadFn = (serviceId: string, input: KnowledgeFile | KnowledgeJson, options?: CallOptions) => ApiPromise<KnowledgeDocument>;

/** A multipart form with one `file` part (its bytes as a Blob with the given type) and the text fields given. */
function fileForm(file: Blob | Uint8Array, filename: string, contentType: string | undefined, fields: Record<string, string | undefined>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) form.append(name, value);
  const blob = file instanceof Blob ? file : new Blob([file as Uint8Array<ArrayBuffer>], contentType ? { type: contentType } : {});
  form.append('file', blob, filename);
  return form;
}

/** Sends a file as multipart/form-data (one `file` part, an optional `title`); the JSON forms go through the table's method. */
function knowledgeUpload(transport: Transport, json: KnowledgeUploadFn): KnowledgeUploadFn {
  return (serviceId, input, options) => {
    if (!('filename' in input)) return json(serviceId, input, options);
    const form = fileForm(input.file, input.filename, input.contentType, { title: input.title });
    return transport.request('post', '/v1/ai/services/{id}/documents', { ids: [serviceId], form }, options) as ApiPromise<KnowledgeDocument>;
  };
}

type UploadForm = NonNullable<Operation<'/v1/pets/{id}/documents', 'post'>['requestBody']>['content']['multipart/form-data'];
type PetDocument = Answer<'/v1/documents/{id}'>;

/** A file for `pets.documents.upload`: its bytes, a name, and optionally a title, a kind and the type it is sent as. */
export interface PetDocumentFile {
  file: Blob | Uint8Array;
  filename: string;
  title?: UploadForm['title'];
  kind?: UploadForm['kind'];
  /** The declared type (the server decides the stored type from the bytes and flags a mismatch). */
  contentType?: string;
}

/** `pets.documents.upload(petId, file, options?)`: POST /v1/pets/{id}/documents as multipart/form-data. */
export type PetDocumentUploadFn = (petId: string, input: PetDocumentFile, options?: CallOptions) => ApiPromise<PetDocument>;

/** A document's bytes as GET /v1/documents/{id}/content answers them. */
export interface DocumentContent {
  bytes: Uint8Array;
  /** The stored type, e.g. `application/pdf` or `text/markdown; charset=utf-8`. */
  contentType: string;
  /** The sanitized file name of Content-Disposition (UTF-8 `filename*` when given). */
  filename: string | undefined;
  /** `"<sha256>"`: send it as If-None-Match to revalidate. */
  etag: string | undefined;
}

/** `documents.download(id, options?)`: a document's bytes, type and file name. */
export type DocumentDownloadFn = (documentId: string, options?: CallOptions) => ApiPromise<DocumentContent>;

/** `appointments.calendar(appointment, options?)`: the appointment's `.ics` (RFC 5545 text), by id or from an appointment already fetched. */
export type AppointmentCalendarFn = (appointment: string | { calendarUrl: string }, options?: CallOptions) => ApiPromise<string>;

/** The file name of a Content-Disposition header: `filename*=UTF-8''…` first, else `filename="…"`. */
function dispositionFilename(header: string | null): string | undefined {
  if (!header) return undefined;
  const extended = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(header);
  if (extended) {
    try {
      return decodeURIComponent(extended[1]!.trim());
    } catch {
      // fall through to the ASCII name
    }
  }
  return /filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(header)?.[1]?.replace(/\\(.)/g, '$1') ?? /filename\s*=\s*([^;\s]+)/i.exec(header)?.[1];
}

async function readDocument(res: Response): Promise<DocumentContent> {
  return {
    bytes: new Uint8Array(await res.arrayBuffer()),
    contentType: res.headers.get('content-type') ?? 'application/octet-stream',
    filename: dispositionFilename(res.headers.get('content-disposition')),
    etag: res.headers.get('etag') ?? undefined,
  };
}

/**
 * The calendar link's path and query on this client's base URL: the API builds `calendarUrl` on its
 * public address, which need not be the one this client reaches it by.
 */
function calendarPath(calendarUrl: string): string {
  const url = new URL(calendarUrl);
  const at = url.pathname.indexOf('/v1/calendar/');
  if (at === -1) throw new TypeError(`appointments.calendar: not a calendar link: ${calendarUrl}`);
  return url.pathname.slice(at) + url.search;
}

function appointmentCalendar(
  transport: Transport,
  getAppointment: (id: string, options?: CallOptions) => Promise<{ calendarUrl: string }>,
): AppointmentCalendarFn {
  const fetchCalendar = (calendarUrl: string, options: CallOptions | undefined) =>
    transport.get({ path: calendarPath(calendarUrl), accept: 'text/calendar', anonymous: true, read: (res) => res.text() }, options) as ApiPromise<string>;
  return (appointment, options) => {
    if (typeof appointment !== 'string') return fetchCalendar(appointment.calendarUrl, options);
    // Two requests: the appointment (with the token) for its link, then the link (which carries its own secret).
    const { timeoutMs, signal, apiVersion } = options ?? {};
    const linkOptions: CallOptions = {
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(signal ? { signal } : {}),
      ...(apiVersion ? { apiVersion } : {}),
    };
    return apiPromise(getAppointment(appointment, linkOptions).then(({ calendarUrl }) => fetchCalendar(calendarUrl, options).withResponse()));
  };
}

/** Request input for `client.request()`: the path's ids, the query and the JSON body. */
export interface RawRequest {
  ids?: readonly string[];
  query?: Record<string, unknown>;
  body?: unknown;
}

/** The resources' methods (`ai`, `events`, `pets`, `documents` and `appointments` are declared with their extra methods below). */
export interface PetCare extends Omit<Resources, 'ai' | 'events' | 'pets' | 'documents' | 'appointments'> {}

/** The Pet-Care Platform client. */
export class PetCare {
  /** Knowledge services, documents and answers, the agent query, the care coordinator and recalls; `ai.knowledge.upload` also sends files. */
  readonly ai!: Resources['ai'] & { knowledge: { upload: KnowledgeUploadFn } };
  /**
   * The event log; `events.stream({types, since, signal})` is the live stream (GET /v1/events/stream)
   * as an async iterable that reconnects with backoff and resumes from the last event it yielded.
   */
  readonly events!: Resources['events'] & { stream(options?: EventStreamOptions): AsyncIterable<StreamedEvent> };
  /** Pets, with `pets.documents.upload(petId, { file, filename, title?, kind? })` sending a file as multipart/form-data. */
  readonly pets!: Omit<Resources['pets'], 'documents'> & { documents: Resources['pets']['documents'] & { upload: PetDocumentUploadFn } };
  /** Documents' metadata, and `documents.download(id)`: the bytes, stored type, file name and ETag. */
  readonly documents!: Resources['documents'] & { download: DocumentDownloadFn };
  /** Appointments, and `appointments.calendar(idOrAppointment)`: the `.ics` text of its `calendarUrl`. */
  readonly appointments!: Resources['appointments'] & { calendar: AppointmentCalendarFn };
  /** `webhooks.verify(rawBody, signatureHeader, secret, options?)`: the same as the standalone `verifyWebhook`. */
  readonly webhooks = { verify: verifyWebhook };

  private readonly transport: Transport;

  constructor(options: PetCareOptions) {
    this.transport = new Transport(options);
    Object.assign(this, build(this.transport, resources));
    const knowledge = (this.ai as { knowledge: Record<string, unknown> }).knowledge;
    knowledge.upload = knowledgeUpload(this.transport, knowledge.add as KnowledgeUploadFn);
    (this.events as { stream: unknown }).stream = (options?: EventStreamOptions) => eventStream(this.transport, options);
    const transport = this.transport;
    const petDocuments = (this.pets as { documents: Record<string, unknown> }).documents;
    petDocuments.upload = ((petId, input, options) => {
      const form = fileForm(input.file, input.filename, input.contentType, { title: input.title, kind: input.kind });
      return transport.request('post', '/v1/pets/{id}/documents', { ids: [petId], form }, options);
    }) as PetDocumentUploadFn;
    (this.documents as { download: unknown }).download = ((documentId, options) =>
      transport.request(
        'get',
        '/v1/documents/{id}/content',
        { ids: [documentId] },
        { ...options, headers: { accept: '*/*', ...options?.headers } },
        readDocument,
      )) as DocumentDownloadFn;
    const appointments = this.appointments as unknown as { get: (id: string, options?: CallOptions) => Promise<{ calendarUrl: string }>; calendar: unknown };
    appointments.calendar = appointmentCalendar(transport, appointments.get);
  }

  /** Any call by method and path template (`/v1/pets/{id}`), for what has no named method. */
  request(method: HttpMethod, path: string, input: RawRequest = {}, options?: CallOptions): ApiPromise<unknown> {
    return this.transport.request(method, path, input, options);
  }
}
