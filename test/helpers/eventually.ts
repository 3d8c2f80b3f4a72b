import { setTimeout as sleep } from 'node:timers/promises';

export interface EventuallyOptions {
  /** Give up after this long (default 30 s: only a failing test waits it out, and a loaded machine is slow). */
  timeoutMs?: number;
  /** Pause between probes (default 20 ms). */
  intervalMs?: number;
  /** Names what is awaited in the timeout error (a function is asked at the timeout, to show the state then). */
  what?: string | (() => string);
}

type Truthy<T> = Exclude<T, undefined | null | false | 0 | ''>;

/**
 * Probes until `probe` answers a truthy value and returns it: for work the app finishes in the
 * background (a poller's send, clean-up after a dropped connection). A probe that throws fails at
 * once (a broken request is not "not yet"). Only for positives: to show that something does NOT
 * happen, run the job or pass that would do it, then assert.
 */
export async function eventually<T>(probe: () => T | Promise<T>, options: EventuallyOptions = {}): Promise<Truthy<T>> {
  const { timeoutMs = 30_000, intervalMs = 20, what = 'the condition' } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as Truthy<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'function' ? what() : what}`);
    await sleep(intervalMs);
  }
}
