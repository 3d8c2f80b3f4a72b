import { randomUUID } from 'node:crypto';
import type { Next, ParameterizedContext } from 'koa';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Actor } from './actor.js';
import type { ApiVersion } from './api-version-names.js';
import type { Metrics } from './metrics.js';
import { accessLog } from '../logger.js';

/**
 * Everything the gateway records about one request: the one declared type of `ctx.state`
 * (`AppContext`), so a misspelt or undeclared field does not compile.
 */
export interface RequestState {
  /** X-Request-Id: the caller's, when well-formed, else generated. */
  requestId: string;
  /** Service-clock instant the request arrived (the audit row's latency). */
  startedAt: number;
  /** Route template once matched (`GET /v1/pets/:id`), for logs, metrics and the audit trail. */
  route?: string;
  /** The caller, as soon as authentication knows it: refusals after that are audited against it. */
  actor?: Actor;
  /** The resource the answer named (set when a route responds), for the audit row of a read. */
  resourceId?: string | null;
  /** Set once a write committed its audit row in its own transaction. */
  auditWritten?: boolean;
  /** Petcare-Version from the request header, once checked. */
  requestedApiVersion?: ApiVersion;
  /** A Petcare-Version header that names no version (empty included): 400 once a route matched. */
  unknownApiVersion?: string;
  /** The calling client's pinned version, set by authentication. */
  pinnedApiVersion?: ApiVersion;
}

/** The Koa context of this application: `ctx.state` is a RequestState. */
export type AppContext = ParameterizedContext<RequestState>;

const requestIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Health probes and scrapes run every few seconds (a HEALTHCHECK every 30 s is 2,880 calls a day):
 * they would drown the access log and the audit trail, so a successful one is logged at debug only
 * and never audited.
 */
export const probePaths: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

/** Request id (echoed or generated), platform version header, one log line and metrics per request. */
export function requestContext(deps: { logger: Logger; clock: Clock; platformVersion: string; metrics: Metrics }) {
  const access = accessLog(deps.logger);
  return async (ctx: AppContext, next: Next): Promise<void> => {
    const started = performance.now();
    const incoming = ctx.get('X-Request-Id');
    const requestId = requestIdPattern.test(incoming) ? incoming : randomUUID();
    ctx.state = { requestId, startedAt: deps.clock.now() };
    ctx.set('X-Request-Id', requestId);
    ctx.set('X-Platform-Version', deps.platformVersion);
    try {
      await next();
    } finally {
      const ms = performance.now() - started;
      const { route = 'unmatched', actor } = ctx.state;
      deps.metrics.observe(ctx.method, route, ctx.status, ms);
      const entry = { requestId, method: ctx.method, route, path: ctx.path, status: ctx.status, ms: Math.round(ms * 100) / 100, client: actor?.clientId };
      if (ctx.status < 400 && probePaths.has(ctx.path)) deps.logger.debug(entry, 'request');
      else access(entry);
    }
  };
}
