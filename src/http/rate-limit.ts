import type { Clock } from '../clock.js';
import { AppError } from './errors.js';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the oldest counted request leaves the window and frees a slot. */
  resetSeconds: number;
  windowSeconds: number;
}

/** Timestamps of one key's accepted requests within the window, oldest first. */
class Window {
  times: number[] = [];
  head = 0;

  prune(cutoff: number): void {
    while (this.head < this.times.length && (this.times[this.head] as number) <= cutoff) this.head++;
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }

  get size(): number {
    return this.times.length - this.head;
  }

  oldest(): number | undefined {
    return this.times[this.head];
  }

  /** The i-th oldest counted timestamp (0 = oldest). */
  at(i: number): number | undefined {
    return this.times[this.head + i];
  }
}

/**
 * An exact rolling-window limiter: at most `limit` accepted requests in any `windowMs`.
 * Memory per key is bounded by its limit; idle keys are swept.
 */
export class SlidingWindowLimiter {
  private readonly windows = new Map<string, Window>();
  private lastSweep = 0;

  constructor(
    private readonly clock: Clock,
    private readonly windowMs = 60_000,
  ) {}

  take(key: string, limit: number): RateDecision {
    const now = this.clock.now();
    const cutoff = now - this.windowMs;
    this.sweep(now, cutoff);
    let window = this.windows.get(key);
    if (!window) {
      window = new Window();
      this.windows.set(key, window);
    }
    window.prune(cutoff);
    const windowSeconds = this.windowMs / 1000;
    if (window.size >= limit) {
      // A slot frees when the window holds limit - 1 calls: usually when the oldest leaves, but later
      // when the limit was just lowered below what the window already holds.
      const freeing = window.at(window.size - limit) ?? now;
      return { allowed: false, limit, remaining: 0, resetSeconds: Math.max(1, Math.ceil((freeing + this.windowMs - now) / 1000)), windowSeconds };
    }
    window.times.push(now);
    const oldest = window.oldest() ?? now;
    const remaining = limit - window.size;
    return { allowed: true, limit, remaining, resetSeconds: Math.ceil((oldest + this.windowMs - now) / 1000), windowSeconds };
  }

  private sweep(now: number, cutoff: number): void {
    if (now - this.lastSweep < this.windowMs) return;
    this.lastSweep = now;
    for (const [key, window] of this.windows) {
      window.prune(cutoff);
      if (window.size === 0) this.windows.delete(key);
    }
  }
}

/** RateLimit / RateLimit-Policy header values (IETF httpapi ratelimit-headers draft). */
export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  return {
    'RateLimit-Policy': `"default";q=${decision.limit};w=${decision.windowSeconds}`,
    RateLimit: `"default";r=${decision.remaining};t=${decision.resetSeconds}`,
  };
}

/** Takes one request from `key`'s budget, sets the RateLimit headers, and answers 429 when it is spent. */
export function enforceRateLimit(ctx: { set(headers: Record<string, string>): void }, limiter: SlidingWindowLimiter, key: string, limit: number): void {
  const decision = limiter.take(key, limit);
  ctx.set(rateLimitHeaders(decision));
  if (!decision.allowed) {
    throw new AppError('rate_limited', `Rate limit of ${decision.limit} requests per minute exceeded; retry after ${decision.resetSeconds} s.`, {
      headers: { 'Retry-After': String(decision.resetSeconds) },
    });
  }
}
