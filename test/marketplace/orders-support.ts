import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import type { Response, TestApp } from '../helpers/test-app.js';
import { putSchedule } from '../appointments/scheduling-support.js';

/** Helpers of the marketplace order, commission and settlement tests. */

export const orderKeys = ['createdAt', 'currency', 'id', 'invoiceId', 'lines', 'parentId', 'petId', 'status', 'subtotal', 'total'];
export const orderLineKeys = ['amount', 'bookingId', 'commissionAmount', 'id', 'listingId', 'providerId', 'startsAt'];

export function expectStatus(res: Response, status: number, what: string): Response {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${res.text}`);
  return res;
}

let counter = 0;

export interface Walker {
  id: string;
  listingId: string;
  amount: number;
}

/**
 * An approved marketplace walker through the providers routes: onboarded with one listing
 * (walking, `amount`, `durationMinutes`), a Monday–Friday 09:00–17:00 schedule at the location, approved.
 */
export async function approvedWalker(
  t: TestApp,
  locationId: string,
  options: { amount?: number; durationMinutes?: number; commissionBps?: number; approve?: boolean; env?: 'live' | 'sandbox' } = {},
): Promise<Walker> {
  const token = await t.adminToken(options.env);
  const amount = options.amount ?? 2_000;
  const created = await t.request('POST', '/v1/providers', {
    token,
    body: {
      name: `Walker ${++counter}`,
      kind: 'walker',
      locationIds: [locationId],
      marketplace: {
        listings: [{ name: '30 minute walk', category: 'walking', amount, durationMinutes: options.durationMinutes ?? 30 }],
        ...(options.commissionBps !== undefined ? { commissionBps: options.commissionBps } : {}),
      },
    },
  });
  expectStatus(created, 201, 'onboard walker');
  const provider = created.body as { id: string; marketplace: { listings: Array<{ id: string }> } };
  await putSchedule(t, provider.id, locationId, undefined, [], token);
  if (options.approve ?? true) expectStatus(await t.request('POST', `/v1/providers/${provider.id}/approve`, { token }), 200, 'approve walker');
  return { id: provider.id, listingId: provider.marketplace.listings[0]!.id, amount };
}

export interface Market {
  location: { id: string };
  parent: { id: string };
  pet: { id: string };
  walker: Walker;
}

/** A London location (USD, `taxRateBps`) with a parent, a pet and one approved walker. */
export async function market(
  t: TestApp,
  options: { taxRateBps?: number; amount?: number; commissionBps?: number; env?: 'live' | 'sandbox' } = {},
): Promise<Market> {
  const env = options.env ?? 'live';
  const token = await t.adminToken(env);
  const location = await createLocation(t, { timezone: 'Europe/London', currency: 'USD', taxRateBps: options.taxRateBps ?? 0 }, env);
  const parent = await createPetParent(t, location.id, {}, token);
  const pet = await createPet(t, parent.id, location.id, {}, token);
  const walker = await approvedWalker(t, location.id, options);
  return { location, parent, pet, walker };
}

/** A Monday `weeksAhead` weeks after the clock's now, at hh:mm UTC (inside 09:00–17:00 London all year for 10:00–15:00). */
export function mondayAt(t: TestApp, hour: number, minute = 0, weeksAhead = 1): string {
  const now = new Date(t.clock.now());
  const day = now.getUTCDay();
  const toMonday = ((8 - day) % 7 || 7) + (weeksAhead - 1) * 7;
  const at = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + toMonday, hour, minute));
  return at.toISOString();
}

export async function order(t: TestApp, m: Market, startsAt: string | string[], token?: string, extra: { walker?: Walker } = {}) {
  const walker = extra.walker ?? m.walker;
  const starts = Array.isArray(startsAt) ? startsAt : [startsAt];
  return t.request('POST', '/v1/orders', {
    token: token ?? (await t.adminToken()),
    body: { parentId: m.parent.id, petId: m.pet.id, lines: starts.map((s) => ({ providerId: walker.id, listingId: walker.listingId, startsAt: s })) },
  });
}

/** Pays an order's invoice in full by card terminal (POST /v1/payments). */
export async function payOrder(t: TestApp, o: { invoiceId: string; total: number; currency: string; parentId: string }, token?: string) {
  const res = await t.request('POST', '/v1/payments', {
    token: token ?? (await t.adminToken()),
    body: { parentId: o.parentId, invoiceId: o.invoiceId, amount: o.total, currency: o.currency, method: 'card_terminal' },
  });
  return expectStatus(res, 201, 'pay order').body as { id: string };
}

export async function complete(t: TestApp, bookingId: string, token?: string) {
  return t.request('POST', `/v1/marketplace/bookings/${bookingId}/complete`, { token: token ?? (await t.adminToken()) });
}

export async function settle(t: TestApp, body: Record<string, unknown>, token?: string) {
  return t.request('POST', '/v1/marketplace/settlements', { token: token ?? (await t.adminToken()), body });
}

/** Today's UTC date on the test clock. */
export const today = (t: TestApp): string => new Date(t.clock.now()).toISOString().slice(0, 10);
