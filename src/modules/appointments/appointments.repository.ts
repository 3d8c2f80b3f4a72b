import { sql } from 'kysely';
import type { SecretBox } from '../../db/secret-box.js';
import type { Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { Interval } from './appointment-slots.js';
import { maxBufferMinutes, maxDurationMinutes } from './appointment-types.repository.js';
import type { AppointmentsTable } from './appointments.table.js';
import { holdingStatuses } from './appointments.schema.js';
import { isoMsAt, minuteMs, toIso } from './local-time.js';
import { inList } from '../../db/in-list.js';
import type { BookingKind } from '../bookings/index.js';

/** An appointment with its provider's name (both forms of the seed's object need it). */
export interface AppointmentRecord extends AppointmentsTable {
  provider_name: string;
}

/** The access policy lives here: tenant always, the appointment's location when the caller is location-scoped. */
function visible(db: Executor, actor: AccessFilter) {
  let query = db
    .selectFrom('appointments as a')
    .innerJoin('providers as p', 'p.id', 'a.provider_id')
    .selectAll('a')
    .select('p.name as provider_name')
    .where('a.tenant_id', '=', actor.tenantId);
  if (actor.locationIds !== null) query = query.where('a.location_id', 'in', inList(actor.locationIds));
  return query;
}

export async function findAppointment(db: Executor, actor: AccessFilter, id: string): Promise<AppointmentRecord | null> {
  return (await visible(db, actor).where('a.id', '=', id).executeTakeFirst()) ?? null;
}

export interface AppointmentFilters {
  from?: string | undefined;
  to?: string | undefined;
  providerId?: string | undefined;
  petId?: string | undefined;
  locationId?: string | undefined;
  status?: string | undefined;
}

export async function listAppointments(db: Executor, actor: AccessFilter, page: PageRequest, filters: AppointmentFilters): Promise<AppointmentRecord[]> {
  let query = visible(db, actor);
  if (filters.from !== undefined) query = query.where('a.starts_at', '>=', filters.from);
  if (filters.to !== undefined) query = query.where('a.starts_at', '<', filters.to);
  if (filters.providerId !== undefined) query = query.where('a.provider_id', '=', filters.providerId);
  if (filters.petId !== undefined) query = query.where('a.pet_id', '=', filters.petId);
  if (filters.locationId !== undefined) query = query.where('a.location_id', '=', filters.locationId);
  if (filters.status !== undefined) query = query.where('a.status', '=', filters.status);
  return pageQuery(query, page, 'a.id').execute();
}

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
export async function busyIntervals(db: Executor, providerIds: readonly string[], from: number, to: number, exceptId?: string): Promise<Map<string, Interval[]>> {
  const out = new Map<string, Interval[]>(providerIds.map((id) => [id, []]));
  if (providerIds.length === 0) return out;
  // One row per provider and table with its spans concatenated: materialising thousands of row
  // objects costs more than the scan itself, and availability reads a whole location's fortnight at once.
  let appointments = db
    .selectFrom('appointments')
    .select(['provider_id', sql<string>`group_concat(blocked_from || ' ' || blocked_until, ' ')`.as('spans')])
    .where('provider_id', 'in', [...providerIds])
    .where('starts_at', '>=', toIso(from - maxSpanMs))
    .where('starts_at', '<', toIso(to + maxSpanMs))
    .where('status', 'in', [...holdingStatuses])
    .where('blocked_from', '<', toIso(to))
    .where('blocked_until', '>', toIso(from));
  let bookings = db
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

export async function insertAppointment(db: Executor, row: AppointmentsTable): Promise<void> {
  await db.insertInto('appointments').values(row).execute();
}

export async function updateAppointment(db: Executor, tenantId: string, id: string, patch: Partial<AppointmentsTable>): Promise<void> {
  await db.updateTable('appointments').set(patch).where('id', '=', id).where('tenant_id', '=', tenantId).execute();
}

/** The calendar link's lookup: by id alone, no caller (the service compares the token, the link's credential). */
export async function findCalendarEntry(db: Executor, id: string) {
  return (
    (await db
      .selectFrom('appointments as a')
      .innerJoin('providers as p', 'p.id', 'a.provider_id')
      .innerJoin('pets', 'pets.id', 'a.pet_id')
      .innerJoin('locations as l', 'l.id', 'a.location_id')
      .leftJoin('appointment_types as t', (join) => join.onRef('t.tenant_id', '=', 'a.tenant_id').onRef('t.code', '=', 'a.type'))
      .selectAll('a')
      .select(['p.name as provider_name', 'pets.name as pet_name', 'l.name as location_name', 'l.timezone', 't.name as type_name'])
      .where('a.id', '=', id)
      .executeTakeFirst()) ?? null
  );
}

/** Seals the calendar tokens an older release stored in clear; returns how many. */
export async function sealClearCalendarTokens(db: Executor, box: Pick<SecretBox, 'seal'>): Promise<number> {
  const rows = await db.selectFrom('appointments').select(['id', 'calendar_token']).where('calendar_token', 'not like', 'sealed:%').execute();
  for (const row of rows) await db.updateTable('appointments').set({ calendar_token: box.seal(row.calendar_token) }).where('id', '=', row.id).execute();
  return rows.length;
}
