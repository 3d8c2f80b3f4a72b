import test from 'ava';
import { deprecatedVersions } from '../../src/http/versioning.js';
import { useTestApp } from '../helpers/test-app.js';

/**
 * The router consults one @koa/router per path prefix (and per number of segments where every route
 * of the prefix has a fixed one): every declared route must still be reached by a path of its shape,
 * with or without a trailing slash, and whatever the case of its prefix; a path of no route is 404.
 */
const t = useTestApp(test, { jobs: false });

const concrete = (path: string) => path.replace(/:[A-Za-z]+/g, 'x_1');

test('every route is reached by a path of its shape; unknown lengths and prefixes are 404', async (a) => {
  const routes = t.app.routes.map((r) => ({ method: r.method.toUpperCase(), path: r.path }));
  for (const version of deprecatedVersions) {
    for (const key of version.routes) {
      const [method, path] = key.split(' ') as [string, string];
      routes.push({ method, path: version.prefix + path.slice(version.successorPrefix.length) });
    }
  }
  for (const { method, path } of routes) {
    const base = concrete(path);
    const variants = [base, `${base}/`, base.replace(/^\/[^/]+/, (s) => s.toUpperCase())];
    for (const url of method === 'GET' ? variants : [base]) {
      const res = await t.request(method, url, method === 'GET' || method === 'DELETE' ? {} : { body: {} });
      // The router's own 404 (a handler may answer route_not_found too: an unknown docs asset).
      a.notRegex(String(res.body?.detail ?? ''), /^No route matches/, `${method} ${url} (${path}) was not routed`);
      a.not(res.status, 405, `${method} ${url} (${path}) answered 405`);
    }
  }
  for (const url of ['/v1/pets/x_1/vaccinations/x_2/too/long', '/v1/nothing-here', '/v1/pets/x_1/nothing']) {
    const res = await t.request('GET', url);
    a.regex(String(res.body?.detail ?? ''), /^No route matches/, url);
  }
});
