import type { Static, TSchema } from '@sinclair/typebox';
import type { Context } from 'koa';
import type { Executor } from '../db/database.js';
import type { CatalogueEventType } from '../event-catalogue.js';
import type { Actor } from './actor.js';
import type { VersionChanges } from './api-versions.js';
import type { ErrorCode } from './errors.js';
import type { Role, Scope } from './scopes.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export type MediaType = 'application/json' | 'application/x-www-form-urlencoded' | 'multipart/form-data';

type StaticOr<T, Fallback> = T extends TSchema ? Static<T> : Fallback;

export interface Reply<Body> {
  status?: number;
  body: Body;
  headers?: Record<string, string>;
  /** The resource the call acted on, for the audit trail (defaults to body.id or :id). */
  resourceId?: string;
}

interface HandlerInputBase<P, Q, B> {
  params: StaticOr<P, Record<string, never>>;
  query: StaticOr<Q, Record<string, never>>;
  body: StaticOr<B, undefined>;
  ctx: Context;
}

export interface ProtectedInput<P, Q, B, S = undefined> extends HandlerInputBase<P, Q, B> {
  actor: Actor;
  /** The caller's environment database; inside the route's transaction for writes. */
  db: Executor;
  /** Runs after the transaction commits (cache invalidation and other non-transactional effects). */
  afterCommit(effect: () => void): void;
  /** What the route's `stage` step produced (undefined for routes without one). */
  staged: S;
}

/** Input of a route's `stage` step: the caller is authenticated and authorized, params and query are validated. */
export interface StageInput<P, Q> {
  params: StaticOr<P, Record<string, never>>;
  query: StaticOr<Q, Record<string, never>>;
  actor: Actor;
  /** The caller's environment database, outside any transaction (lookups only). */
  db: Executor;
  ctx: Context;
}

/** A request body read and set aside by a route's `stage` step, not yet part of any committed write. */
export interface Staged<S> {
  /** Handed to the handler as `staged`. */
  value: S;
  /** Stands in for the body in the Idempotency-Key fingerprint (e.g. the content's SHA-256 and the form fields). */
  fingerprint: unknown;
  /**
   * Makes the staged body permanent (e.g. renames a temp file to its final name). Runs inside the
   * transaction after every write of the request, as the last step before COMMIT.
   */
  persist?(): Promise<void>;
  /**
   * Removes everything staging and persist left behind. Runs whenever the request does not commit:
   * an error before or during the transaction, a failed COMMIT, or an answer replayed from the idempotency store.
   */
  discard(): Promise<void>;
}

interface RouteDocs {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** Error codes this route can answer besides the gateway's own (documented in OpenAPI). */
  errors?: ErrorCode[];
  /** Event types the route may emit, from the catalogue (documented in OpenAPI as `x-emits`). */
  emits?: readonly CatalogueEventType[];
}

interface RouteShape<P, Q, B, R> {
  method: HttpMethod;
  path: string;
  params?: P;
  query?: Q;
  body?: B;
  /** Accepted body media types; JSON unless stated. */
  bodyTypes?: MediaType[];
  response: {
    status: number;
    description: string;
    schema: R;
    contentType?: string;
    /**
     * Other statuses the handler answers with the same body (a deduplicated upload's 200 beside 202).
     * Declared here, they are in /openapi.json; an answer with a status declared nowhere fails the
     * response check every test runs with (`validateResponses`).
     */
    also?: ReadonlyArray<{ status: number; description: string }>;
    /** Other media types the handler may answer with (its `Content-Type` header), documented beside the main one. */
    contentTypes?: readonly string[];
  };
  /**
   * Older dated versions' answers (DESIGN §16), each a transform of the current answer; the router
   * applies the request's version when it responds (replays too), so the handler stays current-only.
   */
  versions?: VersionChanges<StaticOr<R, unknown>>;
}

export interface ProtectedRoute<P extends TSchema | undefined, Q extends TSchema | undefined, B extends TSchema | undefined, R extends TSchema, S = undefined>
  extends RouteDocs,
    RouteShape<P, Q, B, R> {
  /** `scope`: the one scope the call needs, or a list of scopes any one of which will do (DESIGN §3: marketplace bookings are `marketplace` or `bookings`). */
  access: { scope: Scope | readonly [Scope, ...Scope[]]; roles?: readonly Role[] };
  /**
   * The route spans every location of the tenant: the router refuses a client confined to locations
   * (403 `tenant_wide_only`) right after the scope check, before reading its input; OpenAPI says so.
   * `true`, or the reason the refusal gives.
   */
  tenantWide?: true | string;
  /** Writes run in one transaction with their audit row and idempotency record; default: true for non-GET. */
  transactional?: boolean;
  /**
   * Response fields never written to the idempotency store (secrets shown once): a replay
   * answers without them and names them in `Idempotent-Replayed-Redacted`.
   */
  redactOnReplay?: readonly string[];
  /**
   * Reads the request body itself instead of the gateway's JSON/form parser (streamed uploads).
   * Runs after authorization and before the idempotency check and the transaction, so no write lock
   * is held while the body streams; it can refuse early (404 for an invisible parent) before reading
   * a byte. With a stage step, `body` only documents the form (OpenAPI) and the handler's `body` is
   * undefined: it gets `staged` instead.
   */
  stage?(input: StageInput<P, Q>): Promise<Staged<S>>;
  handler(input: ProtectedInput<P, Q, [S] extends [undefined] ? B : undefined, S>): Promise<Reply<Static<R>>>;
}

export interface PublicRoute<P extends TSchema | undefined, Q extends TSchema | undefined, B extends TSchema | undefined, R extends TSchema>
  extends RouteDocs,
    RouteShape<P, Q, B, R> {
  access: 'public';
  /** Not listed in OpenAPI (the docs page's own assets). */
  hidden?: boolean;
  handler(input: HandlerInputBase<P, Q, B>): Promise<Reply<Static<R>>>;
}

// The registry holds routes of many schema types; their handlers are only called with input validated against their own schemas.
/* eslint-disable @typescript-eslint/no-explicit-any */
export type AnyProtectedRoute = ProtectedRoute<any, any, any, any, any>;
export type AnyPublicRoute = PublicRoute<any, any, any, any>;
export type AnyRoute = AnyProtectedRoute | AnyPublicRoute;
/* eslint-enable @typescript-eslint/no-explicit-any */

/** Declares a route that needs a bearer token with `access.scope` (and one of `access.roles`). */
export function defineRoute<
  P extends TSchema | undefined = undefined,
  Q extends TSchema | undefined = undefined,
  B extends TSchema | undefined = undefined,
  R extends TSchema = TSchema,
  S = undefined,
>(route: ProtectedRoute<P, Q, B, R, S>): AnyRoute {
  return route as AnyRoute;
}

/** Declares a route anyone may call (OAuth endpoints, health, discovery documents). */
export function definePublicRoute<
  P extends TSchema | undefined = undefined,
  Q extends TSchema | undefined = undefined,
  B extends TSchema | undefined = undefined,
  R extends TSchema = TSchema,
>(route: Omit<PublicRoute<P, Q, B, R>, 'access'>): AnyRoute {
  return { ...route, access: 'public' } as AnyRoute;
}

export const isPublic = (route: AnyRoute): route is AnyPublicRoute => route.access === 'public';
