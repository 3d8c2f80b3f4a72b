import type { AttemptResult, Claim } from './delivery-statements.js';
import type { SendOutcome } from './webhook-sender.js';

/**
 * The delay before retry number `failures` (1-based): the schedule's value with ±10 % jitter so
 * retries of many deliveries do not land together; null once the schedule is exhausted.
 */
export function retryDelayMs(failures: number, schedule: readonly number[], random: () => number = Math.random): number | null {
  const seconds = schedule[failures - 1];
  if (seconds === undefined) return null;
  return Math.round(seconds * 1000 * (0.9 + 0.2 * random()));
}

/** What an attempt's outcome makes of its delivery: succeeded, retried on the schedule, or failed for good. */
export function attemptResult(claim: Claim, outcome: SendOutcome, now: number, startedAt: number | null, retrySchedule: readonly number[]): AttemptResult {
  const { due } = claim;
  const base = { claim, startedAt, latencyMs: outcome.latencyMs, responseStatus: outcome.status, excerpt: outcome.excerpt, error: outcome.error };
  if (outcome.ok) return { ...base, status: 'succeeded', delivery: { status: 'succeeded', failures: due.failures, nextAttemptAt: null } };
  // Our own stop cut the attempt: it does not count against the receiver; the next one follows at once.
  if (outcome.interrupted) return { ...base, status: 'interrupted', delivery: { status: 'pending', failures: due.failures, nextAttemptAt: now } };
  const failures = due.failures + 1;
  const delay = due.kind === 'test' ? null : retryDelayMs(failures, retrySchedule);
  return {
    ...base,
    status: 'failed',
    delivery: delay === null ? { status: 'failed', failures, nextAttemptAt: null } : { status: 'pending', failures, nextAttemptAt: now + delay },
  };
}
