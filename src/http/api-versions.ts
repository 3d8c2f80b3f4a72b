import type { TSchema } from '@sinclair/typebox';
import type { Next } from 'koa';
import { AppError } from './errors.js';
import type { AppContext } from './request-context.js';
import { validateShape } from './validation.js';

import { apiVersions, currentApiVersion, type ApiVersion } from './api-version-names.js';

export { apiVersions, currentApiVersion, type ApiVersion };

export const apiVersionHeader = 'Petcare-Version';
const apiVersionHeaderKey = apiVersionHeader.toLowerCase();

/** What each version changed, newest first (OpenAPI `x-api-versions` and description, README). */
export const apiVersionChangelog: ReadonlyArray<{ version: ApiVersion; changes: readonly string[] }> = [
  {
    version: '2026-11-01',
    changes: [
      '`PATCH /v1/appointments/{id}` answers the full appointment: `providerId` and `provider {id, name}`, lower-case `status` and `type`.',
      '`POST /v1/providers/match` answers the ranking `{data: [{rank, providerId, provider, nextSlot, rating, reasons}], petId, type, locationId, from, to}`.',
      '`GET /v1/orders` pages by cursor like every list: `{data, nextCursor, hasMore}` with `limit` and `cursor`; `page`/`perPage` are refused (400).',
    ],
  },
  {
    version: '2025-06-01',
    changes: [
      'The first v1. `PATCH /v1/appointments/{id}` answers the appointment with `providerId` only and upper-case `status`/`type`; ' +
        '`POST /v1/providers/match` answers a bare array of providers `[{id, name, kind, rating}]` in rank order; ' +
        '`GET /v1/orders` pages by number (`page`, `perPage`) and answers `{orders, page, totalPages}`.',
    ],
  },
];

/**
 * A schema option of an answer's field that only one version's answer carries (a field the current
 * schema keeps optional so an older version's transform can read it): the other versions' OpenAPI
 * documents leave it out.
 */
export const onlyInVersionKeyword = 'x-only-in-version';

const known: ReadonlySet<string> = new Set(apiVersions);
export const isApiVersion = (value: string): value is ApiVersion => known.has(value);

/** An older version's answer of one route: the current answer turned into that version's shape. */
export interface VersionChange<Body> {
  /** What this version answers, for OpenAPI (one line). */
  description: string;
  /** The older answer's schema (OpenAPI; checked against in tests). */
  schema: TSchema;
  /**
   * Query fields that differ (OpenAPI: each version's document lists only its own): `only`, fields
   * only this version takes; `refused`, fields of the route this version refuses.
   */
  query?: { only?: readonly string[]; refused?: readonly string[] };
  response(body: Body): unknown;
}

/** Older versions whose answer differs from the current one; a version not listed gets the current answer. */
export type VersionChanges<Body> = Partial<Record<Exclude<ApiVersion, typeof currentApiVersion>, VersionChange<Body>>>;

/** The version a request is answered in: its header, else its client's pinned default, else the current one. */
export function apiVersionOf(ctx: AppContext): ApiVersion {
  return ctx.state.requestedApiVersion ?? ctx.state.pinnedApiVersion ?? currentApiVersion;
}

/**
 * Reads the Petcare-Version header and echoes the version used on every answer, errors included;
 * it is set last, once authentication knows the client's pin. A header that names no version
 * (unknown, malformed, or empty: an empty header is not "no header") is refused by the route's
 * pipeline (refuseUnknownApiVersion), before authentication but after routing, so a method the path
 * lacks is 405 with Allow and an unknown path 404, whatever the header says. No version is echoed
 * on that refusal.
 */
export function apiVersionMiddleware() {
  return async (ctx: AppContext, next: Next): Promise<void> => {
    // ctx.get() answers '' for an absent header too; the raw headers tell an empty one apart.
    const raw = ctx.req.headers[apiVersionHeaderKey];
    if (raw !== undefined) {
      const requested = Array.isArray(raw) ? raw.join(', ') : raw;
      if (isApiVersion(requested)) ctx.state.requestedApiVersion = requested;
      else ctx.state.unknownApiVersion = requested;
    }
    try {
      await next();
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'unsupported_api_version')) ctx.set(apiVersionHeader, apiVersionOf(ctx));
      throw err;
    }
    ctx.set(apiVersionHeader, apiVersionOf(ctx));
  };
}

/** 400 when the request's Petcare-Version names no version; called first by every matched route. */
export function refuseUnknownApiVersion(ctx: AppContext): void {
  const requested = ctx.state.unknownApiVersion;
  if (requested === undefined) return;
  const shown = requested === '' ? 'An empty Petcare-Version header' : `Petcare-Version '${requested.slice(0, 40)}'`;
  throw new AppError(
    'unsupported_api_version',
    `${shown} is not a version of this API; use one of ${apiVersions.join(', ')}, or send no header for the client's pinned version.`,
    {
      extensions: { supportedVersions: apiVersions },
    },
  );
}

/**
 * The body to send in the request's version. Runs on every answer, a replay included: the
 * idempotency store keeps the current-version body, so a replay answers in the replaying
 * request's version (the same shape when the version is the same).
 */
export function versionedBody(ctx: AppContext, changes: VersionChanges<unknown> | undefined, body: unknown, validate: boolean): unknown {
  if (!changes) return body;
  const version = apiVersionOf(ctx);
  if (version === currentApiVersion) return body;
  const change = changes[version];
  if (!change) return body;
  const older = change.response(body);
  if (validate) {
    try {
      validateShape(change.schema, older);
    } catch (err) {
      const detail = err instanceof AppError ? JSON.stringify(err.errors) : String(err);
      throw new Error(`the ${version} answer of ${ctx.method} ${ctx.state.route ?? '-'} does not match its schema: ${detail}`);
    }
  }
  return older;
}
