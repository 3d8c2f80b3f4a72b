import test from 'ava';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually } from '../helpers/eventually.js';
import { LogSink } from '../../src/log-sink.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function tempFile(): { file: string; fd: number } {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'log-sink-')), 'out.log');
  return { file, fd: openSync(file, 'a') };
}

test('lines arrive whole and in order across chunk boundaries, multi-byte text and over-long lines included', async (t) => {
  const { file, fd } = tempFile();
  t.teardown(() => closeSync(fd));
  const sink = new LogSink(fd, { chunkBytes: 256, flushMs: 5 });
  const lines = Array.from({ length: 500 }, (_, i) => `{"n":${i},"text":"${i % 7 === 0 ? 'chien🐕é' : 'x'.repeat(i % 90)}"}\n`);
  lines.push(`{"long":"${'y'.repeat(2_000)}"}\n`, '{"after":true}\n');
  for (const line of lines) sink.write(line);
  await eventually(() => readFileSync(file, 'utf8') === lines.join(''));
  t.is(readFileSync(file, 'utf8'), lines.join(''));
});

test('a partly filled chunk is written after flushMs, not held until it fills', async (t) => {
  const { file, fd } = tempFile();
  t.teardown(() => closeSync(fd));
  const sink = new LogSink(fd, { flushMs: 20 });
  sink.write('{"one":1}\n');
  t.is(readFileSync(file, 'utf8'), '', 'nothing written synchronously');
  await eventually(() => readFileSync(file, 'utf8') === '{"one":1}\n');
  t.pass();
});

test('a descriptor that refuses for now is retried in order; past maxPendingBytes lines are dropped and counted, and the count is logged once it clears', async (t) => {
  let refusing = true;
  const out: Buffer[] = [];
  const writeSync = (_fd: number, buffer: Buffer, offset: number, length: number) => {
    if (refusing) throw Object.assign(new Error('EAGAIN'), { code: 'EAGAIN' });
    // Half of what is asked, to exercise short writes too.
    const n = Math.max(1, Math.ceil(length / 2));
    out.push(Buffer.from(buffer.subarray(offset, offset + n)));
    return n;
  };
  const sink = new LogSink(99, { chunkBytes: 64, maxPendingBytes: 200, flushMs: 1, retryMs: 5, writeSync });
  let accepted = 0;
  for (let i = 0; i < 50; i++) if (sink.write(`{"i":"${String(i).padStart(2, '0')}"}\n`)) accepted++;
  t.true(accepted < 50, `${accepted} accepted`);
  t.deepEqual(out, [], 'nothing written while refused, nothing lost either');
  refusing = false;
  await eventually(() => Buffer.concat(out).toString().includes('log lines dropped'));
  const written = Buffer.concat(out).toString().split('\n').filter(Boolean);
  const note = JSON.parse(written.at(-1)!) as { dropped: number };
  t.is(note.dropped, 50 - accepted);
  t.deepEqual(
    written.slice(0, -1).map((line) => Number((JSON.parse(line) as { i: string }).i)),
    Array.from({ length: accepted }, (_, i) => i),
    'the accepted lines, whole and in order',
  );
});

test('flushSync writes what is pending; the appliance logger does so at process exit', async (t) => {
  const { file, fd } = tempFile();
  t.teardown(() => closeSync(fd));
  const sink = new LogSink(fd, { flushMs: 60_000 });
  sink.write('{"a":1}\n');
  sink.flushSync();
  t.is(readFileSync(file, 'utf8'), '{"a":1}\n');
  // The pass that would write it again: a second flush (the timed one was cleared with the chunk).
  sink.flushSync();
  t.is(readFileSync(file, 'utf8'), '{"a":1}\n', 'written once');

  // A real process: lines logged just before process.exit() are on stdout.
  const script = `import { createLogger } from ${JSON.stringify(path.join(root, 'src/logger.ts'))};
const logger = createLogger('info');
for (let i = 0; i < 1000; i++) logger.info({ i }, 'line');
process.exit(3);`;
  let out = '';
  try {
    execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
  } catch (err) {
    out = (err as { stdout: string; status: number }).stdout;
    t.is((err as { status: number }).status, 3);
  }
  const logged = out
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { i: number; service: string });
  t.is(logged.length, 1000);
  t.deepEqual(
    logged.map((l) => l.i),
    Array.from({ length: 1000 }, (_, i) => i),
  );
  t.is(logged[0]!.service, 'petcare');
});
