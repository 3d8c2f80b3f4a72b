import { AppError, errorCodes, type ErrorCode, type FieldError } from './errors.js';
import type { AppContext } from './request-context.js';

export const problemType = (code: string): string => `urn:petcare:error:${code}`;

export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  requestId: string;
  instance: string;
  errors?: FieldError[];
  [extension: string]: unknown;
}

export function toProblem(error: AppError, ctx: AppContext): ProblemDocument {
  const problem: ProblemDocument = {
    ...error.extensions,
    type: problemType(error.code),
    title: errorCodes[error.code].title,
    status: error.status,
    detail: error.message,
    code: error.code,
    requestId: ctx.state.requestId,
    instance: ctx.path,
  };
  if (error.errors) problem.errors = error.errors;
  return problem;
}

interface HttpishError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  type?: string;
  message?: string;
}

/** Maps errors thrown by Koa and its body parser (which carry an HTTP status) onto our codes. */
export function normalizeError(err: unknown): AppError | null {
  if (err instanceof AppError) return err;
  const e = (err ?? {}) as HttpishError;
  const status = e.status ?? e.statusCode;
  if (!status || status >= 500) return null;
  if (status === 413) return new AppError('payload_too_large', 'The request body exceeds the size limit.');
  if (status === 415) return new AppError('unsupported_media_type', 'Send the body as application/json.');
  if (status === 400 && (e.type === 'entity.parse.failed' || /JSON|Unexpected token|parse/i.test(e.message ?? ''))) {
    return new AppError('malformed_json', 'The request body could not be parsed as JSON.');
  }
  if (status === 404) return new AppError('route_not_found', 'No route matches this path.');
  if (status === 405) return new AppError('method_not_allowed', 'The method is not allowed on this path.');
  const code = (Object.keys(errorCodes) as ErrorCode[]).find((c) => errorCodes[c].status === status) ?? 'validation_failed';
  return new AppError(code, e.expose && e.message ? e.message : errorCodes[code].title);
}
