import { randomBytes } from 'node:crypto';

const alphabet = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower-case

/**
 * `prefix_` + 10 chars of millisecond time + 16 random chars (80 bits).
 * Ids sort by creation time, which gives lists a stable, meaningful cursor order.
 */
export function newId(prefix: string, now: number = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = alphabet[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(10);
  let random = '';
  // 10 bytes = 80 bits = 16 base32 chars, 5 bits at a time
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      random += alphabet[(buffer >> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  return `${prefix}_${time}${random}`;
}

/** A random opaque secret of `bytes` bytes, base64url. */
export const randomSecret = (bytes = 32): string => randomBytes(bytes).toString('base64url');
