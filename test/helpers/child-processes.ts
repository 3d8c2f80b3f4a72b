import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestFn } from 'ava';
import { eventually } from './eventually.js';
import { freePort } from './free-port.js';

const running = new Set<ChildProcess>();
const killAll = (): void => {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
};
// A worker AVA ends (a timeout, a forced exit) takes its servers with it: a child left running
// would hold the port, the data dir lock and the worker's pipes.
process.once('exit', killAll);
process.once('SIGTERM', () => {
  killAll();
  process.kill(process.pid, 'SIGTERM'); // the default action, now that this listener is gone
});

/**
 * The processes a test file starts (the server as `src/main.ts`) are killed when the file ends,
 * whatever the test that started them did: call at the top of the file, pass each child to the
 * returned function. A test still kills what it means to, when it means to.
 */
export function childProcesses<Context>(test: TestFn<Context>): <T extends ChildProcess>(child: T) => T {
  test.after.always(killAll);
  return (child) => {
    running.add(child);
    child.once('exit', () => running.delete(child));
    return child;
  };
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A server started by `startServerProcess`: its address, its process and what it printed so far. */
export interface ServerProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
}

/** Resolves once `child` has ended (at once if it already has). */
export const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));

/**
 * The server as `npm run dev` runs it (src/main.ts under tsx), in a process of its own on a free
 * port of 127.0.0.1, with `env` over this process's, silent logs; ready once /healthz answers.
 * Pass the file's `childProcesses(test)` tracker as `track`.
 */
export async function startServerProcess(
  track: <T extends ChildProcess>(child: T) => T,
  env: Record<string, string>,
  options: { timeoutMs?: number } = {},
): Promise<ServerProcess> {
  const port = await freePort();
  const child = track(
    spawn(process.execPath, ['--import=tsx', path.join(root, 'src/main.ts')], {
      cwd: root,
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', PETCARE_LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  await eventually(
    async () => {
      if (child.exitCode !== null) throw new Error(`the server exited with code ${child.exitCode}: ${output}`);
      try {
        const res = await fetch(`${url}/healthz`);
        await res.arrayBuffer();
        return res.ok;
      } catch {
        return false; // not listening yet
      }
    },
    { timeoutMs: options.timeoutMs ?? 30_000, intervalMs: 50, what: () => `the server to listen: ${output}` },
  );
  return { url, child, output: () => output };
}
