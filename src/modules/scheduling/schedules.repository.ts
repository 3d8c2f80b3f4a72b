import { scoped } from '../../db/access-policy.js';
import type { Database, Executor, LocationsTable } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';

/** The provider_schedules row (the table's type is declared with the appointments module's tables). */
type ProviderSchedulesTable = Database['provider_schedules'];

/** A schedule with its location's zone. */
export interface ScheduleRecord extends ProviderSchedulesTable {
  timezone: LocationsTable['timezone'];
}

/**
 * Tenant, and the caller's locations when it is location-scoped. Only schedules of locations the
 * provider still works at count (a provider moved off a location keeps no hours there).
 */
function visible(db: Executor, actor: AccessFilter) {
  return scoped(db, actor)
    .selectFrom('provider_schedules as s')
    .innerJoin('locations as l', 'l.id', 's.location_id')
    .innerJoin('provider_locations as pl', (join) => join.onRef('pl.provider_id', '=', 's.provider_id').onRef('pl.location_id', '=', 's.location_id'))
    .selectAll('s')
    .select('l.timezone');
}

export async function listSchedules(
  db: Executor,
  actor: AccessFilter,
  page: PageRequest,
  filters: { providerId?: string | undefined; locationId?: string | undefined },
): Promise<ScheduleRecord[]> {
  let query = visible(db, actor);
  if (filters.providerId !== undefined) query = query.where('s.provider_id', '=', filters.providerId);
  if (filters.locationId !== undefined) query = query.where('s.location_id', '=', filters.locationId);
  return pageQuery(query, page, 's.id').execute();
}

export async function findSchedule(db: Executor, actor: AccessFilter, providerId: string, locationId: string): Promise<ScheduleRecord | null> {
  return (await visible(db, actor).where('s.provider_id', '=', providerId).where('s.location_id', '=', locationId).executeTakeFirst()) ?? null;
}

/** The schedules at one location of the given providers (availability, matching). */
export async function schedulesAt(db: Executor, actor: AccessFilter, locationId: string, providerIds: readonly string[]): Promise<ScheduleRecord[]> {
  if (providerIds.length === 0) return [];
  return visible(db, actor)
    .where('s.location_id', '=', locationId)
    .where('s.provider_id', 'in', [...providerIds])
    .execute();
}

/** Every schedule of one provider the caller can see (to find the location a booking falls in). */
export async function schedulesOf(db: Executor, actor: AccessFilter, providerId: string): Promise<ScheduleRecord[]> {
  return visible(db, actor).where('s.provider_id', '=', providerId).orderBy('s.id').execute();
}

/**
 * Insert or replace the provider's schedule at a location (one row per provider and location): the
 * row there takes the new hours, or `row` is inserted. Run inside the write's transaction (the PUT's).
 */
export async function upsertSchedule(db: Executor, access: AccessFilter, row: ProviderSchedulesTable): Promise<ProviderSchedulesTable> {
  const to = scoped(db, access);
  const replaced = await to
    .updateTable('provider_schedules')
    .set({ weekly: row.weekly, time_off: row.time_off, updated_at: row.updated_at })
    .where('provider_id', '=', row.provider_id)
    .where('location_id', '=', row.location_id)
    .returningAll()
    .executeTakeFirst();
  if (replaced) return replaced;
  await to.insert('provider_schedules', row);
  return row;
}

/** What availability needs of a bookable provider's schedule at one location. */
export interface BookableSchedule {
  provider_id: string;
  weekly: string;
  time_off: string;
  /** The provider's services (JSON list; [] = every type). */
  services: string;
}

/**
 * Schedules at a location of active providers who still work there, in one query (availability's
 * hot path). The caller has checked that it sees the location, so it sees these providers.
 */
export async function bookableSchedulesAt(db: Executor, actor: AccessFilter, locationId: string, providerId?: string): Promise<BookableSchedule[]> {
  let query = scoped(db, actor)
    .selectFrom('provider_schedules as s')
    .innerJoin('provider_locations as pl', (join) => join.onRef('pl.provider_id', '=', 's.provider_id').onRef('pl.location_id', '=', 's.location_id'))
    .innerJoin('providers as p', 'p.id', 's.provider_id')
    .select(['s.provider_id', 's.weekly', 's.time_off', 'p.services'])
    .where('s.location_id', '=', locationId)
    .where('p.status', '=', 'active');
  if (providerId !== undefined) query = query.where('s.provider_id', '=', providerId);
  return query.orderBy('s.provider_id').execute();
}
