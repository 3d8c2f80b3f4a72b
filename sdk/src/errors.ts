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
 * An API call that failed: `status` and the problem's `code`, `detail` and field `errors`. A call
 * that never got an answer (network error after the retries) has status 0 and code `connection_error`.
 */
export class PetCareError extends Error {
  override readonly name = 'PetCareError';
  readonly status: number;
  /** Stable snake_case code, e.g. `validation_failed`, `not_found`, `rate_limited`. */
  readonly code: string;
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

  constructor(
    status: number,
    body: ProblemBody | undefined,
    init: { headers?: Headers; cause?: unknown; message?: string; retryAfter?: number | undefined } = {},
  ) {
    const code = body?.code ?? body?.error ?? (status === 0 ? 'connection_error' : `http_${status}`);
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
}

/** A webhook whose signature or timestamp does not check out. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}
