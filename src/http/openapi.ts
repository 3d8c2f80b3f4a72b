import type { TSchema } from '@sinclair/typebox';
import {
  apiVersionChangelog,
  apiVersionHeader,
  apiVersions,
  currentApiVersion,
  onlyInVersionKeyword,
  type ApiVersion,
  type VersionChange,
} from './api-versions.js';
import { isOAuthPath, oauthErrorValues } from './error-handler.js';
import { documentedErrorCodes, errorCodes, type ErrorCode } from './errors.js';
import { documentInputRules } from './input-strings.js';
import { exampleOf } from './openapi-examples.js';
import { normalizeSchema, pascal, SchemaNamer, singular } from './openapi-components.js';
import { routeKey } from './router.js';
import { documentedAsKeyword } from './schema-fields.js';
import { isPublic, type AnyRoute } from './route.js';
import { allScopes, scopesOf } from './scopes.js';
import { deprecatedVersions } from './versioning.js';

type Json = Record<string, unknown>;

/** TypeBox schemas are JSON Schema plus symbols and `$id`s; keep only what belongs in the document. */
function clean(schema: TSchema): Json {
  return JSON.parse(JSON.stringify(schema), (key, value: unknown) => (key === '$id' ? undefined : value)) as Json;
}

const toOpenApiPath = (path: string): string => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** Query fields a version does not take: an older version's own (`only`) outside it, and those it refuses (`refused`) in it. */
function queryFieldsOutside(route: AnyRoute, version: ApiVersion): Set<string> {
  const hidden = new Set<string>();
  for (const [v, change] of versionChanges(route)) {
    if (v === version) for (const name of change.query?.refused ?? []) hidden.add(name);
    else for (const name of change.query?.only ?? []) hidden.add(name);
  }
  return hidden;
}

function parameters(route: AnyRoute, version: ApiVersion): Json[] {
  const out: Json[] = [];
  const hidden = queryFieldsOutside(route, version);
  for (const [location, schema] of [
    ['path', route.params],
    ['query', route.query],
  ] as const) {
    if (!schema) continue;
    const documented = clean(schema);
    documentInputRules(documented);
    const { properties = {}, required = [] } = documented as { properties?: Record<string, Json>; required?: string[] };
    for (const [name, property] of Object.entries(properties)) {
      if (location === 'query' && hidden.has(name)) continue;
      const { description, ...rest } = normalizeSchema(property) as Json;
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

/** What every operation of one document shares: its API version and the named schemas its operations `$ref`. */
interface DocumentContext {
  version: ApiVersion;
  namer: SchemaNamer;
}

/** The named schema of a route's answer in a version: `getPet` → `Pet`, `listPets` → `PetPage` of `Pet`, else `<OperationId>Result` (not `…Response`, which generators such as @hey-api/openapi-ts name their own types). */
function namedSuccess(route: AnyRoute, context: DocumentContext): unknown {
  const schema = normalizeSchema(successSchema(route, context.version)) as Json;
  const { namer } = context;
  const id = route.operationId;
  const listed = /^list([A-Z]\w*)$/.exec(id);
  const data = (schema.properties as Record<string, Json> | undefined)?.data;
  if (listed && schema.type === 'object' && data?.type === 'array') {
    let item = singular(listed[1]!);
    const items = namer.name(data.items, item, item, true, `${item}Summary`) as Json;
    if (typeof items.$ref === 'string') item = items.$ref.split('/').pop()!;
    const page = 'hasMore' in (schema.properties as Json) ? `${item}Page` : `${item}List`;
    return namer.name({ ...schema, properties: { ...(schema.properties as Json), data: { ...data, items } } }, page, page, true);
  }
  const got = /^get([A-Z]\w*)$/.exec(id);
  return namer.name(schema, got ? got[1]! : `${pascal(id)}Result`, got ? got[1]! : `${pascal(id)}Result`, true);
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
function successContent(route: AnyRoute, contentType: string, context: DocumentContext): Json {
  const example = exampleOf(successSchema(route, context.version)) ?? (contentType.startsWith('text/') ? textExample(contentType) : undefined);
  const content: Json = { [contentType]: { schema: namedSuccess(route, context), ...(example === undefined ? {} : { example }) } };
  for (const other of route.response.contentTypes ?? []) {
    const type = other.split(';')[0]!.trim();
    content[type] = type.startsWith('text/') ? { schema: { type: 'string' }, example: textExample(type) } : { schema: { type: 'string', format: 'binary' } };
  }
  return content;
}

/** The example of a text answer beside a JSON one (a CSV export's first lines). */
const textExample = (type: string): string =>
  ({
    'text/csv': 'bucket,value\r\n2026-11-02,1\r\n',
    'text/event-stream': 'id: evt_01jexample0000000000000000\nevent: pet.created\ndata: {"type":"pet.created"}\n\n',
    'text/html': '<!doctype html><html>…</html>',
  })[type] ?? 'Example text.';

function operation(route: AnyRoute, context: DocumentContext, variant: OperationVariant = {}): Json {
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
    parameters: parameters(route, context.version),
    responses: {
      ...Object.fromEntries(
        [{ status: route.response.status, description: route.response.description }, ...(route.response.also ?? [])].map(({ status, description }) => [
          String(status),
          // 304 carries no body (RFC 9110 §15.4.5).
          status === 304
            ? { description, headers: successHeaders }
            : { description, headers: successHeaders, content: successContent(route, contentType, context) },
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
    // A body documented as another shape (`x-documented-as`: a kind-dependent body as oneOf) shows that one.
    const cleaned = clean(route.body);
    const documented = (cleaned[documentedAsKeyword] as Json | undefined) ?? cleaned;
    documentInputRules(documented);
    const schema = context.namer.name(normalizeSchema(documented), `${pascal(route.operationId)}Request`, `${pascal(route.operationId)}Request`, true);
    op.requestBody = {
      required: true,
      content: Object.fromEntries(
        (route.bodyTypes ?? ['application/json']).map((t) => {
          const example = exampleOf(JSON.parse(JSON.stringify(documented)), undefined, 0, t === 'application/json');
          return [t, { schema, ...(example === undefined ? {} : { example }) }];
        }),
      ),
    };
  }
  if (route.versions) {
    const older = versionChanges(route);
    op['x-api-versions'] = Object.fromEntries(older.map(([version, change]) => [version, { description: change.description }]));
    const lines = [
      `- \`${currentApiVersion}\` (current): ${route.response.description}.`,
      ...older.map(([version, change]) => `- \`${version}\`: ${change.description}`),
    ];
    op.description =
      `${String(op.description ?? '')}\n\nThe answer by API version (\`${apiVersionHeader}\`; this document describes \`${context.version}\`, ` +
      `\`/openapi.json?version=<version>\` each other one):\n${lines.join('\n')}`;
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

/** The success schema in a version: the route's own, or the older version's answer where it changed. */
function successSchema(route: AnyRoute, version: ApiVersion): Json {
  const change = versionChanges(route).find(([v]) => v === version)?.[1];
  return withoutOtherVersions(change ? { ...clean(change.schema), description: change.description } : clean(route.response.schema), version);
}

/** Drops the fields another version's answer alone carries (`x-only-in-version`), at any depth. */
function withoutOtherVersions(schema: Json, version: ApiVersion): Json {
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (!node || typeof node !== 'object') return node;
    const out: Json = {};
    for (const [key, value] of Object.entries(node as Json)) {
      if (key === onlyInVersionKeyword) continue;
      if (key === 'properties') {
        const kept = Object.entries(value as Json).filter(([, p]) => {
          const only = (p as Json)[onlyInVersionKeyword];
          return only === undefined || only === version;
        });
        out[key] = Object.fromEntries(kept.map(([k, p]) => [k, visit(p)]));
      } else out[key] = visit(value);
    }
    if (Array.isArray(out.required) && out.properties) out.required = (out.required as string[]).filter((r) => r in (out.properties as Json));
    return out;
  };
  return visit(schema) as Json;
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

/** The problem documents every error answers with (named first; operations' schemas are added after them). */
const problemSchemas: Record<string, Json> = {
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
        items: { $ref: '#/components/schemas/FieldError' },
      },
    },
  },
  FieldError: {
    type: 'object',
    description: 'One refused field of a 400 `validation_failed`.',
    required: ['field', 'message'],
    properties: { field: { type: 'string' }, message: { type: 'string' } },
  },
  OAuthError: {
    description: 'RFC 6749 §5.2 error response; it also carries every RFC 9457 problem member.',
    allOf: [{ $ref: '#/components/schemas/Problem' }, { $ref: '#/components/schemas/OAuthErrorMembers' }],
  },
  OAuthErrorMembers: {
    type: 'object',
    description: 'The RFC 6749 members of an OAuth error.',
    required: ['error'],
    properties: {
      error: { type: 'string', enum: [...oauthErrorValues] },
      error_description: { type: 'string' },
    },
  },
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
      'in the version of the replaying request. This document describes one version (`x-api-versions.described`); `/openapi.json?version=<version>` ' +
      "serves each other one, with only that version's parameters and answers. Operations whose answer changed say so in `x-api-versions`.",
    '',
    '| Version | Changes |',
    '|---|---|',
    ...rows,
  ].join('\n');
}

/**
 * OpenAPI 3.1, generated from the same route declarations that validate requests. `tagDescriptions`:
 * each tag's description, from the modules' manifests (`tagDescriptionsOf`); tags are listed sorted.
 * `version`: the dated API version described (its parameters and answers only); default the current one.
 * Schemas are named in components (src/http/openapi-components.ts); each operation has examples.
 */
export function buildOpenApi(
  routes: readonly AnyRoute[],
  platformVersion: string,
  tagDescriptions: Readonly<Record<string, string>>,
  version: ApiVersion = currentApiVersion,
): Json {
  const context: DocumentContext = { version, namer: new SchemaNamer(problemSchemas) };
  // Resources first, so an answer's name is its resource's (`getPet` → Pet, `listWalletTransactions` → WalletTransaction) wherever else it is answered.
  for (const verb of [/^get[A-Z]/, /^list[A-Z]/])
    for (const route of routes) if (verb.test(route.operationId) && !(isPublic(route) && route.hidden)) namedSuccess(route, context);
  const paths: Record<string, Record<string, Json>> = {};
  const add = (path: string, method: string, op: Json) => {
    paths[path] = { ...(paths[path] ?? {}), [method]: op };
  };
  for (const route of routes) {
    if (isPublic(route) && route.hidden) continue;
    add(toOpenApiPath(route.path), route.method, operation(route, context));
    for (const version of deprecatedVersions) {
      if (!version.routes.includes(routeKey(route))) continue;
      const oldPath = version.prefix + route.path.slice(version.successorPrefix.length);
      add(
        toOpenApiPath(oldPath),
        route.method,
        operation(route, context, {
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
    'x-api-versions': { header: apiVersionHeader, current: currentApiVersion, described: version, versions: apiVersionChangelog },
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
      schemas: context.namer.schemas,
    },
  };
}
