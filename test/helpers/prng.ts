import { DemoRandom } from '../../src/modules/sandbox/demo-random.js';

/** A seeded PRNG for tests (the sandbox's mulberry32): floats in [0, 1), the same sequence for the same seed. */
export function prng(seed: number): () => number {
  const random = new DemoRandom(seed);
  return () => random.next();
}
