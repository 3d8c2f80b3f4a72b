/** An error code's HTTP status and title (RFC 9457 `status` and `title`). */
export interface ErrorCodeInfo {
  readonly status: number;
  readonly title: string;
}

/**
 * The gateway's error codes and those several modules answer. A module's own codes are in its
 * manifest (`errors`), joined to `ErrorCode` by declaration merging into `ModuleErrorCodes`
 * (`declare module '../../http/errors.js' { interface ModuleErrorCodes extends PaymentsErrorCodes {} }`).
 */
export const gatewayErrorCodes = {
  validation_failed: { status: 400, title: 'The request is not valid' },
  malformed_json: { status: 400, title: 'The request body is not valid JSON' },
  resource_missing: { status: 400, title: 'A referenced resource does not exist' },
  invalid_idempotency_key: { status: 400, title: 'The Idempotency-Key header is not valid' },
  invalid_cursor: { status: 400, title: 'The pagination cursor is not valid' },
  unsupported_api_version: { status: 400, title: 'The Petcare-Version header names no version of this API' },
  invalid_request: { status: 400, title: 'The OAuth request is not valid' },
  invalid_grant: { status: 400, title: 'The grant is invalid, expired or revoked' },
  invalid_scope: { status: 400, title: 'The requested scope is not valid' },
  unsupported_grant_type: { status: 400, title: 'The grant type is not supported' },
  invalid_client: { status: 401, title: 'Client authentication failed' },
  unauthorized: { status: 401, title: 'Authentication is required' },
  invalid_token: { status: 401, title: 'The access token is invalid or expired' },
  insufficient_scope: { status: 403, title: 'The token lacks a required scope' },
  forbidden_role: { status: 403, title: 'The client role may not do this' },
  ip_not_allowed: { status: 403, title: 'The request comes from an address outside the client allowlist' },
  environment_not_allowed: { status: 403, title: 'This environment may not manage the other one' },
  tenant_wide_only: { status: 403, title: 'A client confined to locations may not use this tenant-wide resource' },
  not_found: { status: 404, title: 'The resource does not exist' },
  route_not_found: { status: 404, title: 'No route matches this path' },
  method_not_allowed: { status: 405, title: 'The method is not allowed on this path' },
  idempotency_key_in_use: { status: 409, title: 'A request with this Idempotency-Key is still being processed' },
  conflict: { status: 409, title: 'The request conflicts with the current state' },
  slot_unavailable: { status: 409, title: 'The requested time slot is not available' },
  invalid_state_transition: { status: 409, title: 'The resource cannot move to the requested state' },
  gone: { status: 410, title: 'This API version has been sunset' },
  payload_too_large: { status: 413, title: 'The request body is too large' },
  unsupported_media_type: { status: 415, title: 'The request body media type is not supported' },
  range_not_satisfiable: { status: 416, title: 'The requested byte range is outside the content' },
  idempotency_key_mismatch: { status: 422, title: 'The Idempotency-Key was used with a different request' },
  locations_required: { status: 422, title: 'A client confined to locations must bind what it creates to its locations' },
  rate_limited: { status: 429, title: 'Too many requests' },
  internal_error: { status: 500, title: 'Internal server error' },
  service_unavailable: { status: 503, title: 'The service is not ready' },
} as const satisfies Record<string, ErrorCodeInfo>;

/** Each module's own error codes, added by its manifest (see `gatewayErrorCodes`). */
export interface ModuleErrorCodes {}

export type ErrorCode = keyof typeof gatewayErrorCodes | (keyof ModuleErrorCodes & string);

/**
 * Every error code a client can see, with its HTTP status and title (RFC 9457 `code` member): the
 * gateway's, then each module's as the app registers its manifests.
 */
export const errorCodes: Record<ErrorCode, ErrorCodeInfo> = { ...gatewayErrorCodes } as Record<ErrorCode, ErrorCodeInfo>;

/** Adds a module's own codes (its manifest's `errors`); a code two modules define differently is a mistake. */
export function registerErrorCodes(owner: string, codes: Readonly<Record<string, ErrorCodeInfo>>): void {
  for (const [code, info] of Object.entries(codes)) {
    const known = (errorCodes as Record<string, ErrorCodeInfo>)[code];
    if (known !== undefined && (known.status !== info.status || known.title !== info.title)) {
      throw new Error(`error code ${code} is defined twice (the second time by ${owner})`);
    }
    (errorCodes as Record<string, ErrorCodeInfo>)[code] = info;
  }
}

/**
 * The order /openapi.json listed the codes in before modules declared their own, kept so the document
 * does not change; a code not named here follows, in the order it was registered. A new code needs no entry.
 */
const documentedOrder: readonly string[] = [
  'validation_failed',
  'malformed_json',
  'resource_missing',
  'invalid_idempotency_key',
  'invalid_cursor',
  'unsupported_api_version',
  'invalid_request',
  'invalid_grant',
  'invalid_scope',
  'unsupported_grant_type',
  'invalid_client',
  'unauthorized',
  'invalid_token',
  'insufficient_scope',
  'forbidden_role',
  'ip_not_allowed',
  'sandbox_only',
  'environment_not_allowed',
  'tenant_wide_only',
  'not_found',
  'route_not_found',
  'method_not_allowed',
  'idempotency_key_in_use',
  'conflict',
  'last_admin',
  'slot_unavailable',
  'invalid_state_transition',
  'job_running',
  'wallet_exists',
  'no_vacancy',
  'room_unavailable',
  'stylist_unavailable',
  'no_stylist_available',
  'dose_already_logged',
  'already_rated',
  'already_replied',
  'embedding_mismatch',
  'gone',
  'payload_too_large',
  'unsupported_media_type',
  'range_not_satisfiable',
  'idempotency_key_mismatch',
  'recipient_unreachable',
  'amount_exceeds_due',
  'insufficient_funds',
  'refund_exceeds_payment',
  'clock_backwards',
  'clock_out_of_range',
  'vaccinations_required',
  'dose_not_scheduled',
  'no_membership_credit',
  'no_package_credit',
  'onboarding_incomplete',
  'provider_not_bookable',
  'booking_not_completed',
  'locations_required',
  'document_outside_service',
  'recall_too_large',
  'rate_limited',
  'internal_error',
  'service_unavailable',
];

/** Every code, in the order the OpenAPI document lists them. */
export function documentedErrorCodes(): ErrorCode[] {
  const rank = (code: string): number => {
    const at = documentedOrder.indexOf(code);
    return at === -1 ? documentedOrder.length : at;
  };
  // A stable sort: codes added since keep their registration order.
  return (Object.keys(errorCodes) as ErrorCode[]).sort((a, b) => rank(a) - rank(b));
}

export interface FieldError {
  field: string;
  message: string;
}

/** The one application error: rendered as RFC 9457 problem+json by the error middleware. */
export class AppError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string>;
  /** Extra members for the problem document (e.g. OAuth `error`). */
  readonly extensions: Record<string, unknown>;

  constructor(
    code: ErrorCode,
    detail: string,
    options: { errors?: FieldError[]; headers?: Record<string, string>; extensions?: Record<string, unknown> } = {},
  ) {
    super(detail);
    this.name = 'AppError';
    this.code = code;
    this.status = errorCodes[code].status;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
    this.extensions = options.extensions ?? {};
  }
}

export const notFound = (kind: string, id: string): AppError => new AppError('not_found', `No ${kind} with id '${id}' exists.`);

/** The row a repository found through the caller's access filter, else 404 (never reveals a row elsewhere). */
export function foundOr404<T>(row: T | null | undefined, kind: string, id: string): T {
  if (row === null || row === undefined) throw notFound(kind, id);
  return row;
}

export const validationFailed = (errors: FieldError[], detail = 'One or more fields are invalid.'): AppError =>
  new AppError('validation_failed', detail, { errors });

/** A body field names a record the caller cannot see: same answer whether it exists elsewhere or not. */
export const missingReference = (field: string, kind: string, id: string): AppError =>
  new AppError('resource_missing', `No ${kind} with id '${id}' exists.`, {
    errors: [{ field, message: `no ${kind} with id '${id}'` }],
  });

export const conflict = (detail: string): AppError => new AppError('conflict', detail);
