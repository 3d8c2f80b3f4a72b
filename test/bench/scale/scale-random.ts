import { idOf } from '../../../src/db/ids.js';

/**
 * The scale bench's randomness: a seeded PRNG (sfc32) per (seed, day, stream), so a build that
 * stops and resumes at a day makes exactly the rows one uninterrupted build would have made, and
 * ids in the platform's format (prefix_ + 10 chars of time + 16 random chars) drawn from it.
 */

/** A PRNG of 32-bit state words; `next()` is uniform in [0, 1). */
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(...seeds: number[]) {
    // splitmix32 over the seeds: nearby seeds (day 41, day 42) give unrelated streams.
    let h = 0x9e3779b9;
    const mix = (x: number) => {
      h = (h + x + 0x9e3779b9) | 0;
      let z = h;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    for (const s of seeds) mix(s);
    this.a = mix(1);
    this.b = mix(2);
    this.c = mix(3);
    this.d = mix(4);
    for (let i = 0; i < 12; i++) this.u32();
  }

  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  next(): number {
    return this.u32() / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** An integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** Hex of `bytes` random bytes. */
  hex(bytes: number): string {
    let out = '';
    for (let i = 0; i < bytes; i += 4) out += this.u32().toString(16).padStart(8, '0');
    return out.slice(0, bytes * 2);
  }

  bytes(n: number): Buffer {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) out[i] = this.u32() & 0xff;
    return out;
  }
}

/** An id as src/db/ids.ts makes them, with `at` as its time and the random part from `random`. */
export function idAt(prefix: string, at: number, random: Random): string {
  const high = (random.u32() & 0xff) * 4294967296 + random.u32();
  const low = (random.u32() & 0xff) * 4294967296 + random.u32();
  return idOf(prefix, at, high, low);
}
