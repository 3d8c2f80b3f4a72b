/**
 * Types derived from the generated `paths`: for a path and a method, its path parameters, query,
 * JSON body and success answer. Every SDK method's signature is computed from these, so a route
 * change reaches the SDK through `npm run sdk:types` alone.
 */
import type { RateLimitInfo } from './errors.js';
import type { paths } from './openapi-types.js';

export type { paths, components, operations } from './openapi-types.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The paths that declare method M. */
export type PathsWith<M extends HttpMethod> = {
  [P in keyof paths]: [NonNullable<paths[P][M]>] extends [never] ? never : P;
}[keyof paths];

export type Operation<P extends keyof paths, M extends HttpMethod> = NonNullable<paths[P][M]>;

/** The query object of an operation (never when it takes none). */
export type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** The JSON body of an operation (never when it takes none). */
export type BodyOf<O> = O extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

type SuccessStatus = 200 | 201 | 202 | 204;
type SuccessOf<O> = O extends { responses: infer R } ? R[Extract<keyof R, SuccessStatus>] : never;

/** The parsed success answer of an operation. */
export type AnswerOf<O> = SuccessOf<O> extends { content: { 'application/json': infer T } } ? T : unknown;

/** One item of a list operation's `data`. */
export type ItemOf<O> = AnswerOf<O> extends { data: (infer I)[] } ? I : never;

/** The answer of `GET path`, or of `method path`. */
export type Answer<P extends keyof paths, M extends HttpMethod = 'get'> = AnswerOf<Operation<P, M>>;
export type Body<P extends keyof paths, M extends HttpMethod = 'post'> = BodyOf<Operation<P, M>>;
export type Query<P extends keyof paths, M extends HttpMethod = 'get'> = QueryOf<Operation<P, M>>;

/** A string argument for every `{param}` of a path, in order. */
export type IdArgs<P extends string> = P extends `${string}{${string}}${infer Rest}` ? [string, ...IdArgs<Rest>] : [];

/** Per-call options. */
export interface CallOptions {
  /** Idempotency-Key for a write; default: a random UUID, reused across this call's retries. */
  idempotencyKey?: string;
  /** Petcare-Version for this call only (default: the client's `apiVersion`). */
  apiVersion?: string;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** Aborts the call (and its retries). */
  signal?: AbortSignal;
  /** How long one try may wait for its whole answer, in ms (default: the client's `timeoutMs`; 0: no limit). */
  timeoutMs?: number;
}

/** What a successful answer said besides its body: `withResponse()` gives it. */
export interface ResponseInfo {
  status: number;
  headers: Headers;
  /** X-Request-Id: quote it in a support request. */
  requestId: string | undefined;
  /** The client's rate limit after this call (RateLimit headers); undefined on routes without one. */
  rateLimit: RateLimitInfo | undefined;
  /** The API version the server answered in (Petcare-Version). */
  apiVersion: string | undefined;
  /** True when the server replayed the first answer to this Idempotency-Key (Idempotent-Replayed). */
  idempotentReplayed: boolean;
}

/** An answer and what came with it. */
export interface WithResponse<T> {
  data: T;
  response: ResponseInfo;
}

/**
 * What every call returns: a promise of the parsed answer, as before, that also offers
 * `withResponse()`, the same call's answer with its status and headers (no second request).
 */
export type ApiPromise<T> = Promise<T> & { withResponse(): Promise<WithResponse<T>> };

/** What a call takes after its ids: the query (GET, DELETE) or the body (other methods), then options. */
export type InputArgs<M extends HttpMethod, O> = M extends 'get' | 'delete'
  ? [QueryOf<O>] extends [never]
    ? [options?: CallOptions]
    : {} extends QueryOf<O>
      ? [query?: QueryOf<O>, options?: CallOptions]
      : [query: QueryOf<O>, options?: CallOptions]
  : [BodyOf<O>] extends [never]
    ? [options?: CallOptions]
    : O extends { requestBody: unknown }
      ? [body: BodyOf<O>, options?: CallOptions]
      : [body?: BodyOf<O>, options?: CallOptions];

/** An SDK method for `method path`: ids, then query or body, then options. */
export type OperationFn<P extends keyof paths & string, M extends HttpMethod> = (
  ...args: [...IdArgs<P>, ...InputArgs<M, Operation<P, M>>]
) => ApiPromise<AnswerOf<Operation<P, M>>>;
