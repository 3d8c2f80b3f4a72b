import type { Next } from 'koa';
import type { Logger } from 'pino';
import { AppError } from './errors.js';
import { normalizeError, toProblem } from './problem.js';
import type { AppContext } from './request-context.js';

/** OAuth endpoints answer errors as application/json with the RFC 6749 `error` member. */
export const isOAuthPath = (path: string): boolean => path.startsWith('/oauth/');

const oauthCodes = new Set(['invalid_request', 'invalid_client', 'invalid_grant', 'invalid_scope', 'unsupported_grant_type']);

/** Every `error` value an OAuth endpoint can answer (documented in OpenAPI). */
export const oauthErrorValues: readonly string[] = [...oauthCodes, 'unauthorized_client', 'slow_down', 'server_error'];

/** RFC 6749 §5.2 `error` value for a problem raised on an OAuth endpoint. */
function oauthErrorCode(error: AppError): string {
  if (oauthCodes.has(error.code)) return error.code;
  if (error.status === 401) return 'invalid_client';
  if (error.status === 403) return 'unauthorized_client'; // RFC 6749 §5.2: the client may not use this grant (here: from this address)
  if (error.status === 429) return 'slow_down';
  if (error.status >= 500) return 'server_error';
  return 'invalid_request';
}

/**
 * First in the chain after the request context: every error becomes RFC 9457 problem+json.
 * Unknown errors are logged with the request id and answered as a bare 500, no internals.
 * OAuth endpoints keep `application/json` because OAuth client libraries require it (RFC 6749 §5.2).
 */
export function errorHandler(logger: Logger) {
  return async (ctx: AppContext, next: Next): Promise<void> => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new AppError('route_not_found', `No route matches ${ctx.method} ${ctx.path}.`);
      if (ctx.status === 405 && ctx.body === undefined) {
        throw new AppError('method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}.`, { headers: { Allow: String(ctx.response.get('Allow')) } });
      }
    } catch (err) {
      let error = normalizeError(err);
      if (!error) {
        logger.error({ err, requestId: ctx.state.requestId, route: ctx.state.route }, 'unhandled error');
        error = new AppError('internal_error', 'Something went wrong on our side; retry with the same Idempotency-Key.');
      }
      ctx.status = error.status;
      ctx.set(error.headers);
      const problem = toProblem(error, ctx);
      if (isOAuthPath(ctx.path)) {
        ctx.body = { error: oauthErrorCode(error), error_description: error.message, ...problem };
        ctx.type = 'application/json';
        ctx.set('Cache-Control', 'no-store');
      } else {
        ctx.body = problem;
        ctx.type = 'application/problem+json';
      }
    }
  };
}
