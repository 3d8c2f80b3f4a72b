import { sql } from 'kysely';
import { acrossTenants } from '../../db/access-policy.js';
import type { Executor } from '../../db/database.js';
import type { BookingKind } from '../bookings/index.js';
import { maxBufferMinutes, maxDurationMinutes } from './appointment-types.js';
import { isoMsAt, minuteMs, toIso } from './local-time.js';
import type { Interval } from './slot-engine.js';

/** Statuses whose appointment still holds the provider's time. */
export const holdingStatuses = ['confirmed', 'checked_in', 'in_progress', 'completed'] as const;

/** No appointment blocks its provider longer than this (duration and both buffers at their maximum). */
const maxSpanMs = (maxDurationMinutes + 2 * maxBufferMinutes) * minuteMs;

/** No booking of the shared bookings table holds a provider longer than this (grooming packages last at most 600 minutes). */
export const maxProviderBookingMinutes = 24 * 60;
const maxBookingSpanMs = maxProviderBookingMinutes * minuteMs;

/** Bookings of the shared table that take a provider's time (DESIGN §11, §12): grooms and marketplace bookings. */
const providerBookingKinds: BookingKind[] = ['grooming', 'marketplace'];

/** Grooming and marketplace bookings that no longer hold their provider's time. */
const releasedBookingStatuses = ['cancelled', 'no_show'];

/**
 * Blocked intervals (buffers included) of the providers' appointments that still hold time and
 * could touch [from, to), whatever their location: a provider is in one place at a time. The
 * covering index on (provider_id, starts_at, status, blocked_from, blocked_until) bounds the scan to
 * the window plus the longest possible span and answers without reading the table. `providerIds`
 * come from the caller's tenant-scoped provider lookup, so no tenant predicate is needed here (one
 * would steer SQLite to the (tenant_id, starts_at) index, which scans every provider's rows).
 *
 * The same statement adds the provider's grooming and marketplace bookings (the shared `bookings`
 * table, DESIGN §11, §12): one busy time per provider, so nobody is double-booked across modules. Those read
 * the (provider_id, starts_at) index of bookings, bounded the same way.
 */
export async function busyIntervals(
  db: Executor,
  providerIds: readonly string[],
  from: number,
  to: number,
  exceptId?: string,
): Promise<Map<string, Interval[]>> {
  const out = new Map<string, Interval[]>(providerIds.map((id) => [id, []]));
  if (providerIds.length === 0) return out;
  // One row per provider and table with its spans concatenated: materialising thousands of row
  // objects costs more than the scan itself, and availability reads a whole location's fortnight at once.
  // Every location by design (a provider is in one place at a time), and no tenant predicate (see above):
  // the provider ids are the tenant's, from the caller's scoped lookup.
  const byProvider = acrossTenants(
    db,
    "hand-written plan: the provider ids come from the caller's tenant-scoped lookup; a tenant predicate would steer SQLite off the provider index",
  );
  let appointments = byProvider
    .selectFrom('appointments')
    .select(['provider_id', sql<string>`group_concat(blocked_from || ' ' || blocked_until, ' ')`.as('spans')])
    .where('provider_id', 'in', [...providerIds])
    .where('starts_at', '>=', toIso(from - maxSpanMs))
    .where('starts_at', '<', toIso(to + maxSpanMs))
    .where('status', 'in', [...holdingStatuses])
    .where('blocked_from', '<', toIso(to))
    .where('blocked_until', '>', toIso(from));
  let bookings = byProvider
    .selectFrom('bookings')
    .select([sql<string>`provider_id`.as('provider_id'), sql<string>`group_concat(starts_at || ' ' || ends_at, ' ')`.as('spans')])
    .where('provider_id', 'is not', null)
    .where('provider_id', 'in', [...providerIds])
    .where('starts_at', '>=', toIso(from - maxBookingSpanMs))
    .where('starts_at', '<', toIso(to))
    .where('kind', 'in', providerBookingKinds)
    .where('status', 'not in', releasedBookingStatuses)
    .where('ends_at', '>', toIso(from));
  if (exceptId !== undefined) {
    appointments = appointments.where('id', '!=', exceptId);
    bookings = bookings.where('id', '!=', exceptId);
  }
  for (const row of await appointments.groupBy('provider_id').unionAll(bookings.groupBy('provider_id')).execute()) {
    const list = out.get(row.provider_id);
    if (!list) continue;
    // "from until from until …", read in place without splitting.
    const text = row.spans;
    let at = 0;
    while (at < text.length) {
      const mid = text.indexOf(' ', at);
      const next = text.indexOf(' ', mid + 1);
      const end = next === -1 ? text.length : next;
      list.push({ from: isoMsAt(text, at, mid), to: isoMsAt(text, mid + 1, end) });
      at = end + 1;
    }
  }
  return out;
}
