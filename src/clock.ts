/** The one source of "now": injected so tests can move time (sunset, token expiry, rate windows). */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export const isoNow = (clock: Clock): string => new Date(clock.now()).toISOString();
