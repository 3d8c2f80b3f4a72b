import test from 'ava';
import { startTestApp, useTestApp } from '../helpers/test-app.js';
import { assertProblem, packageVersion } from './gateway-support.js';

const t = useTestApp(test);

// Public endpoints ignore credentials: a broken Authorization header must not turn a probe red.
const callers: Array<{ label: string; headers: Record<string, string> }> = [
  { label: 'no token', headers: {} },
  { label: 'a broken token', headers: { authorization: 'Bearer not-a-token' } },
];

for (const { label, headers } of callers) {
  test(`/healthz, /readyz, /version answer without a token (${label})`, async (a) => {
    const health = await t.request('GET', '/healthz', { headers });
    a.is(health.status, 200);
    a.deepEqual(health.body, { status: 'ok' });

    const ready = await t.request('GET', '/readyz', { headers });
    a.is(ready.status, 200);
    a.deepEqual(ready.body, { status: 'ready', environments: ['live', 'sandbox'] });

    const version = await t.request('GET', '/version', { headers });
    a.is(version.status, 200);
    a.is(version.body.platformVersion, packageVersion);
    a.true(version.body.apiVersions.includes('v1'));
    a.is(version.body.node, process.version);
    for (const res of [health, ready, version]) {
      a.is(res.headers.get('content-type'), 'application/json; charset=utf-8');
      a.is(res.headers.get('x-platform-version'), packageVersion);
      a.is(res.headers.get('ratelimit'), null, 'public probes are not rate limited per client');
    }
  });
}

test('/metrics is Prometheus text with request counters by route and status', async (a) => {
  await t.request('GET', '/healthz');
  await t.request('GET', '/no-such-route');
  const res = await t.request('GET', '/metrics');
  a.is(res.status, 200);
  a.regex(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const text = res.text;
  a.regex(text, /^# HELP petcare_http_requests_total /m);
  a.regex(text, /^# TYPE petcare_http_requests_total counter$/m);
  a.regex(text, /^petcare_http_requests_total\{method="GET",route="GET \/healthz",status="200"\} [1-9]\d*$/m);
  a.regex(text, /^petcare_http_requests_total\{method="GET",route="unmatched",status="404"\} [1-9]\d*$/m);
  a.regex(text, /^# TYPE petcare_http_request_duration_seconds histogram$/m);
  a.regex(text, /^petcare_http_request_duration_seconds_bucket\{method="GET",route="GET \/healthz",status="200",le="\+Inf"\} \d+$/m);
  a.regex(text, /^petcare_audit_buffered_rows \d+$/m);
  // Every sample line is `name{labels} value` or `name value`.
  for (const line of text.split('\n').filter((l) => l && !l.startsWith('#'))) {
    a.regex(line, /^[a-z_]+(\{[^}]*\})? -?[\d.e+-]+$/, line);
  }
  // Routes are labelled by template, never by raw path (bounded cardinality).
  await t.request('GET', '/v1/pets/pet_abc', { token: await t.adminToken() });
  const after = (await t.request('GET', '/metrics')).text;
  a.regex(after, /route="GET \/v1\/pets\/:id",status="404"/);
  a.false(after.includes('pet_abc'));
});

test('/docs is an HTML page that loads only local /docs/assets/ files', async (a) => {
  const res = await t.request('GET', '/docs');
  a.is(res.status, 200);
  a.is(res.headers.get('content-type'), 'text/html; charset=utf-8');
  a.regex(res.text, /^<!doctype html>/i);
  a.regex(res.headers.get('content-security-policy') ?? '', /default-src 'self'/);
  a.is(res.headers.get('x-content-type-options'), 'nosniff');
  const refs = [...res.text.matchAll(/\b(?:src|href)\s*=\s*["']([^"']+)["']/gi)].map((m) => m[1] as string);
  a.true(refs.length >= 3);
  for (const ref of refs) a.regex(ref, /^\/docs\/assets\/[\w.-]+$/, `non-local reference ${ref}`);
  a.notRegex(res.text, /https?:\/\//);
  a.notRegex(res.text, /\/\/cdn|unpkg|jsdelivr/);

  const expected: Record<string, RegExp> = { css: /^text\/css/, js: /^(application|text)\/javascript/ };
  for (const ref of refs) {
    const asset = await t.request('GET', ref);
    a.is(asset.status, 200, ref);
    const ext = ref.split('.').pop() as string;
    a.regex(asset.headers.get('content-type') ?? '', expected[ext] ?? /^$/, ref);
    a.true(asset.text.length > 0);
    a.is(asset.headers.get('x-content-type-options'), 'nosniff');
  }
  // The init script points Swagger UI at the local document.
  const init = await t.request('GET', '/docs/assets/docs-init.js');
  a.regex(init.text, /url: '\/openapi\.json'/);
});

test('/docs/assets/ serves only its own files', async (a) => {
  for (const path of ['/docs/assets/package.json', '/docs/assets/..%2F..%2Fpackage.json', '/docs/assets/index.html', '/docs/assets/swagger-ui-bundle.js.map']) {
    const res = await t.request('GET', path);
    assertProblem(a, res, 404, 'route_not_found');
  }
  assertProblem(a, await t.request('GET', '/docs/assets/../../package.json'), 404, 'route_not_found');
});

test('/openapi.json is served without a token', async (a) => {
  const res = await t.request('GET', '/openapi.json');
  a.is(res.status, 200);
  a.regex(res.headers.get('content-type') ?? '', /^application\/json/);
  a.is(res.body.openapi, '3.1.0');
  a.is(res.body.info.version, packageVersion);
});

test('a failing database: /readyz is 503 and an unexpected error is a bare 500 problem', async (a) => {
  const app = await startTestApp();
  try {
    const sandboxToken = await app.adminToken('sandbox');
    await app.stores.get('sandbox').db.destroy();

    const ready = await app.request('GET', '/readyz');
    assertProblem(a, ready, 503, 'service_unavailable', '/readyz');
    a.regex(ready.body.detail, /sandbox/);

    const res = await app.request('GET', '/v1/pets', { token: sandboxToken, headers: { 'x-request-id': 'boom-1' } });
    assertProblem(a, res, 500, 'internal_error', '/v1/pets');
    a.is(res.body.requestId, 'boom-1');
    a.is(res.headers.get('x-platform-version'), packageVersion);
    // Nothing about the cause reaches the client.
    a.notRegex(res.text, /destroy|kysely|sqlite|driver/i);
    a.deepEqual(Object.keys(res.body).sort(), ['code', 'detail', 'instance', 'requestId', 'status', 'title', 'type']);

    // The live environment keeps working.
    a.is((await app.request('GET', '/v1/pets', { token: await app.adminToken('live') })).status, 200);
  } finally {
    await app.close();
  }
});
