/** Every error code a client can see, with its HTTP status and title (RFC 9457 `code` member). */
export const errorCodes = {
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
  sandbox_only: { status: 403, title: 'This operation exists only in the sandbox environment' },
  environment_not_allowed: { status: 403, title: 'This environment may not manage the other one' },
  tenant_wide_only: { status: 403, title: 'A client confined to locations may not use this tenant-wide resource' },
  not_found: { status: 404, title: 'The resource does not exist' },
  route_not_found: { status: 404, title: 'No route matches this path' },
  method_not_allowed: { status: 405, title: 'The method is not allowed on this path' },
  idempotency_key_in_use: { status: 409, title: 'A request with this Idempotency-Key is still being processed' },
  conflict: { status: 409, title: 'The request conflicts with the current state' },
  last_admin: { status: 409, title: 'The last enabled admin client cannot lose admin access' },
  slot_unavailable: { status: 409, title: 'The requested time slot is not available' },
  invalid_state_transition: { status: 409, title: 'The resource cannot move to the requested state' },
  job_running: { status: 409, title: 'The job is already running' },
  wallet_exists: { status: 409, title: 'The parent already has a wallet in this currency' },
  no_vacancy: { status: 409, title: 'No place of this room type is free on every night of the stay' },
  room_unavailable: { status: 409, title: 'The room has no free place for this stay' },
  stylist_unavailable: { status: 409, title: 'The stylist cannot take this booking' },
  no_stylist_available: { status: 409, title: 'No stylist is free for this booking' },
  dose_already_logged: { status: 409, title: 'This dose is already logged; a correction names the entry it supersedes' },
  already_rated: { status: 409, title: 'This booking has already been rated' },
  already_replied: { status: 409, title: 'This review already has a reply' },
  embedding_mismatch: { status: 409, title: "The service's pinned embedding model or dimension differs from the configured one; re-index it" },
  gone: { status: 410, title: 'This API version has been sunset' },
  payload_too_large: { status: 413, title: 'The request body is too large' },
  unsupported_media_type: { status: 415, title: 'The request body media type is not supported' },
  range_not_satisfiable: { status: 416, title: 'The requested byte range is outside the content' },
  idempotency_key_mismatch: { status: 422, title: 'The Idempotency-Key was used with a different request' },
  recipient_unreachable: { status: 422, title: 'The recipient has no address for this channel' },
  amount_exceeds_due: { status: 422, title: 'The amount exceeds what is due on the invoice' },
  insufficient_funds: { status: 422, title: 'The wallet balance is too low' },
  refund_exceeds_payment: { status: 422, title: 'The refund exceeds what is left to refund on the payment' },
  clock_backwards: { status: 422, title: 'The sandbox clock only moves forward' },
  clock_out_of_range: { status: 422, title: 'The sandbox clock moves at most 5 years past real time' },
  vaccinations_required: { status: 422, title: 'The pet lacks vaccinations the location requires' },
  dose_not_scheduled: { status: 422, title: "The time is not one of the medication's scheduled doses during the stay" },
  no_membership_credit: { status: 422, title: 'No membership credit is left for this package' },
  no_package_credit: { status: 422, title: 'No prepaid package credit is left for this package' },
  onboarding_incomplete: { status: 422, title: 'The provider lacks a listing or a weekly schedule' },
  provider_not_bookable: { status: 422, title: 'The provider takes no bookings in its current state' },
  booking_not_completed: { status: 422, title: 'Only a completed marketplace booking can be rated' },
  locations_required: { status: 422, title: 'A client confined to locations must bind what it creates to its locations' },
  document_outside_service: { status: 422, title: "The pet document is not at one of the knowledge service's locations" },
  recall_too_large: { status: 422, title: 'The recall selects more recipients than one campaign may hold; narrow it' },
  rate_limited: { status: 429, title: 'Too many requests' },
  internal_error: { status: 500, title: 'Internal server error' },
  service_unavailable: { status: 503, title: 'The service is not ready' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof errorCodes;

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
