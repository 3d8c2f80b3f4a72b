/** The one source of "now": injected so tests can move time (sunset, token expiry, rate windows). */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** An instant as the API writes it: ISO 8601 UTC with milliseconds. */
export const isoAt = (ms: number): string => new Date(ms).toISOString();

export const isoNow = (clock: Clock): string => isoAt(clock.now());
