import Router from '@koa/router';
import type { Context } from 'koa';
import type { Clock } from '../clock.js';
import { auditEntry, resourceIdOf, type AuditLog } from './audit.js';
import { authenticate, authorize, type AuthenticateDeps } from './authenticate.js';
import { AppError } from './errors.js';
import { readIdempotencyKey, requestFingerprint, type IdempotencyStore } from './idempotency.js';
import { isPublic, type AnyProtectedRoute, type AnyRoute, type Reply } from './route.js';
import { validateBody, validateStrings } from './validation.js';
import { deprecatedVersions, deprecationMiddleware } from './versioning.js';

export interface PipelineDeps extends AuthenticateDeps {
  clock: Clock;
  audit: AuditLog;
  idempotency: IdempotencyStore;
  /** Check every response against its schema (tests): a presenter drifting from the docs fails loudly. */
  validateResponses: boolean;
  /**
   * Reads and parses the request body (size limit → 413, bad JSON → 400). Called only for routes
   * that take a body, after authentication, so a refused caller's body is never read and a
   * known caller's bad body is audited and rate-limited as its own.
   */
  parseBody(ctx: Context): Promise<void>;
}

export const routeKey = (route: Pick<AnyRoute, 'method' | 'path'>): string => `${route.method.toUpperCase()} ${route.path}`;

const hasBody = (ctx: Context): boolean =>
  Number(ctx.get('Content-Length') || 0) > 0 || ctx.get('Transfer-Encoding') !== '';

async function readInput(route: AnyRoute, ctx: Context, deps: PipelineDeps) {
  const params = route.params ? validateStrings(route.params, ctx.params as Record<string, unknown>, 'params') : {};
  const query = route.query ? validateStrings(route.query, ctx.query as Record<string, unknown>, 'query') : {};
  let body: unknown;
  if (route.body) {
    const types = route.bodyTypes ?? ['application/json'];
    if (hasBody(ctx) && !ctx.is(...types)) {
      throw new AppError('unsupported_media_type', `Send the body as ${types.join(' or ')}.`);
    }
    await deps.parseBody(ctx);
    body = validateBody(route.body, ctx.request.body ?? {});
  }
  return { params, query, body };
}

function withoutFields(body: unknown, fields: readonly string[]): unknown {
  if (!body || typeof body !== 'object') return body;
  const copy = { ...(body as Record<string, unknown>) };
  for (const field of fields) delete copy[field];
  return copy;
}

function respond(ctx: Context, route: AnyRoute, reply: Reply<unknown>, deps: PipelineDeps, replayed = false): void {
  // A replayed body was checked when first produced (and may be redacted since).
  if (deps.validateResponses && !replayed && route.response.schema) {
    try {
      validateBody(route.response.schema, reply.body);
    } catch (err) {
      const detail = err instanceof AppError ? JSON.stringify(err.errors) : String(err);
      throw new Error(`response of ${routeKey(route)} does not match its schema: ${detail}`);
    }
  }
  ctx.status = reply.status ?? route.response.status;
  if (reply.headers) ctx.set(reply.headers);
  if (route.response.contentType) ctx.type = route.response.contentType;
  ctx.body = reply.body;
}

/**
 * The pipeline of a protected route, in the order outline uses:
 * auth (+ allowlist + rate limit) → scope/role → validate → idempotency → transaction → handler → respond.
 */
async function runProtected(route: AnyProtectedRoute, ctx: Context, deps: PipelineDeps): Promise<void> {
  const actor = await authenticate(ctx, deps);
  authorize(actor, route.access.scope, route.access.roles);
  const input = await readInput(route, ctx, deps);
  const store = deps.stores.get(actor.env);
  const transactional = route.transactional ?? route.method !== 'get';
  const effects: Array<() => void> = [];
  const afterCommit = (effect: () => void) => effects.push(effect);

  if (!transactional) {
    respond(ctx, route, await route.handler({ ...input, ctx, actor, db: store.db, afterCommit }), deps);
    for (const effect of effects) effect();
    return;
  }

  const key = readIdempotencyKey(ctx.get('Idempotency-Key'));
  const fingerprint = key ? requestFingerprint(ctx.method, ctx.path, input.body) : '';
  if (key) {
    const stored = await deps.idempotency.find(store.db, actor.clientId, key, deps.clock.now());
    if (stored) {
      if (stored.fingerprint !== fingerprint) {
        throw new AppError('idempotency_key_mismatch', 'This Idempotency-Key was already used with a different request; use a new key.');
      }
      ctx.set('Idempotent-Replayed', 'true');
      if (route.redactOnReplay) ctx.set('Idempotent-Replayed-Redacted', route.redactOnReplay.join(', '));
      respond(ctx, route, { status: stored.status, body: stored.body }, deps, true);
      return;
    }
    if (!deps.idempotency.begin(actor.env, actor.clientId, key)) {
      throw new AppError('idempotency_key_in_use', 'A request with this Idempotency-Key is still running; retry when it has finished.', {
        headers: { 'Retry-After': '1' },
      });
    }
  }
  try {
    const reply = await store.db.transaction().execute(async (trx) => {
      const result = await route.handler({ ...input, ctx, actor, db: trx, afterCommit });
      const status = result.status ?? route.response.status;
      if (key) {
        const body = route.redactOnReplay ? withoutFields(result.body, route.redactOnReplay) : result.body;
        await deps.idempotency.save(trx, actor.clientId, key, { fingerprint, status, body }, deps.clock.now());
      }
      await deps.audit.writeWith(trx, auditEntry(ctx, actor, status, resourceIdOf(ctx, status, result.body, result.resourceId), deps.clock.now()));
      return result;
    });
    ctx.state.auditWritten = true;
    for (const effect of effects) effect();
    respond(ctx, route, reply, deps);
  } finally {
    if (key) deps.idempotency.end(actor.env, actor.clientId, key);
  }
}

function pipeline(route: AnyRoute, deps: PipelineDeps, template = routeKey(route)) {
  return async (ctx: Context): Promise<void> => {
    ctx.state.route = template;
    if (isPublic(route)) {
      const input = await readInput(route, ctx, deps);
      respond(ctx, route, await route.handler({ ...input, ctx }), deps);
      return;
    }
    await runProtected(route, ctx, deps);
  };
}

/** Mounts every declared route, plus the deprecated twins of those still served under an old prefix. */
export function buildRouter(routes: readonly AnyRoute[], deps: PipelineDeps): Router {
  const router = new Router();
  for (const route of routes) {
    router[route.method](route.path, pipeline(route, deps));
    for (const version of deprecatedVersions) {
      if (!version.routes.includes(routeKey(route))) continue;
      const oldPath = version.prefix + route.path.slice(version.successorPrefix.length);
      const run = pipeline(route, deps, `${route.method.toUpperCase()} ${oldPath}`);
      const deprecation = deprecationMiddleware(version, deps.clock);
      router[route.method](oldPath, (ctx) => deprecation(ctx, () => run(ctx)));
    }
  }
  return router;
}
