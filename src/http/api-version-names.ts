/**
 * Dated versions within v1 (DESIGN §16, Stripe-style), oldest first; the last one is current.
 * A release that changes an answer adds its date here, a changelog entry, and a transform on each
 * route it changes (the route's `versions`), so the current code path never branches on versions.
 * The names alone, so the request's record (request-context.ts) can type them without the pipeline.
 */
export const apiVersions = ['2025-06-01', '2026-11-01'] as const;
export type ApiVersion = (typeof apiVersions)[number];
export const currentApiVersion = '2026-11-01' satisfies ApiVersion;
