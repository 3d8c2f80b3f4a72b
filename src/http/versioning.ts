import type { Context, Next } from 'koa';
import type { Clock } from '../clock.js';
import { AppError } from './errors.js';

export interface DeprecatedVersion {
  /** Path prefix of the old version, e.g. `/v0`. */
  prefix: string;
  /** Its successor's prefix, e.g. `/v1`. */
  successorPrefix: string;
  deprecatedAt: Date;
  sunsetAt: Date;
  /** `METHOD /v1/...` routes that keep a twin under the old prefix until sunset. */
  routes: readonly string[];
}

/**
 * Seed part 9: v0 is deprecated and sunsets 2026-12-01. A listed twin is mounted only once its
 * v1 route exists (GET /v1/payments arrives with the payments module).
 */
export const deprecatedVersions: readonly DeprecatedVersion[] = [
  {
    prefix: '/v0',
    successorPrefix: '/v1',
    deprecatedAt: new Date('2026-06-01T00:00:00Z'),
    sunsetAt: new Date('2026-12-01T00:00:00Z'),
    routes: ['GET /v1/pets/:id', 'GET /v1/payments'],
  },
];

/** Adds Deprecation (RFC 9745), Sunset (RFC 8594) and successor Link headers; 410 from the sunset instant. */
export function deprecationMiddleware(version: DeprecatedVersion, clock: Clock) {
  const deprecation = `@${Math.floor(version.deprecatedAt.getTime() / 1000)}`;
  const sunset = version.sunsetAt.toUTCString();
  return async (ctx: Context, next: Next): Promise<void> => {
    const successor = version.successorPrefix + ctx.path.slice(version.prefix.length);
    const link = `<${successor}>; rel="successor-version"`;
    ctx.set('Deprecation', deprecation);
    ctx.set('Sunset', sunset);
    ctx.set('Link', link);
    if (clock.now() >= version.sunsetAt.getTime()) {
      throw new AppError('gone', `${version.prefix} was sunset on ${version.sunsetAt.toISOString()}; use ${successor}.`, {
        headers: { Deprecation: deprecation, Sunset: sunset, Link: link },
      });
    }
    await next();
  };
}
