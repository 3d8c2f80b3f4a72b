import { randomBytes, randomFillSync } from 'node:crypto';

const alphabet = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower-case
/** The 80 random bits are two 40-bit halves: plain numbers (exact below 2^53), 8 characters each. */
const halfMax = 2 ** 40 - 1;

/** `value` (a whole number below 2^53) in `length` base32 characters, most significant first. */
function encode(value: number, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out = alphabet[value % 32]! + out;
    value = Math.floor(value / 32);
  }
  return out;
}

/** Random bytes drawn 4 KB at a time: one draw per id cost more than the rest of newId. */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;
function random40(): number {
  if (poolAt + 5 > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const value = pool.readUIntBE(poolAt, 5);
  poolAt += 5;
  return value;
}

/**
 * Where the time inside an id comes from: the process's real clock, never an environment's business
 * clock (the sandbox test clock moves billing dates, not ids; DESIGN §5). The appliance registers its
 * injected real clock at start (tests pass their TestClock); `newId` takes no time from its caller,
 * so no business time can reach it.
 */
let lastTime = -1;
let lastHigh = 0;
let lastLow = 0;
let idClock: () => number = Date.now;
export function useIdClock(now: () => number): void {
  idClock = now;
}

/**
 * A clock that steps back by more than this is followed, not waited out: ids made meanwhile would
 * otherwise all carry the old, later time (a clock set days ahead by mistake, then corrected).
 */
const maxStepBackMs = 10_000;

/**
 * `prefix_` + 10 chars of millisecond time + 16 chars (80 bits) of randomness, ULID-style.
 * Within one millisecond (or if the clock steps back by up to 10 s) the random part is incremented
 * instead of redrawn, so ids sort in creation order: lists page by id, newest first.
 */
export function newId(prefix: string): string {
  let time = Math.max(0, Math.floor(idClock()));
  let high: number;
  let low: number;
  if (time <= lastTime && lastTime - time <= maxStepBackMs && !(lastHigh === halfMax && lastLow === halfMax)) {
    time = lastTime;
    high = lastLow === halfMax ? lastHigh + 1 : lastHigh;
    low = lastLow === halfMax ? 0 : lastLow + 1;
  } else {
    high = random40();
    low = random40();
  }
  lastTime = time;
  lastHigh = high;
  lastLow = low;
  return idOf(prefix, time, high, low);
}

/**
 * The one id layout: `prefix_` + 10 chars of the millisecond time + two 40-bit halves of 8 chars each.
 * `newId` draws the halves from crypto; the sandbox's practice and the scale bench from seeded PRNGs.
 */
export const idOf = (prefix: string, at: number, high: number, low: number): string =>
  `${prefix}_${encode(Math.max(0, Math.floor(at)), 10)}${encode(high, 8)}${encode(low, 8)}`;

/** The smallest id `newId(prefix, at)` can give for a time at or after `at`: a lower bound for a range of ids by time. */
export const idFloor = (prefix: string, at: number): string => `${prefix}_${encode(Math.max(0, Math.floor(at)), 10)}`;

/** A random opaque secret of `bytes` bytes, base64url. */
export const randomSecret = (bytes = 32): string => randomBytes(bytes).toString('base64url');
