import { ApiProblem, currentSession, openEventStream } from './api.js';

/** One event as the stream sends it: the webhook envelope. */
export interface LiveEvent {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
}

/** What the header's indicator says: connected, waiting to reconnect, or given up (the API's reason). */
export type LiveState = { kind: 'connecting' } | { kind: 'live' } | { kind: 'retrying'; inSeconds: number } | { kind: 'off'; reason: string };

interface Follower {
  matches(event: LiveEvent): boolean;
  /** Called for each matching event, and with null after a resynchronisation (events may have been missed). */
  notify(event: LiveEvent | null): void;
}

const followers = new Set<Follower>();
const stateListeners = new Set<(state: LiveState) => void>();
let controller: AbortController | undefined;
let state: LiveState = { kind: 'off', reason: 'not started' };

function setState(next: LiveState): void {
  state = next;
  for (const listener of stateListeners) listener(next);
}

/** Tells `listener` the stream's state now and on every change; returns the way to stop listening. */
export function onLiveState(listener: (state: LiveState) => void): () => void {
  stateListeners.add(listener);
  listener(state);
  return () => stateListeners.delete(listener);
}

/** Reads SSE messages off a body: the `id` and joined `data` lines of each message that has data; comments (heartbeats) are skipped. */
async function* messages(body: ReadableStream<Uint8Array>): AsyncGenerator<{ id: string | undefined; data: string }> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
      for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let id: string | undefined;
        const data: string[] = [];
        for (const line of frame.split('\n')) {
          if (line === '' || line.startsWith(':')) continue;
          const colon = line.indexOf(':');
          const field = colon === -1 ? line : line.slice(0, colon);
          const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'id') id = value;
          else if (field === 'data') data.push(value);
        }
        if (data.length) yield { id, data: data.join('\n') };
      }
    }
  } finally {
    reader.releaseLock();
  }
}

const wait = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/**
 * The page's one stream, for as long as the session lasts: reconnects with backoff (1 s doubling to
 * 30 s, or the API's Retry-After) and resumes with `Last-Event-ID`, so a dropped connection misses
 * nothing. An id the log no longer holds (400, after a sandbox reset) starts afresh and tells every
 * follower to reload; 401 and 403 end it (the token expired, or its scopes show no events).
 */
async function run(signal: AbortSignal): Promise<void> {
  let lastId: string | undefined;
  let failures = 0;
  let resumed = false;
  while (!signal.aborted && currentSession()) {
    let delayMs: number | undefined;
    try {
      setState({ kind: 'connecting' });
      const body = await openEventStream(lastId, signal);
      setState({ kind: 'live' });
      failures = 0;
      // After a reconnect the events missed come first; a reload after a reset covers what no event says.
      if (resumed && lastId === undefined) for (const f of followers) f.notify(null);
      resumed = true;
      for await (const message of messages(body)) {
        let event: LiveEvent;
        try {
          event = JSON.parse(message.data) as LiveEvent;
        } catch {
          continue;
        }
        lastId = message.id ?? event.id;
        for (const f of followers) if (f.matches(event)) f.notify(event);
      }
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof ApiProblem) {
        if (error.status === 401 || error.status === 403) {
          setState({ kind: 'off', reason: `${error.status} ${error.title}` });
          return;
        }
        if (error.status === 400 && lastId !== undefined) {
          lastId = undefined;
          delayMs = 0;
        } else if (error.retryAfter && Number.isFinite(Number(error.retryAfter))) {
          delayMs = Number(error.retryAfter) * 1000;
        }
      }
    }
    if (signal.aborted) return;
    delayMs ??= Math.min(30_000, 1_000 * 2 ** failures);
    failures += 1;
    setState({ kind: 'retrying', inSeconds: Math.round(delayMs / 1000) });
    await wait(delayMs, signal);
  }
}

function start(): void {
  if (controller || !currentSession()) return;
  const own = new AbortController();
  controller = own;
  void run(own.signal).finally(() => {
    if (controller === own) controller = undefined;
  });
}

/** Closes the stream (sign-out): the next follower after a new sign-in opens a new one. */
export function stopLive(): void {
  controller?.abort();
  controller = undefined;
  followers.clear();
  setState({ kind: 'off', reason: 'signed out' });
}

/**
 * Calls `refresh` after events that `matches` accepts: once per burst (after `quietMs` without a
 * new one, at most `maxWaitMs` after the first), never while a refresh is still running, and only
 * while `view` is shown: a hidden view refreshes when it is shown again. Opens the stream on first use.
 */
export function refreshOnEvents(
  view: HTMLElement,
  matches: (event: LiveEvent) => boolean,
  refresh: () => Promise<void>,
  { quietMs = 600, maxWaitMs = 3_000 }: { quietMs?: number; maxWaitMs?: number } = {},
): void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let firstAt: number | undefined;
  let running = false;
  let again = false;
  let stale = false;
  const shown = () => !view.closest('[hidden]');

  async function fire() {
    timer = undefined;
    firstAt = undefined;
    if (!shown()) {
      stale = true;
      return;
    }
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      await refresh();
    } finally {
      running = false;
      if (again) {
        again = false;
        void fire();
      }
    }
  }

  function schedule() {
    const now = performance.now();
    firstAt ??= now;
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => void fire(), Math.max(0, Math.min(quietMs, firstAt + maxWaitMs - now)));
  }

  // A view shown again after events arrived while it was hidden catches up at once.
  const section = view.closest('section') ?? view;
  new MutationObserver(() => {
    if (stale && shown()) {
      stale = false;
      void fire();
    }
  }).observe(section, { attributes: true, attributeFilter: ['hidden'] });

  followers.add({ matches, notify: schedule });
  start();
}
