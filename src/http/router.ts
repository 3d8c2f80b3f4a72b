import Router from '@koa/router';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import type { WriteBatches } from '../db/write-batches.js';
import type { Actor } from './actor.js';
import { refuseUnknownApiVersion, versionedBody } from './api-versions.js';
import { auditEntry, resourceIdOf, type AuditLog } from './audit.js';
import { authenticate, authorize, type AuthenticateDeps } from './authenticate.js';
import { AppError } from './errors.js';
import { readIdempotencyKey, requestFingerprint, type IdempotencyStore, type StoredResponse } from './idempotency.js';
import type { AppContext, RequestState } from './request-context.js';
import { isPublic, type AnyProtectedRoute, type AnyRoute, type Reply, type Staged } from './route.js';
import { validateBody, validateShape, validateStrings } from './validation.js';
import { reusedJsonText } from './reusable-json.js';
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
  parseBody(ctx: AppContext): Promise<void>;
}

export const routeKey = (route: Pick<AnyRoute, 'method' | 'path'>): string => `${route.method.toUpperCase()} ${route.path}`;

const plainJsonTypes = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8']);

/** A Content-Type that is application/json as type-is reads it, spelt one of the usual ways: no type-is parse needed. */
const isPlainJsonType = (header: string | undefined): boolean => header !== undefined && plainJsonTypes.has(header.toLowerCase());

const hasBody = (ctx: AppContext): boolean => Number(ctx.get('Content-Length') || 0) > 0 || ctx.get('Transfer-Encoding') !== '';

async function readInput(route: AnyRoute, ctx: AppContext, deps: PipelineDeps) {
  const params = route.params ? validateStrings(route.params, ctx.params as Record<string, unknown>, 'params') : {};
  const query = route.query ? validateStrings(route.query, ctx.query as Record<string, unknown>, 'query') : {};
  let body: unknown;
  if (route.body) {
    const types = route.bodyTypes ?? ['application/json'];
    const plainJson = types.includes('application/json') && isPlainJsonType(ctx.req.headers['content-type']);
    if (!plainJson && hasBody(ctx) && !ctx.is(...types)) {
      throw new AppError('unsupported_media_type', `Send the body as ${types.join(' or ')}.`);
    }
    // A route with a stage step reads its own body (streamed), later in the pipeline.
    if (!isPublic(route) && route.stage) return { params, query, body: undefined };
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

/**
 * The line /openapi.json holds (issue 28.1): a handler answers only statuses and media types its
 * route declares. Checked wherever responses are validated (every test), so an undocumented answer
 * fails the suite instead of surprising a generated client.
 */
function checkDeclared(route: AnyRoute, reply: Reply<unknown>): void {
  // The docs page's and console's own files are not in the document.
  if (isPublic(route) && route.hidden) return;
  const status = reply.status ?? route.response.status;
  const statuses = [route.response.status, ...(route.response.also ?? []).map((a) => a.status)];
  if (!statuses.includes(status)) {
    throw new Error(`response of ${routeKey(route)} has status ${status}, which its route does not declare (response.also)`);
  }
  const header = Object.entries(reply.headers ?? {}).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
  if (header === undefined) return;
  const type = header.split(';')[0]!.trim().toLowerCase();
  const types = [route.response.contentType ?? 'application/json', ...(route.response.contentTypes ?? [])].map((t) => t.split(';')[0]!.trim().toLowerCase());
  if (!types.includes(type))
    throw new Error(`response of ${routeKey(route)} has Content-Type ${type}, which its route does not declare (response.contentTypes)`);
}

function respond(ctx: AppContext, route: AnyRoute, reply: Reply<unknown>, deps: PipelineDeps, replayed = false): void {
  // A replayed body was checked when first produced (and may be redacted since).
  if (deps.validateResponses && !replayed) checkDeclared(route, reply);
  if (deps.validateResponses && !replayed && route.response.schema) {
    try {
      validateShape(route.response.schema, reply.body);
    } catch (err) {
      const detail = err instanceof AppError ? JSON.stringify(err.errors) : String(err);
      throw new Error(`response of ${routeKey(route)} does not match its schema: ${detail}`);
    }
  }
  ctx.status = reply.status ?? route.response.status;
  if (route.response.contentType) ctx.type = route.response.contentType;
  // The reply's own headers win (a download names its own Content-Type).
  if (reply.headers) ctx.set(reply.headers);
  const body = versionedBody(ctx, route.versions, reply.body, deps.validateResponses && !replayed);
  // The audit names the resource from the answer as produced, not from the serialised body.
  ctx.state.resourceId = resourceIdOf(ctx, ctx.status, reply.body, reply.resourceId);
  if (!isJsonDocument(body)) {
    ctx.body = body;
    return;
  }
  // Koa would find this type through a MIME lookup on every JSON answer.
  if (!ctx.res.hasHeader('Content-Type')) ctx.set('Content-Type', 'application/json; charset=utf-8');
  // An answer the service marked reusable (src/http/reusable-json.ts) goes out as the text it was given the first time.
  ctx.body = reusedJsonText(body as object, jsonBody) ?? jsonBody(body);
}

/**
 * The JSON text of an answer, serialised here rather than by Koa (the same JSON.stringify). A large
 * all-ASCII answer (lists, availability: ids, dates, codes) goes out as bytes copied one to one:
 * Node's UTF-8 encoding of the string at write time cost ~370 µs per 200 KB, against ~30 µs for the
 * check and ~25 µs for the copy. Small answers and any others keep the string (Koa's UTF-8 path).
 */
function jsonBody(body: unknown): string | Buffer {
  const json = JSON.stringify(body);
  return json.length >= 4096 && Buffer.byteLength(json) === json.length ? Buffer.from(json, 'latin1') : json;
}

/** A plain object or array: what Koa serialises as JSON (not a Buffer, stream or other body). */
const isJsonDocument = (body: unknown): boolean =>
  Array.isArray(body) || (typeof body === 'object' && body !== null && Object.getPrototypeOf(body) === Object.prototype);

/** A `tenantWide` route spans every location: a client confined to locations is refused, whatever its input. */
function refuseConfined(actor: Actor, tenantWide: true | string): void {
  if (actor.locationIds === null) return;
  const why = tenantWide === true ? 'This resource spans every location of the tenant' : tenantWide;
  throw new AppError('tenant_wide_only', `${why}; use a client that is not confined to locations.`);
}

/**
 * The pipeline of a protected route, in the order outline uses:
 * auth (+ allowlist + rate limit) → scope/role (+ tenant-wide) → validate → [stage body] → idempotency → transaction → handler → respond.
 */
async function runProtected(route: AnyProtectedRoute, ctx: AppContext, deps: PipelineDeps): Promise<void> {
  const actor = await authenticate(ctx, deps);
  authorize(actor, route.access.scope, route.access.roles);
  if (route.tenantWide !== undefined) refuseConfined(actor, route.tenantWide);
  const input = await readInput(route, ctx, deps);
  const store = deps.stores.get(actor.env);
  const transactional = route.transactional ?? route.method !== 'get';
  // ctx.get() answers '' for an absent header too; the raw headers tell an empty one apart. Every write
  // refuses a malformed key (DESIGN §4), also one whose route keeps no idempotency record.
  const sentKey = route.method !== 'get' ? readIdempotencyKey(ctx.req.headers['idempotency-key']) : undefined;
  const key = transactional ? sentKey : undefined;
  if (!route.stage) {
    await runHandler(route, ctx, deps, {
      actor,
      db: store.db,
      writes: store.writes,
      input: { ...input, staged: undefined },
      transactional,
      key,
      outcome: { kept: false },
    });
    return;
  }
  // Staging streams the body before the transaction: the write lock is never held while a client uploads.
  // A refused upload's unread rest is drained, bounded, after the answer (lingeringClose in app.ts).
  const staged: Staged<unknown> = await route.stage({ params: input.params, query: input.query, actor, db: store.db, ctx });
  const outcome = { kept: false };
  try {
    await runHandler(route, ctx, deps, {
      actor,
      db: store.db,
      writes: store.writes,
      input: { ...input, staged: staged.value },
      staged,
      transactional,
      key,
      outcome,
    });
  } finally {
    // A staged body whose request did not commit (error, failed COMMIT, idempotent replay) is removed;
    // a failed clean-up must not replace the answer the client is owed.
    if (!outcome.kept) await staged.discard().catch(() => undefined);
  }
}

interface HandlerCall {
  actor: Actor;
  db: Db;
  writes: WriteBatches;
  input: { params: unknown; query: unknown; body: unknown; staged: unknown };
  staged?: Staged<unknown>;
  transactional: boolean;
  key: string | undefined;
  /** Set once the request's writes (and its staged body) are durable. */
  outcome: { kept: boolean };
}

/** Runs the handler: alone for reads, else in one transaction with its idempotency record, audit row and staged body. */
async function runHandler(route: AnyProtectedRoute, ctx: AppContext, deps: PipelineDeps, call: HandlerCall): Promise<void> {
  const { actor, db, writes, input, staged, transactional, key, outcome } = call;
  const effects: Array<() => void> = [];
  const afterCommit = (effect: () => void) => effects.push(effect);

  if (!transactional) {
    const reply = await route.handler({ ...input, ctx, actor, db, afterCommit });
    await staged?.persist?.();
    outcome.kept = true;
    respond(ctx, route, reply, deps);
    for (const effect of effects) effect();
    return;
  }

  const fingerprint = key ? requestFingerprint(ctx.method, ctx.path, staged ? staged.fingerprint : input.body) : '';
  if (key && !deps.idempotency.begin(actor.env, actor.clientId, key)) {
    throw new AppError('idempotency_key_in_use', 'A request with this Idempotency-Key is still running; retry when it has finished.', {
      headers: { 'Retry-After': '1' },
    });
  }
  try {
    // One savepoint of a group-committed transaction (WriteBatches): answered once it is durable.
    const done = await writes.run(async (trx): Promise<{ replay: StoredResponse } | { reply: Reply<unknown> }> => {
      if (key) {
        // Looked up inside the write's transaction, so a record any earlier request committed is seen.
        const stored = await deps.idempotency.find(trx, actor.clientId, key, deps.clock.now());
        if (stored) {
          if (stored.fingerprint !== fingerprint) {
            throw new AppError('idempotency_key_mismatch', 'This Idempotency-Key was already used with a different request; use a new key.');
          }
          return { replay: stored };
        }
      }
      const result = await route.handler({ ...input, ctx, actor, db: trx, afterCommit });
      const status = result.status ?? route.response.status;
      if (key) {
        const body = route.redactOnReplay ? withoutFields(result.body, route.redactOnReplay) : result.body;
        await deps.idempotency.save(trx, actor.clientId, key, { fingerprint, status, body }, deps.clock.now());
      }
      await deps.audit.writeWith(trx, auditEntry(ctx, actor, status, resourceIdOf(ctx, status, result.body, result.resourceId), deps.clock.now()));
      await staged?.persist?.();
      return { reply: result };
    });
    if ('replay' in done) {
      ctx.set('Idempotent-Replayed', 'true');
      if (route.redactOnReplay) ctx.set('Idempotent-Replayed-Redacted', route.redactOnReplay.join(', '));
      respond(ctx, route, { status: done.replay.status, body: done.replay.body }, deps, true);
      return; // the first request's staged body is the one kept: this one is discarded
    }
    outcome.kept = true;
    ctx.state.auditWritten = true;
    for (const effect of effects) effect();
    respond(ctx, route, done.reply, deps);
  } finally {
    if (key) deps.idempotency.end(actor.env, actor.clientId, key);
  }
}

function pipeline(route: AnyRoute, deps: PipelineDeps, template = routeKey(route)) {
  return async (ctx: AppContext): Promise<void> => {
    ctx.state.route = template;
    // Headers are judged once a route matched: a method the path lacks is 405 whatever they say.
    refuseUnknownApiVersion(ctx);
    if (isPublic(route)) {
      const input = await readInput(route, ctx, deps);
      respond(ctx, route, await route.handler({ ...input, ctx }), deps);
      return;
    }
    await runProtected(route, ctx, deps);
  };
}

type Dispatch = ReturnType<Router<RequestState>['routes']>;

/** What app.ts mounts: the dispatch middleware and the 405/501 answers (as @koa/router's). */
export interface GatewayRouter {
  routes(): Dispatch;
  allowedMethods(): ReturnType<Router<RequestState>['allowedMethods']>;
}

/** The first two path segments, lower-cased without a trailing slash: '/v1/pets/pet_1' → '/v1/pets'. */
function groupOf(path: string): string {
  const second = path.indexOf('/', 1);
  const third = second < 0 ? -1 : path.indexOf('/', second + 1);
  const prefix = third < 0 ? path : path.slice(0, third);
  return (prefix.length > 1 && prefix.endsWith('/') ? prefix.slice(0, -1) : prefix).toLowerCase();
}

/** Path segments, a trailing slash not counted (routes match with or without one): '/v1/pets/pet_1/' → 3. */
function segmentsOf(path: string): number {
  const end = path.length > 1 && path.charCodeAt(path.length - 1) === 47 ? path.length - 1 : path.length;
  let count = 0;
  for (let i = 0; i < end; i++) if (path.charCodeAt(i) === 47) count++;
  return count;
}

/** A route path every match of which has its number of segments: plain text and `:name` parameters only. */
const fixedLength = (path: string): boolean => !/[*?(){}]/.test(path) && !(path.length > 1 && path.endsWith('/'));

/**
 * Mounts every declared route, plus the deprecated twins of those still served under an old prefix.
 * @koa/router tests every route's pattern in turn, which cost ~10 µs per request with a hundred
 * routes; so routes are split into one router per first two path segments (no route has a
 * parameter there) and a request consults only its own group's. Where every route of a group has a
 * fixed number of segments (a parameter never spans a '/'), the group is split again by that number
 * (GET /v1/pets/:id tests 2 patterns, not 11): a path can only match routes of its own length, so
 * each router still sees every route its path could match, and 404 / 405 / Allow are as before.
 */
export function buildRouter(routes: readonly AnyRoute[], deps: PipelineDeps): GatewayRouter {
  const mounts: Array<{ method: AnyRoute['method']; path: string; handler: (ctx: AppContext) => Promise<void> }> = [];
  const mount = (method: AnyRoute['method'], path: string, handler: (ctx: AppContext) => Promise<void>) => {
    if (/[:*(]/.test(path.split('/').slice(0, 3).join('/'))) throw new Error(`route ${path} has a parameter in its first two segments`);
    mounts.push({ method, path, handler });
  };
  for (const route of routes) {
    mount(route.method, route.path, pipeline(route, deps));
    for (const version of deprecatedVersions) {
      if (!version.routes.includes(routeKey(route))) continue;
      const oldPath = version.prefix + route.path.slice(version.successorPrefix.length);
      const run = pipeline(route, deps, `${route.method.toUpperCase()} ${oldPath}`);
      const deprecation = deprecationMiddleware(version, deps.clock);
      mount(route.method, oldPath, (ctx) => deprecation(ctx, () => run(ctx)));
    }
  }
  // A group is split by length only when every one of its routes has a fixed length.
  const unsplit = new Set(mounts.filter((m) => !fixedLength(m.path)).map((m) => groupOf(m.path)));
  const keyOf = (path: string): string => {
    const group = groupOf(path);
    return unsplit.has(group) ? group : `${group} ${segmentsOf(path)}`;
  };
  const groups = new Map<string, Router<RequestState>>();
  for (const { method, path, handler } of mounts) {
    const key = keyOf(path);
    let router = groups.get(key);
    if (!router) {
      router = new Router<RequestState>();
      groups.set(key, router);
    }
    router[method](path, handler);
  }
  const dispatchers = new Map([...groups].map(([key, router]) => [key, router.routes()]));
  // A path no router holds (an unknown prefix or length) still goes through a router, so 404 and 501 are answered as before.
  const none = new Router<RequestState>();
  const noRoute = none.routes();
  return {
    routes: (): Dispatch => (ctx, next) => (dispatchers.get(keyOf(ctx.path)) ?? noRoute)(ctx, next),
    allowedMethods: () => none.allowedMethods(),
  };
}
