/**
 * Verifies a webhook delivery: `X-Service-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]`, each
 * v1 an HMAC-SHA256 over `${t}.${rawBody}` keyed by the whole `whsec_…` secret (Stripe's format).
 * During a secret rotation the header carries one v1 per secret: any match is enough.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors.js';
import type { Answer } from './types.js';

/** The envelope every event is delivered in. */
export type WebhookEvent = Answer<'/v1/events/{id}'>;

export interface VerifyOptions {
  /** Largest accepted distance between `t` and now (default 300 s). */
  toleranceSeconds?: number;
  /** The current time: a Date or epoch milliseconds (default: now). */
  now?: Date | number;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Checks the signature of a delivery against its raw body (exactly the bytes received, before any
 * JSON parsing) and returns the parsed event; throws WebhookVerificationError otherwise.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  signatureHeader: string | readonly string[] | null | undefined,
  secret: string,
  options: VerifyOptions = {},
): WebhookEvent {
  if (!secret) throw new WebhookVerificationError('No webhook secret given');
  // Node's IncomingHttpHeaders may hand a repeated header over as an array.
  const header = typeof signatureHeader === 'string' ? signatureHeader : signatureHeader?.join(',');
  if (!header) throw new WebhookVerificationError('No signature header');
  let body: string;
  try {
    body = typeof rawBody === 'string' ? rawBody : decoder.decode(rawBody);
  } catch {
    throw new WebhookVerificationError('The body is not UTF-8');
  }
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const index = part.indexOf('=');
    if (index < 0) continue;
    const key = part.slice(0, index).trim();
    const value = part.slice(index + 1).trim();
    if (key === 't' && /^\d+$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) signatures.push(value.toLowerCase());
  }
  if (timestamp === undefined) throw new WebhookVerificationError('The signature header has no timestamp');
  if (signatures.length === 0) throw new WebhookVerificationError('The signature header has no v1 signature');
  const expected = Buffer.from(createHmac('sha256', secret).update(`${timestamp}.`).update(body, 'utf8').digest('hex'), 'utf8');
  const matches = signatures.some((signature) => timingSafeEqual(Buffer.from(signature, 'utf8'), expected));
  if (!matches) throw new WebhookVerificationError('No signature matches the body and secret');
  const nowMs = options.now === undefined ? Date.now() : typeof options.now === 'number' ? options.now : options.now.getTime();
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(nowMs / 1000 - timestamp) > tolerance) throw new WebhookVerificationError(`The timestamp is more than ${tolerance} s away from now`);
  try {
    return JSON.parse(body) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('The body is not JSON');
  }
}

export const webhooks = { verify: verifyWebhook };
