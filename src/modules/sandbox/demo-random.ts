import { idOf } from '../../db/ids.js';

/**
 * The sandbox practice's randomness and ids: a seeded PRNG (mulberry32), so every reset at the same
 * instant writes the same rows, and ids in the shape of `newId` (10 characters of the record's own
 * time, then 16 of the PRNG's) so seeded rows sort by when they happened and anything a vendor
 * creates afterwards sorts after them, as lists page newest first by id.
 */
export class DemoRandom {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
  /** One of `items` by weight. */
  weighted<T>(items: ReadonlyArray<readonly [T, number]>): T {
    const total = items.reduce((s, [, w]) => s + w, 0);
    let at = this.next() * total;
    for (const [item, weight] of items) {
      at -= weight;
      if (at < 0) return item;
    }
    return items[items.length - 1]![0];
  }
  /** `prefix_` + the instant's time + 80 bits of this PRNG: the shape of `newId`, deterministic. */
  id(prefix: string, at: number): string {
    const a = Math.floor(this.next() * 2 ** 20) * 2 ** 20 + Math.floor(this.next() * 2 ** 20);
    const b = Math.floor(this.next() * 2 ** 20) * 2 ** 20 + Math.floor(this.next() * 2 ** 20);
    return idOf(prefix, at, a, b);
  }
}
