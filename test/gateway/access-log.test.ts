import test from 'ava';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { accessLog } from '../../src/logger.js';

const entry = { requestId: 'req-"quoted"', method: 'GET', route: 'GET /v1/pets/:id', path: '/v1/pets/pet_1?x="</script>\n', status: 200, ms: 1.25, client: 'pk_live_a' };

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
  const [ours, pinos, anonymous] = lines().map((line) => JSON.parse(line) as Record<string, unknown>) as [Record<string, unknown>, Record<string, unknown>, Record<string, unknown>];
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
