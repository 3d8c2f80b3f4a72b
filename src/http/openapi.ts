import type { TSchema } from '@sinclair/typebox';
import { apiVersionChangelog, apiVersionHeader, apiVersions, currentApiVersion, type VersionChange } from './api-versions.js';
import { isOAuthPath, oauthErrorValues } from './error-handler.js';
import { documentedErrorCodes, errorCodes, type ErrorCode } from './errors.js';
import { documentInputRules } from './input-strings.js';
import { routeKey } from './router.js';
import { isPublic, type AnyRoute } from './route.js';
import { allScopes, scopesOf } from './scopes.js';
import { deprecatedVersions } from './versioning.js';

type Json = Record<string, unknown>;

/** TypeBox schemas are JSON Schema plus symbols and `$id`s; keep only what belongs in the document. */
function clean(schema: TSchema): Json {
  return JSON.parse(JSON.stringify(schema), (key, value: unknown) => (key === '$id' ? undefined : value)) as Json;
}

const toOpenApiPath = (path: string): string => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

function parameters(route: AnyRoute): Json[] {
  const out: Json[] = [];
  for (const [location, schema] of [
    ['path', route.params],
    ['query', route.query],
  ] as const) {
    if (!schema) continue;
    const documented = clean(schema);
    documentInputRules(documented);
    const { properties = {}, required = [] } = documented as { properties?: Record<string, Json>; required?: string[] };
    for (const [name, property] of Object.entries(properties)) {
      const { description, ...rest } = property;
      out.push({
        name,
        in: location,
        required: location === 'path' || required.includes(name),
        ...(description ? { description } : {}),
        schema: rest,
      });
    }
  }
  return out;
}

const headerRef = (name: string): Json => ({ $ref: `#/components/headers/${name}` });

/** Headers the gateway puts on every response. */
const commonHeaders = (): Json => ({
  'X-Request-Id': headerRef('X-Request-Id'),
  'X-Platform-Version': headerRef('X-Platform-Version'),
  [apiVersionHeader]: headerRef(apiVersionHeader),
});
const rateLimitHeaders = (): Json => ({ RateLimit: headerRef('RateLimit'), 'RateLimit-Policy': headerRef('RateLimit-Policy') });
const deprecationHeaders = (): Json => ({ Deprecation: headerRef('Deprecation'), Sunset: headerRef('Sunset'), Link: headerRef('Link') });

function problemResponse(route: AnyRoute, status: number, codes: ErrorCode[], extraHeaders: Json = {}): Json {
  const headers: Json = { ...commonHeaders(), ...extraHeaders };
  if (status === 429) Object.assign(headers, rateLimitHeaders(), { 'Retry-After': headerRef('Retry-After') });
  if (status === 401 && !isPublic(route)) headers['WWW-Authenticate'] = headerRef('WWW-Authenticate');
  const content = isOAuthPath(route.path)
    ? { 'application/json': { schema: { $ref: '#/components/schemas/OAuthError' } } }
    : { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } };
  return { description: codes.map((c) => `\`${c}\`: ${errorCodes[c].title}`).join('; '), headers, content };
}

function errorResponses(route: AnyRoute, extraCodes: ErrorCode[], extraHeaders: Json): Record<string, Json> {
  const codes: ErrorCode[] = [...(route.errors ?? []), ...extraCodes, 'unsupported_api_version'];
  if (route.params || route.query || route.body) codes.push('validation_failed');
  if (route.body) codes.push('malformed_json', 'payload_too_large', 'unsupported_media_type');
  if (!isPublic(route)) {
    codes.push('unauthorized', 'invalid_token', 'insufficient_scope', 'ip_not_allowed', 'rate_limited');
    if (route.access.roles) codes.push('forbidden_role');
    if (route.tenantWide !== undefined) codes.push('tenant_wide_only');
    if (route.method !== 'get') codes.push('invalid_idempotency_key', 'idempotency_key_in_use', 'idempotency_key_mismatch');
  }
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = errorCodes[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, Json> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) responses[String(status)] = problemResponse(route, status, list, extraHeaders);
  responses['500'] = problemResponse(route, 500, ['internal_error'], extraHeaders);
  return responses;
}

interface OperationVariant {
  operationId?: string;
  description?: string;
  deprecated?: boolean;
  /** Error codes only this variant answers (the deprecated twin's 410). */
  extraCodes?: ErrorCode[];
  /** Headers on every response of this variant. */
  extraHeaders?: Json;
}

/** The success body by media type: the route's own, then each other type it may answer with (text as a string, anything else as bytes). */
function successContent(route: AnyRoute, contentType: string): Json {
  const content: Json = { [contentType]: { schema: successSchema(route) } };
  for (const other of route.response.contentTypes ?? []) {
    const type = other.split(';')[0]!.trim();
    content[type] = { schema: type.startsWith('text/') ? { type: 'string' } : { type: 'string', format: 'binary' } };
  }
  return content;
}

function operation(route: AnyRoute, variant: OperationVariant = {}): Json {
  const contentType = route.response.contentType?.split(';')[0] ?? 'application/json';
  const extraHeaders = variant.extraHeaders ?? {};
  const successHeaders: Json = { ...commonHeaders(), ...extraHeaders };
  if (!isPublic(route)) Object.assign(successHeaders, rateLimitHeaders());
  if (!isPublic(route) && route.method !== 'get') successHeaders['Idempotent-Replayed'] = headerRef('Idempotent-Replayed');
  const op: Json = {
    operationId: variant.operationId ?? route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: route.tags,
    ...(route.emits?.length ? { 'x-emits': [...route.emits] } : {}),
    parameters: parameters(route),
    responses: {
      ...Object.fromEntries(
        [{ status: route.response.status, description: route.response.description }, ...(route.response.also ?? [])].map(({ status, description }) => [
          String(status),
          // 304 carries no body (RFC 9110 §15.4.5).
          status === 304 ? { description, headers: successHeaders } : { description, headers: successHeaders, content: successContent(route, contentType) },
        ]),
      ),
      ...errorResponses(route, variant.extraCodes ?? [], extraHeaders),
    },
    // OpenAPI security requirements are alternatives: one entry per scope that will do.
    security: isPublic(route) ? [] : scopesOf(route.access.scope).map((scope) => ({ oauth2: [scope] })),
  };
  if (!isPublic(route)) {
    const roles = route.access.roles ? ` Roles: ${route.access.roles.join(', ')}.` : '';
    const tenantWide = route.tenantWide !== undefined ? ' Tenant-wide: a client confined to locations is refused (403 `tenant_wide_only`).' : '';
    const scopes = scopesOf(route.access.scope);
    op.description = `${route.description ? `${route.description}\n\n` : ''}Scope: ${scopes.map((s) => `\`${s}\``).join(' or ')}.${roles}${tenantWide}`;
    op['x-required-scope'] = scopes.length === 1 ? scopes[0] : scopes;
    if (route.method !== 'get') {
      (op.parameters as Json[]).push({ $ref: '#/components/parameters/Idempotency-Key' });
    }
  }
  if (route.body) {
    const schema = clean(route.body);
    documentInputRules(schema);
    op.requestBody = {
      required: true,
      content: Object.fromEntries((route.bodyTypes ?? ['application/json']).map((t) => [t, { schema }])),
    };
  }
  if (route.versions) {
    const older = versionChanges(route);
    op['x-api-versions'] = Object.fromEntries(older.map(([version, change]) => [version, { description: change.description }]));
    const lines = [
      `- \`${currentApiVersion}\` (current): ${route.response.description}.`,
      ...older.map(([version, change]) => `- \`${version}\`: ${change.description}`),
    ];
    op.description = `${String(op.description ?? '')}\n\nThe answer by API version (\`${apiVersionHeader}\`; one shape each in the response's \`oneOf\`):\n${lines.join('\n')}`;
  }
  (op.parameters as Json[]).push({ $ref: `#/components/parameters/${apiVersionHeader}` });
  if (variant.description) op.description = op.description ? `${variant.description}\n\n${String(op.description)}` : variant.description;
  if (variant.deprecated) op.deprecated = true;
  return op;
}

/** Older versions' answers of a route, oldest first. */
const versionChanges = (route: AnyRoute): Array<[string, VersionChange<unknown>]> =>
  apiVersions.flatMap((version) => {
    const change = (route.versions as Record<string, VersionChange<unknown> | undefined> | undefined)?.[version];
    return change ? [[version, change] as [string, VersionChange<unknown>]] : [];
  });

/** The success schema; a route whose answer changed between versions documents each shape (oneOf, titled by version). */
function successSchema(route: AnyRoute): Json {
  const current = clean(route.response.schema);
  if (!route.versions) return current;
  return {
    oneOf: [
      { ...current, title: `${currentApiVersion} (current)` },
      ...versionChanges(route).map(([version, change]) => ({ ...clean(change.schema), title: version, description: change.description })),
    ],
  };
}

const header = (description: string, schema: Json = { type: 'string' }): Json => ({ description, schema });

const componentHeaders: Record<string, Json> = {
  'X-Request-Id': header('The request id: the one sent (when 1–128 of `A-Za-z0-9._:-`) or a generated UUID. Quoted in problem documents and the audit trail.'),
  'X-Platform-Version': header('The platform release answering the call.'),
  RateLimit: header('Remaining quota and seconds until a slot frees, e.g. `"default";r=599;t=60` (IETF httpapi ratelimit-headers).'),
  'RateLimit-Policy': header('The client quota per rolling window, e.g. `"default";q=600;w=60`.'),
  'Retry-After': header('Seconds to wait before retrying.', { type: 'integer', minimum: 0 }),
  'Idempotent-Replayed': header('`true` when this is the stored response of an earlier request with the same Idempotency-Key.', {
    type: 'string',
    enum: ['true'],
  }),
  'WWW-Authenticate': header('Bearer challenge (RFC 6750).'),
  Deprecation: header('RFC 9745: `@<unix seconds>` when this version was deprecated.'),
  Sunset: header('RFC 8594: the HTTP date from which this version answers 410.'),
  Link: header('The successor version of this resource: `<path>; rel="successor-version"`.'),
  [apiVersionHeader]: header(
    "The dated API version this answer follows: the request's Petcare-Version, else the client's pinned `apiVersion`, else the current one. " +
      'Absent only on the 400 `unsupported_api_version`.',
    { type: 'string', enum: [...apiVersions] },
  ),
};

/** The info description's part on what every request's input must be (the validator's rules, src/http/input-strings.ts). */
const inputRulesDescription =
  '**Input rules.** Date-times are ISO 8601 with `Z` or an offset within −14:00…+14:00 whose minutes are below 60 (`+14:01`, `-25:30` and `+99:99` ' +
  'are 400 on the field, on every field); dates are `YYYY-MM-DD`; both take years 0001–9999 only, and nothing is rolled over (2026-02-30, 24:00 are 400). ' +
  'Free-text strings (JSON bodies and query strings; each documents its kind in `x-text`) take no control characters: one-line fields none, ' +
  "multi-line fields (notes, descriptions, comments…) only tab, LF and CR, a document's `text` also form feed; never DEL, C1 controls (U+007F–U+009F) " +
  'or unpaired surrogates; names also no bidirectional override, embedding or isolate controls (U+202A–U+202E, U+2066–U+2069). A refused ' +
  'string is 400 `validation_failed` naming the field. Ids, enums, dates and uploaded files keep their own rules. ' +
  'An empty `Idempotency-Key` or `Petcare-Version` header is 400, never taken as absent; a method a path does not have is 405 with `Allow`, ' +
  'answered before any header is read.';

/** The info description's part on dated versions: the rule and the changelog as a table. */
function versionsDescription(): string {
  const rows = apiVersionChangelog.map(
    ({ version, changes }) => `| \`${version}\`${version === currentApiVersion ? ' (current)' : ''} | ${changes.join(' ')} |`,
  );
  return [
    `**Versions within v1.** Send \`${apiVersionHeader}: YYYY-MM-DD\` to choose the answers of a dated version; without it a call gets its client's pinned ` +
      `\`apiVersion\`. Every answer echoes \`${apiVersionHeader}\`; an unknown version is 400 \`unsupported_api_version\`. An idempotent replay answers ` +
      "in the version of the replaying request. Operations whose answer changed list each version's shape (`oneOf`, titled by version, and `x-api-versions`).",
    '',
    '| Version | Changes |',
    '|---|---|',
    ...rows,
  ].join('\n');
}

/**
 * OpenAPI 3.1, generated from the same route declarations that validate requests. `tagDescriptions`:
 * each tag's description, from the modules' manifests (`tagDescriptionsOf`); tags are listed sorted.
 */
export function buildOpenApi(routes: readonly AnyRoute[], platformVersion: string, tagDescriptions: Readonly<Record<string, string>>): Json {
  const paths: Record<string, Record<string, Json>> = {};
  const add = (path: string, method: string, op: Json) => {
    paths[path] = { ...(paths[path] ?? {}), [method]: op };
  };
  for (const route of routes) {
    if (isPublic(route) && route.hidden) continue;
    add(toOpenApiPath(route.path), route.method, operation(route));
    for (const version of deprecatedVersions) {
      if (!version.routes.includes(routeKey(route))) continue;
      const oldPath = version.prefix + route.path.slice(version.successorPrefix.length);
      add(
        toOpenApiPath(oldPath),
        route.method,
        operation(route, {
          operationId: `${route.operationId}${version.prefix.slice(1).toUpperCase()}`,
          deprecated: true,
          description: `Deprecated twin of ${route.method.toUpperCase()} ${route.path}; answers the same with Deprecation, Sunset and Link headers, and 410 from ${version.sunsetAt.toISOString()} on.`,
          extraCodes: ['gone'],
          extraHeaders: deprecationHeaders(),
        }),
      );
    }
  }
  const usedTags = [...new Set(routes.flatMap((r) => r.tags))].sort();
  return {
    openapi: '3.1.0',
    info: {
      title: 'Pet-Care Platform API',
      version: platformVersion,
      description:
        'Self-hosted API for clinic groups. Authenticate with OAuth 2.0 client credentials at /oauth/token and send `Authorization: Bearer <token>`. ' +
        'Errors are RFC 9457 problem+json with a stable `code`. Lists use cursor paging (`limit` 1–100, `cursor`) and return `{data, nextCursor, hasMore}`, newest first. ' +
        'Writes accept an `Idempotency-Key`. Each client may make 600 requests per rolling minute unless configured otherwise (RateLimit headers on every response).\n\n' +
        inputRulesDescription +
        '\n\n' +
        versionsDescription(),
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    'x-api-versions': { header: apiVersionHeader, current: currentApiVersion, versions: apiVersionChangelog },
    servers: [{ url: '/', description: 'This appliance' }],
    tags: usedTags.map((name) => ({ name, description: tagDescriptions[name] ?? name })),
    paths,
    components: {
      securitySchemes: {
        oauth2: {
          type: 'oauth2',
          description: 'Client credentials; `<area>` grants read and write, `<area>.read` read only. Roles cap what a client may hold.',
          flows: {
            clientCredentials: {
              tokenUrl: '/oauth/token',
              refreshUrl: '/oauth/token',
              scopes: Object.fromEntries(allScopes.map((s) => [s, s.endsWith('.read') ? `Read ${s.slice(0, -5)}` : `Read and write ${s}`])),
            },
          },
        },
      },
      headers: componentHeaders,
      parameters: {
        [apiVersionHeader]: {
          name: apiVersionHeader,
          in: 'header',
          required: false,
          description:
            "Dated API version (YYYY-MM-DD) to answer in; default: the client's pinned `apiVersion` (set at creation to the current one, " +
            'changed with PATCH /v1/clients/{id}). An unknown, malformed or empty version answers 400 `unsupported_api_version` (an empty header is not ' +
            'taken as absent). The answer echoes the version used.',
          schema: { type: 'string', enum: [...apiVersions] },
        },
        'Idempotency-Key': {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'Client-chosen key (1–255 visible ASCII), scoped to the client. A retry with the same key and body replays the first response for 24 h; another body answers 422. ' +
            'An empty or malformed key is 400 `invalid_idempotency_key`: never run as a write without a key.',
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
        },
      },
      schemas: {
        Problem: {
          type: 'object',
          description: 'RFC 9457 problem details.',
          required: ['type', 'title', 'status', 'detail', 'code', 'requestId', 'instance'],
          properties: {
            type: { type: 'string', description: 'urn:petcare:error:<code>' },
            title: { type: 'string' },
            status: { type: 'integer' },
            detail: { type: 'string' },
            code: { type: 'string', enum: documentedErrorCodes() },
            requestId: { type: 'string', description: 'Same as the X-Request-Id response header.' },
            instance: { type: 'string', description: 'The request path.' },
            errors: {
              type: 'array',
              description: 'Per-field problems (validation).',
              items: {
                type: 'object',
                required: ['field', 'message'],
                properties: { field: { type: 'string' }, message: { type: 'string' } },
              },
            },
          },
        },
        OAuthError: {
          description: 'RFC 6749 §5.2 error response; it also carries every RFC 9457 problem member.',
          allOf: [
            { $ref: '#/components/schemas/Problem' },
            {
              type: 'object',
              required: ['error'],
              properties: {
                error: { type: 'string', enum: [...oauthErrorValues] },
                error_description: { type: 'string' },
              },
            },
          ],
        },
      },
    },
  };
}
