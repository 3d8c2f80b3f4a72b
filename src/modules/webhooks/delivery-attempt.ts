import { envelopeJson } from '../events/index.js';
import type { SecretBox } from '../../db/secret-box.js';
import type { AttemptResult, Claim } from './delivery-statements.js';
import { openSecret, signatureHeader } from './webhook-signature.js';
import type { SendOutcome, WebhookSender } from './webhook-sender.js';

/**
 * The delay before retry number `failures` (1-based): the schedule's value with ±10 % jitter so
 * retries of many deliveries do not land together; null once the schedule is exhausted.
 */
export function retryDelayMs(failures: number, schedule: readonly number[], random: () => number = Math.random): number | null {
  const seconds = schedule[failures - 1];
  if (seconds === undefined) return null;
  return Math.round(seconds * 1000 * (0.9 + 0.2 * random()));
}

/** Sends one claimed attempt, signed with the endpoint's secret (and the previous one while it overlaps); never throws. */
export async function sendAttempt(
  sender: WebhookSender,
  { due, attempt }: Claim,
  options: { timeoutMs: number; userAgent: string; secrets: Pick<SecretBox, 'open'> },
  startedAt: number,
): Promise<SendOutcome> {
  try {
    const body = due.payload ?? envelopeJson({ id: due.event_id, created_at: due.event_created_at!, data: due.event_data! }, due.event_type);
    const secrets = [openSecret(options.secrets, due.secret)];
    if (due.previous_secret && due.previous_secret_expires_at && Date.parse(due.previous_secret_expires_at) > startedAt) secrets.push(openSecret(options.secrets, due.previous_secret));
    const signature = signatureHeader(body, secrets, Math.floor(startedAt / 1000));
    return await sender.send({
      url: due.url,
      body,
      timeoutMs: options.timeoutMs,
      headers: [
        'Content-Type', 'application/json',
        'User-Agent', options.userAgent,
        'X-Service-Signature', signature,
        'Service-Signature', signature,
        'X-Service-Event-Id', due.event_id,
        'X-Service-Event-Type', due.event_type,
        'X-Service-Delivery-Id', due.id,
        'X-Service-Delivery-Attempt', String(attempt),
        'X-Service-Delivery-Kind', due.kind,
      ],
    });
  } catch (err) {
    return { ok: false, status: null, latencyMs: 0, excerpt: null, error: `internal error: ${err instanceof Error ? err.message : String(err)}`, interrupted: false };
  }
}

/** What an attempt's outcome makes of its delivery: succeeded, retried on the schedule, or failed for good. */
export function attemptResult(
  { due, attemptId, attempt }: Claim,
  outcome: SendOutcome,
  now: number,
  startedAt: number | null,
  retrySchedule: readonly number[],
): AttemptResult {
  const base = { attemptId, deliveryId: due.id, attempt, startedAt, latencyMs: outcome.latencyMs, responseStatus: outcome.status, excerpt: outcome.excerpt, error: outcome.error };
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
