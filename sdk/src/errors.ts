import type { ErrorCode, ErrorCodes } from './error-codes.js';

export type { ErrorCode, ErrorCodes } from './error-codes.js';

/** One field error of a validation problem. */
export interface FieldError {
  field: string;
  message: string;
}

/** The RFC 9457 problem body the API answers errors with (OAuth errors add `error`). */
export interface ProblemBody {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  code?: string;
  requestId?: string;
  instance?: string;
  errors?: FieldError[];
  error?: string;
  error_description?: string;
  [key: string]: unknown;
}

/**
 * The codes the SDK itself gives a failure the API did not describe: `connection_error` (no answer
 * after the retries), `timeout` (no answer within `timeoutMs`), `http_<status>` (an answer without a
 * problem body, e.g. a proxy's 502 page).
 */
export type ClientErrorCode = 'connection_error' | 'timeout' | `http_${number}`;

/** The API's codes whose HTTP status is one of `S`, e.g. `CodeWithStatus<404>` is `'not_found' | 'route_not_found'`. */
export type CodeWithStatus<S extends number> = { [C in ErrorCode]: ErrorCodes[C] extends S ? C : never }[ErrorCode];

/**
 * The RateLimit headers of an answer (IETF ratelimit-headers draft: `RateLimit: "default";r=…;t=…`
 * and `RateLimit-Policy: "default";q=…;w=…`): the client's budget per window, what is left, and
 * the seconds until the window frees a request.
 */
export interface RateLimitInfo {
  limit: number | undefined;
  remaining: number | undefined;
  resetSeconds: number | undefined;
  windowSeconds: number | undefined;
}

/** `key=value` members of a structured header's first item, as numbers. */
function members(value: string | null): Record<string, number> {
  const out: Record<string, number> = {};
  if (!value) return out;
  for (const part of value.split(',')[0]!.split(';')) {
    const [key, raw] = part.split('=');
    if (key !== undefined && raw !== undefined && /^\s*\d+\s*$/.test(raw)) out[key.trim()] = Number(raw);
  }
  return out;
}

/** The answer's rate limit, or undefined when it carries no RateLimit headers (the token endpoint, a public route). */
export function rateLimitOf(headers: Headers): RateLimitInfo | undefined {
  const state = headers.get('ratelimit');
  const policy = headers.get('ratelimit-policy');
  if (state === null && policy === null) return undefined;
  const r = members(state);
  const p = members(policy);
  return { limit: p.q, remaining: r.r, resetSeconds: r.t, windowSeconds: p.w };
}

export interface PetCareErrorInit {
  headers?: Headers;
  cause?: unknown;
  message?: string;
  retryAfter?: number | undefined;
}

/**
 * An API call that failed: `status` and the problem's `code`, `detail` and field `errors`. A call
 * that never got an answer (network error after the retries) has status 0 and code `connection_error`.
 * Every failure the SDK throws is an instance of one of the subclasses below (by status family,
 * built by `PetCareError.from`); catching `PetCareError` catches them all.
 */
export class PetCareError extends Error {
  override readonly name: string = 'PetCareError';
  readonly status: number;
  /** Stable snake_case code, e.g. `validation_failed`, `not_found`, `rate_limited` (see `ErrorCode`). */
  readonly code: ErrorCode | ClientErrorCode;
  readonly detail: string | undefined;
  readonly title: string | undefined;
  readonly type: string | undefined;
  /** Field errors of a validation problem (empty otherwise). */
  readonly errors: FieldError[];
  /** The server's request id (X-Request-Id), to quote in a support request. */
  readonly requestId: string | undefined;
  /** Seconds from Retry-After, when the answer carried it. */
  readonly retryAfter: number | undefined;
  readonly body: ProblemBody | undefined;
  readonly headers: Headers | undefined;

  constructor(status: number, body: ProblemBody | undefined, init: PetCareErrorInit = {}) {
    const code = (body?.code ?? body?.error ?? (status === 0 ? 'connection_error' : `http_${status}`)) as ErrorCode | ClientErrorCode;
    const detail = body?.detail ?? body?.error_description;
    super(init.message ?? `${status ? `${status} ` : ''}${code}${detail ? `: ${detail}` : ''}`, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = status;
    this.code = code;
    this.detail = detail;
    this.title = body?.title;
    this.type = body?.type;
    this.errors = Array.isArray(body?.errors) ? body.errors : [];
    this.requestId = body?.requestId ?? init.headers?.get('x-request-id') ?? undefined;
    this.retryAfter = init.retryAfter;
    this.body = body;
    this.headers = init.headers;
  }

  /**
   * The error for an answer, by status: 400/405/410/413/415/416/422 `PetCareInvalidRequestError`,
   * 401 `PetCareAuthenticationError`, 403 `PetCarePermissionError`, 404 `PetCareNotFoundError`,
   * 409 `PetCareConflictError`, 429 `PetCareRateLimitError`, 5xx `PetCareAPIError`; any other
   * status a plain `PetCareError`.
   */
  static from(status: number, body: ProblemBody | undefined, init: PetCareErrorInit = {}): PetCareError {
    if (status === 401) return new PetCareAuthenticationError(status, body, init);
    if (status === 403) return new PetCarePermissionError(status, body, init);
    if (status === 404) return new PetCareNotFoundError(status, body, init);
    if (status === 409) return new PetCareConflictError(status, body, init);
    if (status === 429) return new PetCareRateLimitError(status, body, init);
    if (status >= 500) return new PetCareAPIError(status, body, init);
    if (invalidRequestStatuses.has(status)) return new PetCareInvalidRequestError(status, body, init);
    return new PetCareError(status, body, init);
  }
}

const invalidRequestStatuses = new Set([400, 405, 410, 413, 415, 416, 422]);

/** The request is not valid as sent (400, 405, 410, 413, 415, 416, 422): fix it before sending it again. */
export class PetCareInvalidRequestError extends PetCareError {
  override readonly name: string = 'PetCareInvalidRequestError';
  declare readonly code: CodeWithStatus<400 | 405 | 410 | 413 | 415 | 416 | 422> | `http_${number}`;
}

/** 401: no valid credentials (wrong client secret, a token the SDK could not renew). */
export class PetCareAuthenticationError extends PetCareError {
  override readonly name: string = 'PetCareAuthenticationError';
  declare readonly code: CodeWithStatus<401> | `http_${number}`;
}

/** 403: the client may not do this (scope, role, IP allowlist, a location-confined client on a tenant-wide resource). */
export class PetCarePermissionError extends PetCareError {
  override readonly name: string = 'PetCarePermissionError';
  declare readonly code: CodeWithStatus<403> | `http_${number}`;
}

/** 404: no such resource, or one the client may not see (the API does not tell them apart). */
export class PetCareNotFoundError extends PetCareError {
  override readonly name: string = 'PetCareNotFoundError';
  declare readonly code: CodeWithStatus<404> | `http_${number}`;
}

/** 409: the request conflicts with the current state (a taken slot, a state transition, a key in use). */
export class PetCareConflictError extends PetCareError {
  override readonly name: string = 'PetCareConflictError';
  declare readonly code: CodeWithStatus<409> | `http_${number}`;
}

/** 429: the client's rate limit is spent (after the SDK's own retries); `retryAfter` says when to come back. */
export class PetCareRateLimitError extends PetCareError {
  override readonly name: string = 'PetCareRateLimitError';
  declare readonly code: CodeWithStatus<429> | `http_${number}`;
  /** The client's budget as the answer stated it (RateLimit headers). */
  readonly rateLimit: RateLimitInfo | undefined;

  constructor(status: number, body: ProblemBody | undefined, init: PetCareErrorInit = {}) {
    super(status, body, init);
    this.rateLimit = init.headers ? rateLimitOf(init.headers) : undefined;
  }
}

/** 5xx: the appliance failed or is not ready (after the SDK's own retries). Quote `requestId` when reporting it. */
export class PetCareAPIError extends PetCareError {
  override readonly name: string = 'PetCareAPIError';
  declare readonly code: CodeWithStatus<500 | 501 | 502 | 503 | 504> | `http_${number}`;
}

/** No answer: the network failed on every try (status 0, code `connection_error`). */
export class PetCareConnectionError extends PetCareError {
  override readonly name: string = 'PetCareConnectionError';
  declare readonly code: 'connection_error' | 'timeout';

  constructor(init: PetCareErrorInit = {}) {
    super(0, undefined, init);
  }
}

/** No answer within `timeoutMs` on the last try (status 0, code `timeout`); a `PetCareConnectionError`. */
export class PetCareTimeoutError extends PetCareConnectionError {
  override readonly name: string = 'PetCareTimeoutError';
  declare readonly code: 'timeout';
  /** The limit that ran out, in ms. */
  readonly timeoutMs: number;

  constructor(timeoutMs: number, init: PetCareErrorInit = {}) {
    super({ message: `timeout: no answer within ${timeoutMs} ms`, ...init });
    (this as { code: string }).code = 'timeout';
    this.timeoutMs = timeoutMs;
  }
}

/** A webhook whose signature or timestamp does not check out. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}
