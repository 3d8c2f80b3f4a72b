import type { SecretBox } from '../../db/secret-box.js';
// The presenter alone, not the events module's index: the delivery thread loads this file, and
// nothing of the database.
import { envelopeJson } from '../events/index.js';
import type { Claim } from './delivery-statements.js';
import { openSecret, signatureHeader } from './webhook-signature.js';
import { failedOutcome, type SendOutcome, type WebhookSender } from './webhook-sender.js';
import type { DeliveryKind } from './webhooks.table.js';

/**
 * One attempt as the delivery thread gets it (structured-cloned to the worker): everything it needs
 * to build, sign and send the request, and nothing of the database.
 */
export interface DeliveryJob {
  /** The attempt's id: its outcome comes back under it. */
  id: string;
  url: string;
  timeoutMs: number;
  userAgent: string;
  deliveryId: string;
  attempt: number;
  kind: DeliveryKind;
  eventId: string;
  eventType: string;
  /** The whole envelope of a synthetic event (webhook.test); null: built from the event's row below. */
  payload: string | null;
  createdAt: string | null;
  data: string | null;
  /** The endpoint's secrets in clear, newest first: each signs (two during a rotation's overlap). */
  secrets: string[];
  /** The signature's time, from the service clock (ms). */
  signedAt: number;
}

/** The job for a claimed attempt: the secrets opened (cached), the previous one only while it overlaps. */
export function deliveryJob(
  { due, attemptId, attempt }: Claim,
  options: { timeoutMs: number; userAgent: string; secrets: Pick<SecretBox, 'open'> },
  signedAt: number,
): DeliveryJob {
  const secrets = [openSecret(options.secrets, due.secret)];
  if (due.previous_secret && due.previous_secret_expires_at && Date.parse(due.previous_secret_expires_at) > signedAt)
    secrets.push(openSecret(options.secrets, due.previous_secret));
  return {
    id: attemptId,
    url: due.url,
    timeoutMs: options.timeoutMs,
    userAgent: options.userAgent,
    deliveryId: due.id,
    attempt,
    kind: due.kind,
    eventId: due.event_id,
    eventType: due.event_type,
    payload: due.payload,
    createdAt: due.event_created_at,
    data: due.event_data,
    secrets,
    signedAt,
  };
}

/** Builds, signs and sends one job's request; never throws. */
export async function sendJob(sender: WebhookSender, job: DeliveryJob): Promise<SendOutcome> {
  try {
    const body = job.payload ?? envelopeJson({ id: job.eventId, created_at: job.createdAt!, data: job.data! }, job.eventType);
    const signature = signatureHeader(body, job.secrets, Math.floor(job.signedAt / 1000));
    return await sender.send({
      url: job.url,
      body,
      timeoutMs: job.timeoutMs,
      headers: [
        'Content-Type',
        'application/json',
        'User-Agent',
        job.userAgent,
        'X-Service-Signature',
        signature,
        'Service-Signature',
        signature,
        'X-Service-Event-Id',
        job.eventId,
        'X-Service-Event-Type',
        job.eventType,
        'X-Service-Delivery-Id',
        job.deliveryId,
        'X-Service-Delivery-Attempt',
        String(job.attempt),
        'X-Service-Delivery-Kind',
        job.kind,
      ],
    });
  } catch (err) {
    return failedOutcome(`internal error: ${err instanceof Error ? err.message : String(err)}`);
  }
}
