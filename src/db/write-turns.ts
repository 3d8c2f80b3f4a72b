/**
 * Turns at the write lock between the API's connection and a worker thread's own connection to the
 * same file (issue 27.4: the knowledge indexing worker; then the import worker).
 *
 * SQLite lets one connection write at a time, and a connection that finds the lock taken waits for
 * it synchronously (busy_timeout): were a worker to take the lock whenever it liked, an API write
 * arriving meanwhile would hold the event loop until the worker committed (measured for the indexing
 * worker: 218 such waits during three 25 MB uploads, up to 62 ms each, more when the worker's thread
 * was descheduled mid-transaction). So a worker writes only in turns the main thread grants while it
 * holds its own connection (Kysely's connection lock, as `withConnection` does): the API's queries
 * that need the connection meanwhile queue for it asynchronously, the event loop stays free, and
 * reads that run on the connection at once (`selectRows` with no transaction open) read the last
 * commit as usual.
 *
 * One Int32Array over a SharedArrayBuffer, one cell: the worker asks (wanted), the main thread grants
 * (granted), the worker commits one short transaction and hands back (idle), or says it is done.
 */
import { setTimeout as sleep } from 'node:timers/promises';

const idle = 0;
const wanted = 1;
const granted = 2;
const finished = 3;

/** The cell both threads share (passed to the worker in its task's input). */
export const newWriteTurns = (): Int32Array => new Int32Array(new SharedArrayBuffer(4));

/** Atomics.waitAsync (ES2024; Node has it, the project's TypeScript lib does not name it yet). */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(array: Int32Array, index: number, value: number): { async: false; value: string } | { async: true; value: Promise<string> };
  }
).waitAsync;

function set(turns: Int32Array, state: number): void {
  Atomics.store(turns, 0, state);
  Atomics.notify(turns, 0);
}

/** Waits (without blocking the thread) until the cell no longer holds `state`, or `stop` settles. */
async function leave(turns: Int32Array, state: number, stop?: Promise<unknown>): Promise<void> {
  while (Atomics.load(turns, 0) === state) {
    const wait = waitAsync(turns, 0, state);
    if (!wait.async) continue;
    if (!stop) await wait.value;
    else if ((await Promise.race([wait.value, stop.then(() => 'stopped')])) === 'stopped') return;
  }
}

/**
 * Worker side: runs `work` (one write transaction) in the next turn granted. The worker has nothing
 * else to do, so it waits blocking (Atomics.waitAsync would not keep a worker's event loop alive),
 * in steps short enough for a terminate() to end it.
 */
export function inTurn<T>(turns: Int32Array, work: () => T): T {
  set(turns, wanted);
  while (Atomics.load(turns, 0) === wanted) Atomics.wait(turns, 0, wanted, 100);
  try {
    return work();
  } finally {
    set(turns, idle);
  }
}

/**
 * Worker side, for a transaction that awaits (Kysely over the worker's connection, as the import
 * worker writes): as inTurn, the turn lasting until `work` settles. `work` must not wait for
 * anything of the main thread's, which holds its connection until the turn is handed back.
 */
export async function inTurnAsync<T>(turns: Int32Array, work: () => Promise<T>): Promise<T> {
  set(turns, wanted);
  while (Atomics.load(turns, 0) === wanted) Atomics.wait(turns, 0, wanted, 100);
  try {
    return await work();
  } finally {
    set(turns, idle);
  }
}

/** Worker side: no more turns wanted (also after a failure, so the main thread stops granting). */
export const doneWithTurns = (turns: Int32Array): void => set(turns, finished);

/**
 * Main-thread side: grants the worker its turns until it is done or `task` settles (a worker that
 * died or was terminated never leaves the connection held). `hold` runs its callback while holding
 * the API's connection; between turns the connection is free for at least `gapMs`.
 */
export async function grantTurns(
  turns: Int32Array,
  task: Promise<unknown>,
  hold: (during: () => Promise<void>) => Promise<void>,
  gapMs: number,
): Promise<void> {
  let ended = false;
  const settled = task.then(
    () => (ended = true),
    () => (ended = true),
  );
  for (;;) {
    await leave(turns, idle, settled);
    if (ended || Atomics.load(turns, 0) === finished) return;
    await hold(async () => {
      if (Atomics.compareExchange(turns, 0, wanted, granted) !== wanted) return;
      Atomics.notify(turns, 0);
      await leave(turns, granted, settled);
    });
    if (ended || Atomics.load(turns, 0) === finished) return;
    await sleep(gapMs);
  }
}

/**
 * Main-thread side, the whole of it: starts a worker's task with a new cell (`start` puts it in the
 * task's input), grants the task its turns until it is done, and answers its result (or failure).
 */
export async function runWithTurns<T>(
  start: (turns: Int32Array) => Promise<T>,
  hold: (during: () => Promise<void>) => Promise<void>,
  gapMs: number,
): Promise<T> {
  const turns = newWriteTurns();
  const task = start(turns);
  await grantTurns(turns, task, hold, gapMs);
  return task;
}
