import { newId } from '../../src/db/ids.js';
import type { TestApp } from '../helpers/test-app.js';
import { putSchedule, weekdays } from '../appointments/scheduling-support.js';

let counter = 0;

export interface ListingBody {
  name: string;
  category: string;
  amount: number;
  durationMinutes: number;
  currency?: string;
}

export const walkListing: ListingBody = { name: 'Dog walk, 60 min', category: 'walking', amount: 2500, durationMinutes: 60 };

/** Onboards a marketplace provider (pending) through the API with the admin token. */
export async function onboard(
  t: TestApp,
  locationIds: string[],
  marketplace: { listings?: ListingBody[]; bio?: string; serviceArea?: string; commissionBps?: number } = {},
  overrides: Record<string, unknown> = {},
) {
  const res = await t.request('POST', '/v1/providers', {
    token: await t.adminToken(),
    body: { name: `Walker ${++counter}`, kind: 'walker', locationIds, marketplace: { listings: [walkListing], ...marketplace }, ...overrides },
  });
  if (res.status !== 201) throw new Error(`onboarding failed: ${res.status} ${res.text}`);
  return res.body as { id: string; name: string; status: string; marketplace: { listings: Array<{ id: string; durationMinutes: number }> } };
}

/** Onboards, gives weekly hours (Mon–Sun 09:00–17:00 unless given) and approves. */
export async function approvedProvider(
  t: TestApp,
  locationId: string,
  marketplace: Parameters<typeof onboard>[2] = {},
  weekly = weekdays([1, 2, 3, 4, 5, 6, 7], '09:00', '17:00'),
) {
  const provider = await onboard(t, [locationId], marketplace);
  await putSchedule(t, provider.id, locationId, weekly);
  const res = await t.request('POST', `/v1/providers/${provider.id}/approve`, { token: await t.adminToken() });
  if (res.status !== 200) throw new Error(`approval failed: ${res.status} ${res.text}`);
  return res.body as typeof provider & { rating: number | null; ratingCount: number };
}

/**
 * A marketplace booking written straight into the shared bookings table (status `completed` unless
 * given): enough for ratings and availability until the order flow makes them.
 */
export async function insertMarketplaceBooking(
  t: TestApp,
  facts: {
    providerId: string;
    parentId: string;
    petId: string;
    locationId: string;
    status?: string;
    startsAt?: string;
    minutes?: number;
    kind?: 'marketplace' | 'grooming';
  },
) {
  const now = t.clock.now();
  const startsAt = facts.startsAt ?? new Date(now - 86_400_000).toISOString();
  const endsAt = new Date(Date.parse(startsAt) + (facts.minutes ?? 60) * 60_000).toISOString();
  const at = new Date(now).toISOString();
  const id = newId('bkg');
  await t.stores
    .get('live')
    .db.insertInto('bookings')
    .values({
      id,
      tenant_id: t.tenantId,
      kind: facts.kind ?? 'marketplace',
      status: facts.status ?? 'completed',
      pet_id: facts.petId,
      parent_id: facts.parentId,
      location_id: facts.locationId,
      provider_id: facts.providerId,
      starts_at: startsAt,
      ends_at: endsAt,
      amount: 2500,
      currency: 'USD',
      invoice_id: null,
      created_at: at,
      updated_at: at,
    })
    .execute();
  return id;
}

/** The first date (YYYY-MM-DD, UTC) on ISO weekday `weekday` (Monday 1 … Sunday 7) at least `minDays` after `now`. */
export function nextWeekday(now: number, weekday: number, minDays = 7): string {
  let ms = now + minDays * 86_400_000;
  while (((new Date(ms).getUTCDay() + 6) % 7) + 1 !== weekday) ms += 86_400_000;
  return new Date(ms).toISOString().slice(0, 10);
}
