/** The one source of "now": injected so tests can move time (sunset, token expiry, rate windows). */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

let lastMs = Number.NaN;
let lastIso = '';

/**
 * An instant as the API writes it: ISO 8601 UTC with milliseconds. A write stamps the same `now` on
 * every row it touches (created_at, updated_at, the journal, the event, the audit row), so the last
 * answer is kept: one Date and one toISOString per request instead of one per column (~0.3 µs each).
 */
export const isoAt = (ms: number): string => {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
};

export const isoNow = (clock: Clock): string => isoAt(clock.now());
