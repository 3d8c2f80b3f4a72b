import test from 'ava';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { lockDataDir } from '../../src/data-dir.js';
import { eventually } from '../helpers/eventually.js';
import { childProcesses } from '../helpers/child-processes.js';

/** The server as `npm start` runs it: its files are its own, an unusable data dir is one line, one server per data dir. */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const scratch = mkdtempSync(path.join(tmpdir(), 'petcare-process-'));
const track = childProcesses(test);
test.after.always(() => rmSync(scratch, { recursive: true, force: true }));

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function startServer(dataDir: string, env: Record<string, string> = {}): Started {
  const child = track(
    spawn(process.execPath, ['--import=tsx', path.join(root, 'src/main.ts')], {
      cwd: root,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', PETCARE_DATA_DIR: dataDir, PETCARE_LOG_LEVEL: 'info', ...env },
    }),
  );
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function listening(server: Started): Promise<void> {
  await eventually(
    () => {
      if (server.child.exitCode !== null) throw new Error(`exited before listening: ${server.output()}`);
      return server.output().includes('"msg":"listening"');
    },
    { timeoutMs: 60_000, what: () => `the listening line: ${server.output()}` },
  );
}

test('files the appliance creates are its own (0600, folders 0700); it warns when links have no configured origin; its lock names it', async (t) => {
  const dataDir = path.join(scratch, 'modes');
  const server = startServer(dataDir);
  t.teardown(() => server.child.kill('SIGKILL'));
  await listening(server);
  const mode = (file: string) => (statSync(path.join(dataDir, file)).mode & 0o777).toString(8);
  t.is(mode('.'), '700');
  t.is(mode('live.sqlite'), '600');
  t.is(mode('sandbox.sqlite'), '600');
  t.is(mode('keys'), '700');
  t.is(mode('keys/signing-keys.json'), '600');
  t.is(mode('appliance.lock'), '600');
  t.like(JSON.parse(readFileSync(path.join(dataDir, 'appliance.lock.json'), 'utf8')), { holder: 'appliance', pid: server.child.pid });
  t.regex(server.output(), /neither PETCARE_PUBLIC_URL nor PETCARE_ALLOWED_HOSTS is set/);

  // A second server on the same data dir is refused; the first keeps its lock.
  const second = startServer(dataDir);
  t.is(await second.exited, 78);
  t.regex(
    second.output().trim(),
    new RegExp(`^petcare: \\S+ is in use by an appliance process \\(pid ${server.child.pid} on host .+\\), which holds \\S+appliance\\.lock$`),
  );

  server.child.kill('SIGTERM');
  t.is(await server.exited, 0);
  t.false(existsSync(path.join(dataDir, 'appliance.lock.json')), 'a clean stop releases the lock');
  t.notThrows(() => lockDataDir(dataDir, 'restore').release());
});

test('a data dir the process cannot write: one line naming the path and the uid, exit code 78', async (t) => {
  const blocker = path.join(scratch, 'a-file');
  writeFileSync(blocker, 'not a folder');
  const server = startServer(path.join(blocker, 'data'));
  t.is(await server.exited, 78);
  const lines = server.output().trim().split('\n');
  t.is(lines.length, 1, server.output());
  t.regex(lines[0]!, /^petcare: cannot write the data dir .*a-file\/data as uid \d+ \(ENOTDIR\)/);
});

test('an older data dir left readable by others is tightened at start', async (t) => {
  const dataDir = path.join(scratch, 'loose');
  const first = startServer(dataDir);
  await listening(first);
  first.child.kill('SIGTERM');
  await first.exited;
  const { chmodSync } = await import('node:fs');
  chmodSync(dataDir, 0o755);
  chmodSync(path.join(dataDir, 'live.sqlite'), 0o644);
  const second = startServer(dataDir);
  t.teardown(() => second.child.kill('SIGKILL'));
  await listening(second);
  t.is((statSync(dataDir).mode & 0o777).toString(8), '700');
  t.is((statSync(path.join(dataDir, 'live.sqlite')).mode & 0o777).toString(8), '600');
});
