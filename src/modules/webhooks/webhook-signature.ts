import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';

/** A new endpoint secret: `whsec_` + 32 random bytes (base64url). */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64url')}`;

/** Secrets as HMAC keys, converted once (a string key is re-encoded on every createHmac). Bounded: endpoints are few. */
const keys = new Map<string, KeyObject>();
function keyOf(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= 1000) keys.clear();
    key = createSecretKey(Buffer.from(secret, 'utf8'));
    keys.set(secret, key);
  }
  return key;
}

/**
 * Stored endpoint secrets (sealed at rest) opened once, not per delivery: an AES-GCM open cost ~45 µs
 * of every delivery, more than the HMAC it feeds. Keyed by the sealed value, so a rotation (a new
 * sealed value) is never served an old secret. Bounded like the keys above.
 */
const opened = new Map<string, string>();
export function openSecret(box: { open(stored: string): string }, stored: string): string {
  let secret = opened.get(stored);
  if (secret === undefined) {
    if (opened.size >= 1000) opened.clear();
    secret = box.open(stored);
    opened.set(stored, secret);
  }
  return secret;
}

/**
 * The Stripe-style signature header: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`,
 * one v1 per secret that signs (two during a rotation's overlap, the newest first). The key is the
 * whole secret string, `whsec_` included, as Stripe's libraries use it, so their verifiers work unchanged.
 */
export function signatureHeader(body: string, secrets: readonly string[], timestampSeconds: number): string {
  const prefix = `${timestampSeconds}.`;
  let header = `t=${timestampSeconds}`;
  for (const secret of secrets) header += `,v1=${createHmac('sha256', keyOf(secret)).update(prefix).update(body).digest('hex')}`;
  return header;
}
