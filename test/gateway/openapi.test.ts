import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import { routeKey } from '../../src/http/router.js';
import { isPublic, type AnyRoute } from '../../src/http/route.js';
import { scopesOf } from '../../src/http/scopes.js';
import { deprecatedVersions } from '../../src/http/versioning.js';
import { useTestApp } from '../helpers/test-app.js';
import { packageVersion } from './gateway-support.js';

type Json = Record<string, any>;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let doc: Json;

const t = useTestApp(test);
test.before(async () => {
  const res = await t.request('GET', '/openapi.json');
  if (res.status !== 200) throw new Error(`openapi.json: ${res.status}`);
  doc = res.body;
});

const toOpenApiPath = (p: string) => p.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
const documented = (route: AnyRoute) => !(isPublic(route) && route.hidden);
const methods = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options', 'trace'];

/** Follows a local `#/components/...` reference. */
function deref(node: Json): Json {
  if (typeof node?.$ref !== 'string') return node;
  const target = (node.$ref as string)
    .replace(/^#\//, '')
    .split('/')
    .reduce((acc: Json | undefined, part) => acc?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  if (!target) throw new Error(`dangling $ref ${node.$ref}`);
  return deref(target);
}

test('the document is OpenAPI 3.1 with the platform version', (a) => {
  a.is(doc.openapi, '3.1.0');
  a.is(doc.info.version, packageVersion);
  a.is(typeof doc.info.title, 'string');
  a.truthy(doc.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl);
  a.truthy(doc.components.schemas.Problem);
});

test('every mounted route is documented with its method, parameters, body, response and security', (a) => {
  const routes = t.app.routes.filter(documented);
  a.true(routes.length > 20);
  for (const route of routes) {
    const where = routeKey(route);
    const op: Json | undefined = doc.paths[toOpenApiPath(route.path)]?.[route.method];
    if (!op) {
      a.fail(`${where} is missing from the document`);
      continue;
    }
    a.is(op.operationId, route.operationId, where);
    a.truthy(op.summary, where);

    // Path parameters: every :name in the path is a required path parameter.
    const pathParams = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);
    const params = (op.parameters as Json[]).map(deref);
    for (const name of pathParams)
      a.true(
        params.some((p) => p.in === 'path' && p.name === name && p.required === true),
        `${where} path param ${name}`,
      );
    // Query parameters: every property of the query schema, but those only an older API version takes (its own document lists them).
    const olderOnly = new Set(Object.values((route.versions ?? {}) as Record<string, Json>).flatMap((change) => change.query?.only ?? []));
    for (const name of Object.keys((route.query as Json | undefined)?.properties ?? {})) {
      if (olderOnly.has(name)) continue;
      a.true(
        params.some((p) => p.in === 'query' && p.name === name && p.schema),
        `${where} query param ${name}`,
      );
    }

    // Request body: present exactly when the route takes one, for each accepted media type, with the schema's fields.
    if (route.body) {
      a.true(op.requestBody?.required, `${where} requestBody`);
      for (const type of route.bodyTypes ?? ['application/json']) {
        const schema = deref(op.requestBody?.content?.[type]?.schema);
        a.truthy(schema, `${where} ${type} body schema`);
        // A body documented per kind (oneOf + discriminator) lists its fields in its members.
        if (schema?.oneOf) continue;
        a.deepEqual(Object.keys(schema?.properties ?? {}).sort(), Object.keys((route.body as Json).properties ?? {}).sort(), `${where} body fields`);
        a.deepEqual([...(schema?.required ?? [])].sort(), [...((route.body as Json).required ?? [])].sort(), `${where} required fields`);
      }
    } else {
      a.is(op.requestBody, undefined, `${where} has no body`);
    }

    // Success response with a schema, under the route's status and media type.
    const success = op.responses[String(route.response.status)];
    a.truthy(success, `${where} ${route.response.status} response`);
    const mediaType = route.response.contentType?.split(';')[0] ?? 'application/json';
    a.truthy(success?.content?.[mediaType]?.schema, `${where} response schema for ${mediaType}`);
    a.truthy(success?.headers?.['X-Request-Id'], `${where} X-Request-Id header`);

    // Errors: a 500 always; protected routes document 401/403/429 and their scope.
    a.truthy(op.responses['500'], `${where} 500`);
    if (isPublic(route)) {
      a.deepEqual(op.security, [], `${where} is public`);
    } else {
      // One security requirement per scope that will do (alternatives).
      const scopes = scopesOf(route.access.scope);
      a.deepEqual(
        op.security,
        scopes.map((scope) => ({ oauth2: [scope] })),
        `${where} security`,
      );
      for (const scope of scopes) a.true(scope in doc.components.securitySchemes.oauth2.flows.clientCredentials.scopes, `${where} scope ${scope} is declared`);
      for (const status of ['401', '403', '429']) a.truthy(op.responses[status], `${where} ${status}`);
      a.truthy(deref(op.responses['429'].headers['Retry-After']), `${where} 429 Retry-After`);
      a.truthy(success?.headers?.RateLimit, `${where} RateLimit header`);
      if (route.method !== 'get') {
        a.true(
          params.some((p) => p.in === 'header' && p.name === 'Idempotency-Key'),
          `${where} Idempotency-Key`,
        );
        for (const status of ['409', '422']) a.truthy(op.responses[status], `${where} ${status}`);
      }
    }
    if (route.params || route.query || route.body) a.truthy(op.responses['400'], `${where} 400`);
    for (const code of route.errors ?? []) {
      const entry = Object.values(op.responses as Record<string, Json>).find((r) => String(r.description).includes(`\`${code}\``));
      a.truthy(entry, `${where} documents ${code}`);
    }
  }
});

test('every tag in use has a description of its own', (a) => {
  const tags = doc.tags as Array<{ name: string; description: string }>;
  a.true(tags.length >= 10);
  for (const tag of tags) a.not(tag.description, tag.name, `tag ${tag.name} has no description in src/http/openapi.ts`);
});

test('the document lists nothing that is not mounted, and hides the docs assets', (a) => {
  const mounted = new Set<string>();
  for (const route of t.app.routes.filter(documented)) {
    mounted.add(`${route.method} ${toOpenApiPath(route.path)}`);
    for (const version of deprecatedVersions) {
      if (version.routes.includes(routeKey(route)))
        mounted.add(`${route.method} ${toOpenApiPath(version.prefix + route.path.slice(version.successorPrefix.length))}`);
    }
  }
  const listed = Object.entries(doc.paths as Record<string, Json>).flatMap(([p, item]) =>
    Object.keys(item)
      .filter((m) => methods.includes(m))
      .map((m) => `${m} ${p}`),
  );
  a.deepEqual(listed.sort(), [...mounted].sort());
  a.is(doc.paths['/docs/assets/{file}'], undefined);
  const operationIds = listed.map((key) => {
    const [method, p] = key.split(' ') as [string, string];
    return doc.paths[p][method].operationId as string;
  });
  a.is(new Set(operationIds).size, operationIds.length, 'operationIds are unique');
});

test('the /v0 twin is documented as deprecated, with its headers and its 410', (a) => {
  const twin: Json | undefined = doc.paths['/v0/pets/{id}']?.get;
  const current: Json = doc.paths['/v1/pets/{id}'].get;
  a.truthy(twin);
  a.is(twin?.deprecated, true);
  a.is(current.deprecated, undefined);
  a.not(twin?.operationId, current.operationId);
  a.deepEqual(twin?.responses['200'].content, current.responses['200'].content);
  a.deepEqual(twin?.security, current.security);
  for (const name of ['Deprecation', 'Sunset', 'Link']) {
    a.truthy(twin?.responses['200'].headers[name], `200 ${name}`);
    a.truthy(twin?.responses['410']?.headers?.[name], `410 ${name}`);
  }
  a.regex(twin?.responses['410'].description, /`gone`/);
  a.is(current.responses['410'], undefined);
  // The other listed twin, GET /v0/payments, is documented the same way.
  const payments: Json | undefined = doc.paths['/v0/payments']?.get;
  a.is(payments?.deprecated, true);
  a.deepEqual(payments?.responses['200'].content, doc.paths['/v1/payments'].get.responses['200'].content);
  a.truthy(payments?.responses['410']?.headers?.Sunset);
});

test('error responses point at the problem schema; OAuth endpoints at the OAuth error schema', (a) => {
  const problem = doc.components.schemas.Problem;
  for (const member of ['type', 'title', 'status', 'detail', 'code', 'requestId', 'instance']) a.true(problem.required.includes(member), member);
  for (const [p, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const [method, op] of Object.entries(item)) {
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        if (Number(status) < 400) continue;
        const expected = p.startsWith('/oauth/')
          ? { 'application/json': '#/components/schemas/OAuthError' }
          : { 'application/problem+json': '#/components/schemas/Problem' };
        a.deepEqual(
          Object.fromEntries(Object.entries(response.content as Record<string, Json>).map(([type, media]) => [type, media.schema.$ref])),
          expected,
          `${method} ${p} ${status}`,
        );
      }
    }
  }
});

test('redocly lint finds no errors in the document', async (a) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'petcare-openapi-'));
  try {
    const file = path.join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc, null, 2));
    const bin = path.join(root, 'node_modules/.bin/redocly');
    let stdout = '';
    let failed: unknown = null;
    try {
      ({ stdout } = await promisify(execFile)(bin, ['lint', '--config', path.join(root, 'redocly.yaml'), '--format', 'json', file], {
        cwd: root,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
        maxBuffer: 32 * 1024 * 1024,
        timeout: 50_000,
      }));
    } catch (err) {
      failed = err;
      stdout = String((err as { stdout?: string }).stdout ?? '');
    }
    const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as {
      totals: { errors: number; warnings: number };
      problems: Array<{ ruleId: string; severity: string; message: string; location: Array<{ pointer?: string }> }>;
    };
    const errors = report.problems.filter((p) => p.severity === 'error');
    a.deepEqual(
      errors.map((p) => `${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`),
      [],
    );
    a.is(report.totals.errors, 0);
    a.is(failed, null, 'redocly exited non-zero');
    // Warnings are allowed but kept at zero today; print any that appear so they get looked at.
    if (report.totals.warnings > 0) a.log(report.problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer ?? ''}`).join('\n'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
