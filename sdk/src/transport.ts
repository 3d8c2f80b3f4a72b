/**
 * The HTTP core every SDK method goes through: the token (fetched, refreshed, shared by concurrent
 * calls), Idempotency-Key on writes, Petcare-Version, a timeout per try, retries with backoff and
 * jitter, the problem body turned into a PetCareError of its status family, and the answer's
 * headers kept for `withResponse()`.
 */
import { randomUUID } from 'node:crypto';
import { PetCareConnectionError, PetCareError, PetCareTimeoutError, rateLimitOf, type ProblemBody } from './errors.js';
import type { ApiPromise, CallOptions, HttpMethod, ResponseInfo, WithResponse } from './types.js';

export interface PetCareOptions {
  /** Where the appliance answers, e.g. `https://petcare.example.com` (no `/v1`). */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** Space-separated scopes to ask for (default: everything the client may have). */
  scope?: string;
  /** Dated API version sent as `Petcare-Version` on every call (default: the client's pinned one). */
  apiVersion?: string;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
  /** Retries of a call answered 429 or 5xx, or lost to a network error (default 3). */
  maxRetries?: number;
  /** First backoff delay; doubles per retry, with jitter (default 500 ms). */
  retryBaseDelayMs?: number;
  /** Longest wait between two tries, Retry-After included (default 30 s). */
  maxRetryDelayMs?: number;
  /**
   * How long one try may wait for its whole answer (headers and body), in ms, before it is abandoned:
   * retried like a network error, and after the last try thrown as `PetCareTimeoutError`
   * (default 60 000; 0: no limit). A call can set its own (`{ timeoutMs }`).
   */
  timeoutMs?: number;
  /** Refresh the token when it has less than this left (default 60 s). */
  refreshMarginSeconds?: number;
  /** The clock that decides when the token is near expiry, in ms (default Date.now). */
  now?: () => number;
}

export interface RequestInput {
  /** Values for the `{param}`s of the path, in order. */
  ids?: readonly string[];
  query?: Record<string, unknown> | undefined;
  body?: unknown;
  /** A multipart body (file uploads); fetch sets its content type and boundary. Re-sent as is on a retry. */
  form?: FormData;
}

/** How a successful answer's body is read (JSON or text by its type, unless the method wants bytes or text). */
export type BodyReader = (res: Response) => Promise<unknown>;

/** Where a call goes and how: an already filled path with its query, the Accept header, whether it needs the token. */
interface Target {
  path: string;
  accept?: string;
  /** A public route (the calendar link carries its own secret): no bearer token. */
  anonymous?: boolean;
  read?: BodyReader;
}

/** The reason a try's own timeout aborts its fetch with (a network-level failure, retried like one). */
const timedOut = (ms: number) => new DOMException(`no answer within ${ms} ms`, 'TimeoutError');

/** The default for `timeoutMs`. */
export const defaultTimeoutMs = 60_000;

interface TokenState {
  accessToken: string;
  refreshToken: string | undefined;
  /** Epoch ms. */
  expiresAt: number;
}

interface TokenAnswer {
  access_token: string;
  expires_in: number;
  refresh_token?: string;
  scope?: string;
}

const sleep = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** Fills `{param}`s in order, URL-encoded. */
export function fillPath(template: string, ids: readonly string[] = []): string {
  let i = 0;
  const path = template.replace(/\{[^}]+\}/g, (name) => {
    const value = ids[i++];
    if (value === undefined || value === '') throw new TypeError(`${template}: missing ${name}`);
    return encodeURIComponent(value);
  });
  if (i !== ids.length) throw new TypeError(`${template}: expected ${i} id(s), got ${ids.length}`);
  return path;
}

export const paramCount = (template: string): number => template.match(/\{[^}]+\}/g)?.length ?? 0;

function queryString(query: Record<string, unknown> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const v of value) params.append(key, String(v));
    else params.append(key, String(value));
  }
  const s = params.toString();
  return s ? `?${s}` : '';
}

/** The parts of an answer `withResponse()` shows. */
export function responseInfo(res: Response): ResponseInfo {
  return {
    status: res.status,
    headers: res.headers,
    requestId: res.headers.get('x-request-id') ?? undefined,
    rateLimit: rateLimitOf(res.headers),
    apiVersion: res.headers.get('petcare-version') ?? undefined,
    idempotentReplayed: res.headers.get('idempotent-replayed') === 'true',
  };
}

/**
 * The promise a method returns: it resolves to the answer's data, and `withResponse()` to the data
 * and the response of the same call. A call whose caller only ever uses `withResponse()` leaves no
 * unhandled rejection behind.
 */
export function apiPromise<T>(exchange: Promise<WithResponse<T>>): ApiPromise<T> {
  const data = exchange.then((answer) => answer.data);
  data.catch(() => undefined);
  return Object.assign(data, { withResponse: () => exchange });
}

export async function readBody(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!text) return undefined;
  const type = res.headers.get('content-type') ?? '';
  if (!/json/i.test(type)) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Retry-After in seconds (delta-seconds or an HTTP date), or undefined. */
export function retryAfterSeconds(headers: Headers, nowMs: number = Date.now()): number | undefined {
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - nowMs) / 1000));
}

const retryableStatus = (status: number) => status === 429 || status >= 500;

export class Transport {
  readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;
  private readonly maxRetries: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly marginMs: number;
  private readonly timeoutMs: number;
  private readonly now: () => number;
  private token: TokenState | undefined;
  private pendingToken: Promise<TokenState> | undefined;

  constructor(private readonly options: PetCareOptions) {
    if (!options.baseUrl) throw new TypeError('PetCare: baseUrl is required');
    if (!options.clientId || !options.clientSecret) throw new TypeError('PetCare: clientId and clientSecret are required');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.maxRetries = options.maxRetries ?? 3;
    this.baseDelayMs = options.retryBaseDelayMs ?? 500;
    this.maxDelayMs = options.maxRetryDelayMs ?? 30_000;
    this.marginMs = (options.refreshMarginSeconds ?? 60) * 1000;
    this.timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
    this.now = options.now ?? Date.now;
  }

  /** Sends a call: token, headers, retries; the parsed answer (and its response) or a PetCareError. */
  request(method: HttpMethod, pathTemplate: string, input: RequestInput = {}, options: CallOptions = {}, read?: BodyReader): ApiPromise<unknown> {
    // fillPath throws synchronously on missing ids: inside the promise, so the caller gets a rejection.
    return apiPromise(
      Promise.resolve().then(() =>
        this.call(method, { path: fillPath(pathTemplate, input.ids) + queryString(input.query), ...(read ? { read } : {}) }, input, options),
      ),
    );
  }

  /** A GET of a path that is already filled in (with its query), e.g. one the API gave as a link. */
  get(target: Target, options: CallOptions = {}): ApiPromise<unknown> {
    return apiPromise(this.call('get', target, {}, options));
  }

  private async call(method: HttpMethod, target: Target, input: RequestInput, options: CallOptions): Promise<WithResponse<unknown>> {
    const url = this.baseUrl + target.path;
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const headers: Record<string, string> = { accept: target.accept ?? 'application/json', ...options.headers };
    const version = options.apiVersion ?? this.options.apiVersion;
    if (version) headers['petcare-version'] = version;
    // One key for every try of this call: a retry after a lost answer replays instead of writing twice.
    if (method !== 'get') headers['idempotency-key'] = options.idempotencyKey ?? randomUUID();
    let body: string | FormData | undefined;
    if (input.form !== undefined) {
      body = input.form;
    } else if (input.body !== undefined) {
      body = JSON.stringify(input.body);
      headers['content-type'] = 'application/json';
    }
    let refreshedAfter401 = false;
    for (;;) {
      const token = target.anonymous ? undefined : await this.accessToken();
      const { res, parsed } = await this.send(
        url,
        { method: method.toUpperCase(), headers: token ? { ...headers, authorization: `Bearer ${token.accessToken}` } : headers, body },
        { signal: options.signal, timeoutMs, read: target.read },
      );
      if (res.ok) return { data: parsed, response: responseInfo(res) };
      if (token && res.status === 401 && !refreshedAfter401 && (parsed as ProblemBody | undefined)?.code === 'invalid_token') {
        // Expired or revoked early: get a fresh token once and try again.
        refreshedAfter401 = true;
        if (this.token === token) this.token = { ...token, expiresAt: 0 };
        continue;
      }
      throw this.problem(res, parsed);
    }
  }

  /**
   * One GET whose body the caller reads as it comes (the event stream): the token as for every call,
   * a fresh one once after a 401, and no retries — the caller decides when to reconnect. The
   * response as fetched (a failure's body unread), or a network error thrown.
   */
  async openStream(path: string, query: Record<string, unknown> | undefined, headers: Record<string, string>, signal?: AbortSignal): Promise<Response> {
    const url = this.baseUrl + path + queryString(query);
    const version = this.options.apiVersion;
    for (let refreshed = false; ; refreshed = true) {
      const token = await this.accessToken();
      // The timeout covers the wait for the stream's headers, not the stream itself.
      const connect = this.timeoutMs > 0 ? new AbortController() : undefined;
      const timer = connect && setTimeout(() => connect.abort(timedOut(this.timeoutMs)), this.timeoutMs);
      let res: Response;
      try {
        res = await this.fetchImpl(url, {
          headers: {
            accept: 'text/event-stream',
            ...(version ? { 'petcare-version': version } : {}),
            ...headers,
            authorization: `Bearer ${token.accessToken}`,
          },
          signal: connect ? (signal ? AbortSignal.any([signal, connect.signal]) : connect.signal) : signal,
        });
      } finally {
        clearTimeout(timer);
      }
      if (res.status !== 401 || refreshed) return res;
      await res.body?.cancel().catch(() => undefined);
      if (this.token === token) this.token = { ...token, expiresAt: 0 };
    }
  }

  /** The answer of a failed call as a PetCareError (its body read here). */
  async failure(res: Response): Promise<PetCareError> {
    return this.problem(res, await readBody(res));
  }

  /** How long to wait before reconnect number `attempt` (Retry-After when the answer gave one). */
  reconnectDelay(attempt: number, res?: Response): number {
    return this.backoff(attempt, res ? retryAfterSeconds(res.headers) : undefined);
  }

  /**
   * Fetches and reads the answer, with retries on network errors, timeouts, 429 and 5xx (each retry
   * after backoff or Retry-After). Each try has `timeoutMs` for its answer, body included.
   */
  private async send(
    url: string,
    init: RequestInit,
    { signal, timeoutMs, read = readBody }: { signal: AbortSignal | undefined; timeoutMs: number; read?: BodyReader | undefined },
  ): Promise<{ res: Response; parsed: unknown }> {
    for (let attempt = 0; ; attempt++) {
      const limit = timeoutMs > 0 ? new AbortController() : undefined;
      const timer = limit && setTimeout(() => limit.abort(timedOut(timeoutMs)), timeoutMs);
      const trySignal = limit ? (signal ? AbortSignal.any([signal, limit.signal]) : limit.signal) : signal;
      let retryAfter: number | undefined;
      try {
        const res = await this.fetchImpl(url, { ...init, signal: trySignal });
        if (!retryableStatus(res.status) || attempt >= this.maxRetries) return { res, parsed: res.ok ? await read(res) : await readBody(res) };
        retryAfter = retryAfterSeconds(res.headers);
        await res.body?.cancel().catch(() => undefined);
      } catch (error) {
        if (signal?.aborted) throw error;
        if (attempt >= this.maxRetries) {
          if (limit?.signal.aborted) throw new PetCareTimeoutError(timeoutMs, { cause: error });
          throw new PetCareConnectionError({ cause: error, message: `connection_error: ${String((error as Error)?.message ?? error)}` });
        }
      } finally {
        clearTimeout(timer);
      }
      await sleep(this.backoff(attempt, retryAfter), signal);
    }
  }

  /** Retry-After when given (capped), else exponential from the base delay with ±50 % jitter. */
  private backoff(attempt: number, retryAfter: number | undefined): number {
    if (retryAfter !== undefined) return Math.min(retryAfter * 1000, this.maxDelayMs);
    const exp = Math.min(this.baseDelayMs * 2 ** attempt, this.maxDelayMs);
    return Math.round(exp * (0.5 + Math.random()));
  }

  private problem(res: Response, parsed: unknown): PetCareError {
    const body = parsed && typeof parsed === 'object' ? (parsed as ProblemBody) : undefined;
    return PetCareError.from(res.status, body, { headers: res.headers, retryAfter: retryAfterSeconds(res.headers) });
  }

  /** The current access token, refreshed near expiry; concurrent calls share one token request. */
  private async accessToken(): Promise<TokenState> {
    const token = this.token;
    if (token && this.now() < token.expiresAt - this.marginMs) return token;
    this.pendingToken ??= this.renew(token).finally(() => {
      this.pendingToken = undefined;
    });
    return this.pendingToken;
  }

  private async renew(current: TokenState | undefined): Promise<TokenState> {
    if (current?.refreshToken) {
      try {
        return this.store(await this.tokenCall({ grant_type: 'refresh_token', refresh_token: current.refreshToken }));
      } catch (error) {
        // A refused refresh (spent, revoked, expired family) falls back to the client's credentials.
        if (!(error instanceof PetCareError) || error.status === 0 || error.status >= 500) throw error;
      }
    }
    const grant: Record<string, string> = { grant_type: 'client_credentials' };
    if (this.options.scope) grant.scope = this.options.scope;
    return this.store(await this.tokenCall(grant));
  }

  private store(answer: TokenAnswer): TokenState {
    this.token = { accessToken: answer.access_token, refreshToken: answer.refresh_token, expiresAt: this.now() + answer.expires_in * 1000 };
    return this.token;
  }

  private async tokenCall(grant: Record<string, string>): Promise<TokenAnswer> {
    const { res, parsed } = await this.send(
      `${this.baseUrl}/oauth/token`,
      {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/json' },
        body: JSON.stringify({ ...grant, client_id: this.options.clientId, client_secret: this.options.clientSecret }),
      },
      { signal: undefined, timeoutMs: this.timeoutMs },
    );
    if (!res.ok) throw this.problem(res, parsed);
    return parsed as TokenAnswer;
  }
}
