import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Metrics } from './metrics.js';

const requestIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

/** Request id (echoed or generated), platform version header, one log line and metrics per request. */
export function requestContext(deps: { logger: Logger; clock: Clock; platformVersion: string; metrics: Metrics }) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const started = process.hrtime.bigint();
    ctx.state.startedAt = deps.clock.now();
    const incoming = ctx.get('X-Request-Id');
    const requestId = requestIdPattern.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    ctx.set('X-Platform-Version', deps.platformVersion);
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const route = String(ctx.state.route ?? 'unmatched');
      deps.metrics.observe(ctx.method, route, ctx.status, ms);
      deps.logger.info(
        { requestId, method: ctx.method, route, path: ctx.path, status: ctx.status, ms: Math.round(ms * 100) / 100, client: ctx.state.actor?.clientId },
        'request',
      );
    }
  };
}
