import { createHmac, randomBytes } from 'node:crypto';

/** A new endpoint secret: `whsec_` + 32 random bytes (base64url). */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64url')}`;

/**
 * The Stripe-style signature header: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`,
 * one v1 per secret that signs (two during a rotation's overlap, the newest first). The key is the
 * whole secret string, `whsec_` included, as Stripe's libraries use it, so their verifiers work unchanged.
 */
export function signatureHeader(body: string, secrets: readonly string[], timestampSeconds: number): string {
  const signed = `${timestampSeconds}.${body}`;
  return [`t=${timestampSeconds}`, ...secrets.map((secret) => `v1=${createHmac('sha256', secret).update(signed).digest('hex')}`)].join(',');
}
