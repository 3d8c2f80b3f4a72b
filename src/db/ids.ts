import { randomBytes } from 'node:crypto';

const alphabet = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower-case
const randomBits = 80n;
const randomMax = (1n << randomBits) - 1n;

function encode(value: bigint, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out = alphabet[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
}

let lastTime = -1;
let lastRandom = 0n;

/**
 * `prefix_` + 10 chars of millisecond time + 16 chars (80 bits) of randomness, ULID-style.
 * Within one millisecond (or if the clock steps back) the random part is incremented instead of
 * redrawn, so ids always sort in creation order: lists page by id, newest first.
 */
export function newId(prefix: string, now: number = Date.now()): string {
  let time = Math.max(0, Math.floor(now));
  let random: bigint;
  if (time <= lastTime && lastRandom < randomMax) {
    time = lastTime;
    random = lastRandom + 1n;
  } else {
    random = BigInt(`0x${randomBytes(10).toString('hex')}`);
  }
  lastTime = time;
  lastRandom = random;
  return `${prefix}_${encode(BigInt(time), 10)}${encode(random, 16)}`;
}

/** A random opaque secret of `bytes` bytes, base64url. */
export const randomSecret = (bytes = 32): string => randomBytes(bytes).toString('base64url');
