import test from 'ava';
import Koa from 'koa';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { Metrics } from '../../src/http/metrics.js';
import { requestContext, type RequestState } from '../../src/http/request-context.js';
import { accessLog } from '../../src/logger.js';

const entry = {
  requestId: 'req-"quoted"',
  method: 'GET',
  route: 'GET /v1/pets/:id',
  path: '/v1/pets/pet_1?x="</script>\n',
  status: 200,
  ms: 1.25,
  client: 'pk_live_a',
};

function loggerTo(level: string) {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'access-log-')), 'out.log');
  const logger = pino({ level, base: { service: 'petcare' } }, pino.destination({ dest: file, sync: true }));
  return { logger, lines: () => readFileSync(file, 'utf8').split('\n').filter(Boolean) };
}

test('the access line is the line pino itself writes for the same fields (caller-controlled text escaped)', (t) => {
  const { logger, lines } = loggerTo('info');
  accessLog(logger)(entry);
  logger.info(entry, 'request');
  accessLog(logger)({ ...entry, client: undefined, status: 401 });
  const [ours, pinos, anonymous] = lines().map((line) => JSON.parse(line) as Record<string, unknown>) as [
    Record<string, unknown>,
    Record<string, unknown>,
    Record<string, unknown>,
  ];
  t.deepEqual({ ...ours, time: 0 }, { ...pinos, time: 0 });
  t.is(ours.path, entry.path);
  t.false('client' in anonymous);
  t.is(anonymous.status, 401);
});

test('no access line when the level is above info', (t) => {
  const { logger, lines } = loggerTo('warn');
  accessLog(logger)(entry);
  t.deepEqual(lines(), []);
});

test('a successful health probe or scrape is logged at debug only; other calls (and a failing probe) at info', async (t) => {
  const { logger, lines } = loggerTo('info');
  const koa = new Koa<RequestState>();
  koa.use(requestContext({ logger, clock: { now: () => Date.now() }, platformVersion: 'test', metrics: new Metrics() }));
  koa.use((ctx) => {
    ctx.status = ctx.path === '/readyz' ? 503 : 200;
    ctx.body = { ok: ctx.status === 200 };
  });
  const server = koa.listen(0, '127.0.0.1');
  t.teardown(() => server.close());
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  for (const path of ['/healthz', '/metrics', '/readyz', '/v1/pets']) await (await fetch(base + path)).text();
  const logged = lines().map((line) => (JSON.parse(line) as { path: string }).path);
  t.deepEqual(logged, ['/readyz', '/v1/pets']);
});
