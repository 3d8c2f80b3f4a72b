import type { ChildProcess } from 'node:child_process';
import type { TestFn } from 'ava';

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
