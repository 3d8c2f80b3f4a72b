import { request as httpRequest } from 'node:http';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { readBuiltConsole } from '../../src/modules/console/console-assets.js';
import { buildConsole } from '../../src/modules/console/console-build.js';
import { consoleRoutes } from '../../src/modules/console/index.js';
import { AppError } from '../../src/http/errors.js';
import { useTestApp } from '../helpers/test-app.js';

/** GET /console and its assets over HTTP: the security headers, caching, and nothing served but what the build produced. */
const t = useTestApp(test, { jobs: false });

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A raw GET, so paths like /console/../package.json reach the server as written (fetch would normalise them). */
function rawGet(pathname: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(t.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, path: pathname, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function assertPolicy(
  a: { true(v: boolean, m?: string): void; false(v: boolean, m?: string): void; is(x: unknown, y: unknown, m?: string): void },
  headers: Headers,
) {
  const csp = headers.get('content-security-policy') ?? '';
  const directives = new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...values]) => [name, values.join(' ')]),
  );
  a.is(directives.get('default-src'), "'self'");
  a.is(directives.get('script-src'), "'self'");
  a.is(directives.get('style-src'), "'self'");
  a.is(directives.get('connect-src'), "'self'");
  a.is(directives.get('object-src'), "'none'");
  a.is(directives.get('frame-ancestors'), "'none'");
  a.false(csp.includes('unsafe-inline'), 'no inline script or style');
  a.false(csp.includes('unsafe-eval'));
  a.false(/https?:|\*/.test(csp), 'no other origin');
  a.is(headers.get('x-content-type-options'), 'nosniff');
  a.is(headers.get('referrer-policy'), 'no-referrer');
}

test('GET /console is the page under a strict Content-Security-Policy, with no inline script or style', async (a) => {
  const res = await t.request('GET', '/console', { headers: { accept: 'text/html' } });
  a.is(res.status, 200);
  a.regex(res.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/);
  a.is(res.headers.get('cache-control'), 'no-cache');
  assertPolicy(a, res.headers);
  const html = res.text;
  a.regex(html, /<label for="client-id">Client ID<\/label>/);
  a.regex(html, /<label for="client-secret">Client secret<\/label>/);
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
  a.is(scripts.length, 1);
  a.regex(scripts[0]![1]!, /src="\/console\/assets\/console-[A-Z0-9]+\.js"/);
  a.is(scripts[0]![2]!.trim(), '', 'no inline script');
  a.false(/\sstyle=|<style/.test(html), 'no inline style');
  a.false(/\son[a-z]+=/.test(html), 'no inline event handler');
  a.false(/https?:\/\//.test(html), 'nothing from another origin');
});

test('the hashed assets the page names are served with long caching, their types and the same policy', async (a) => {
  const html = (await t.request('GET', '/console')).text;
  const names = [...html.matchAll(/\/console\/assets\/(console-[A-Z0-9]+\.(js|css))/g)].map((m) => m[1]!);
  a.deepEqual(names.map((n) => path.extname(n)).sort(), ['.css', '.js']);
  for (const name of names) {
    const res = await fetch(`${t.url}/console/assets/${name}`);
    a.is(res.status, 200, name);
    a.is(res.headers.get('content-type'), name.endsWith('.js') ? 'application/javascript; charset=utf-8' : 'text/css; charset=utf-8');
    a.is(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assertPolicy(a, res.headers);
    const body = await res.text();
    a.true(body.length > 1000);
    a.false(/url\(\s*['"]?(https?:)?\/\//i.test(body), `${name} loads nothing from another origin`);
  }
  // uPlot is vendored into the bundle (its stylesheet too), not fetched from a CDN.
  const css = await (await fetch(`${t.url}/console/assets/${names.find((n) => n.endsWith('.css'))}`)).text();
  a.true(css.includes('.uplot'), 'uPlot stylesheet bundled');
});

test('unknown assets and traversal attempts answer 404 problems, never a file from disk', async (a) => {
  const missing = await t.request('GET', '/console/assets/console-NOPE.js');
  a.is(missing.status, 404);
  a.regex(missing.headers.get('content-type') ?? '', /application\/problem\+json/);
  a.is(missing.body.code, 'route_not_found');
  for (const p of [
    '/console/assets/..%2F..%2Fpackage.json',
    '/console/assets/%2e%2e%2f%2e%2e%2fpackage.json',
    '/console/assets/..%5C..%5Cpackage.json',
    '/console/assets/../../package.json',
    '/console/../package.json',
    '/console/assets/index.html',
    '/console/assets/',
    '/console/assets/main.ts',
    '/console/src/main.ts',
    '/console/index.html',
    '/console/assets/%00console.js',
  ]) {
    const res = await rawGet(p);
    a.not(res.status, 200, p);
    a.false(res.body.includes('"devDependencies"'), `${p} leaks no file`);
    a.false(res.body.includes('import '), `${p} leaks no source`);
  }
});

test('a console written by the build step (npm run build → dist/console) reads back as built', async (a) => {
  const built = await buildConsole(root);
  const dir = mkdtempSync(path.join(tmpdir(), 'petcare-console-'));
  try {
    mkdirSync(path.join(dir, 'assets'));
    writeFileSync(path.join(dir, 'index.html'), built.page);
    for (const [name, asset] of built.assets) writeFileSync(path.join(dir, 'assets', name), asset.body);
    writeFileSync(path.join(dir, 'assets', 'notes.txt'), 'not an asset type');
    const read = await readBuiltConsole(dir);
    a.truthy(read);
    a.is(read!.page.toString(), built.page.toString());
    a.deepEqual([...read!.assets.keys()].sort(), [...built.assets.keys()].sort(), 'only the built types are served');
    a.is(await readBuiltConsole(path.join(dir, 'missing')), undefined, 'no build: the route answers 503');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('with no console built, the page and its assets answer 503 service_unavailable naming npm run build', async (a) => {
  for (const route of consoleRoutes(async () => undefined)) {
    if (route.access !== 'public') continue;
    const error = await a.throwsAsync(route.handler({ params: { file: 'console-X.js' }, query: {}, body: undefined, ctx: {} as never }));
    a.true(error instanceof AppError);
    a.is((error as AppError).code, 'service_unavailable');
    a.regex(error!.message, /npm run build/);
  }
});
