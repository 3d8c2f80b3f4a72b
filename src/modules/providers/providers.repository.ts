import { sql } from 'kysely';
import { acrossTenants, scoped } from '../../db/access-policy.js';
import { selectRows, type Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { ListingCategory, MarketplaceListingsTable, ProviderMarketplaceProfilesTable, ProvidersTable } from './providers.table.js';

/** A provider row with the locations it works at (only those the caller may see). */
export interface ProviderRecord extends ProvidersTable {
  locationIds: string[];
  /** A marketplace provider's profile and listings, when the caller asked for them (`withMarketplace`). */
  marketplace?: { profile: ProviderMarketplaceProfilesTable; listings: MarketplaceListingsTable[] } | undefined;
}

/**
 * Providers the caller may see (the policy: tenant always; a location-scoped caller sees a provider
 * when it works at one of the caller's locations, through provider_locations).
 */
function visible(db: Executor, actor: AccessFilter) {
  return scoped(db, actor).selectFrom('providers').selectAll('providers');
}

/** Location ids per provider, narrowed to the caller's view. */
async function locationsOf(db: Executor, actor: AccessFilter, providerIds: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>(providerIds.map((id) => [id, []]));
  if (providerIds.length === 0) return out;
  const query = scoped(db, actor)
    .selectFrom('provider_locations')
    .select(['provider_id', 'location_id'])
    .where('provider_id', 'in', [...providerIds]);
  for (const row of await query.orderBy('location_id').execute()) out.get(row.provider_id)?.push(row.location_id);
  return out;
}

async function withLocations(db: Executor, actor: AccessFilter, rows: ProvidersTable[]): Promise<ProviderRecord[]> {
  const byProvider = await locationsOf(
    db,
    actor,
    rows.map((r) => r.id),
  );
  return rows.map((row) => ({ ...row, locationIds: byProvider.get(row.id) ?? [] }));
}

export async function findProvider(db: Executor, actor: AccessFilter, id: string): Promise<ProviderRecord | null> {
  const row = await visible(db, actor).where('providers.id', '=', id).executeTakeFirst();
  return row ? ((await withLocations(db, actor, [row]))[0] ?? null) : null;
}

/** Every location of a provider `access` covers (`wholeTenant`: all of them, to keep the hidden ones on a PATCH). */
export async function allLocationsOf(db: Executor, access: AccessFilter, providerId: string): Promise<string[]> {
  const rows = await scoped(db, access).selectFrom('provider_locations').select('location_id').where('provider_id', '=', providerId).execute();
  return rows.map((r) => r.location_id);
}

export interface ProviderFilters {
  locationId?: string | undefined;
  kind?: string | undefined;
  /** Lower-case type code: providers offering it, or offering every type. */
  service?: string | undefined;
  status?: string | undefined;
  /** Any of these statuses (the directory's default: the bookable ones). */
  statuses?: readonly string[] | undefined;
  /** Marketplace providers with an active listing of this category. */
  category?: ListingCategory | undefined;
  /** Rated at least this (unrated providers drop out). */
  minRating?: number | undefined;
  /** Text in the name or the marketplace bio, case-insensitive. */
  q?: string | undefined;
  /** The provider imported with this id. */
  externalId?: string | undefined;
}

/** `%text%` for LIKE with its wildcards taken literally (ESCAPE '\\'). */
const likeText = (text: string): string => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function filtered(db: Executor, actor: AccessFilter, filters: ProviderFilters) {
  let query = visible(db, actor);
  if (filters.locationId !== undefined) {
    const locationId = filters.locationId;
    // A location outside the caller's scope matches nothing: who works there is not theirs to learn.
    if (actor.locationIds !== null && !actor.locationIds.includes(locationId)) return query.where(sql<boolean>`0`);
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('provider_locations as pl')
          .select(sql<number>`1`.as('one'))
          .whereRef('pl.provider_id', '=', 'providers.id')
          .where('pl.location_id', '=', locationId),
      ),
    );
  }
  if (filters.kind !== undefined) query = query.where('providers.kind', '=', filters.kind);
  if (filters.externalId !== undefined) query = query.where('providers.external_id', '=', filters.externalId);
  if (filters.status !== undefined) query = query.where('providers.status', '=', filters.status);
  if (filters.statuses !== undefined) query = query.where('providers.status', 'in', [...filters.statuses]);
  if (filters.minRating !== undefined) query = query.where('providers.rating', '>=', filters.minRating);
  if (filters.category !== undefined) {
    const category = filters.category;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('marketplace_listings as ml')
          .select(sql<number>`1`.as('one'))
          .whereRef('ml.provider_id', '=', 'providers.id')
          .where('ml.status', '=', 'active')
          .where('ml.category', '=', category),
      ),
    );
  }
  if (filters.q !== undefined) {
    const text = likeText(filters.q);
    query = query.where((eb) =>
      eb.or([
        sql<boolean>`lower(providers.name) LIKE ${text} ESCAPE '\\'`,
        eb.exists(
          eb
            .selectFrom('provider_marketplace_profiles as mp')
            .select(sql<number>`1`.as('one'))
            .whereRef('mp.provider_id', '=', 'providers.id')
            .where(sql<boolean>`lower(mp.bio) LIKE ${text} ESCAPE '\\'`),
        ),
      ]),
    );
  }
  if (filters.service !== undefined) {
    const service = filters.service;
    query = query.where((eb) =>
      eb.or([
        eb('providers.services', '=', '[]'),
        eb.exists(eb.selectFrom(sql`json_each(providers.services)`.as('s')).select(sql<number>`1`.as('one')).where(sql.ref('s.value'), '=', service)),
      ]),
    );
  }
  return query;
}

export async function listProviders(db: Executor, actor: AccessFilter, page: PageRequest, filters: ProviderFilters): Promise<ProviderRecord[]> {
  return withLocations(db, actor, await pageQuery(filtered(db, actor, filters), page, 'providers.id').execute());
}

/** Every matching provider, unpaged (availability and matching; a location has tens of providers). */
export async function providersFor(db: Executor, actor: AccessFilter, filters: ProviderFilters & { ids?: readonly string[] }): Promise<ProviderRecord[]> {
  let query = filtered(db, actor, filters);
  if (filters.ids !== undefined) query = query.where('providers.id', 'in', filters.ids.length ? [...filters.ids] : ['']);
  return withLocations(db, actor, await query.orderBy('providers.id').limit(1000).execute());
}

export async function insertProvider(db: Executor, access: AccessFilter, row: ProvidersTable, locationIds: readonly string[]): Promise<void> {
  const to = scoped(db, access);
  await to.insert('providers', row);
  await to.insert(
    'provider_locations',
    locationIds.map((location_id) => ({ provider_id: row.id, location_id, tenant_id: row.tenant_id })),
  );
}

export async function updateProvider(db: Executor, access: AccessFilter, id: string, patch: Partial<ProvidersTable>): Promise<void> {
  await scoped(db, access).updateTable('providers').set(patch).where('id', '=', id).execute();
}

/** `access` is the whole tenant: the caller proved it sees the provider, and keeps the locations it does not see. */
export async function replaceProviderLocations(db: Executor, access: AccessFilter, id: string, locationIds: readonly string[]): Promise<void> {
  const to = scoped(db, access);
  await to.deleteFrom('provider_locations').where('provider_id', '=', id).execute();
  await to.insert(
    'provider_locations',
    locationIds.map((location_id) => ({ provider_id: id, location_id, tenant_id: access.tenantId })),
  );
}

/** What the marketplace slot search needs of one schedule (a provider's weekly hours at one location). */
export interface ProviderScheduleFacts {
  provider_id: string;
  location_id: string;
  timezone: string;
  weekly: string;
  time_off: string;
}

/**
 * Schedules (kept by the appointments module) of the given providers at locations they still work
 * at and the caller can see, optionally at one location: one query for a whole directory page.
 */
export async function schedulesOfProviders(
  db: Executor,
  actor: AccessFilter,
  providerIds: readonly string[],
  locationId?: string,
): Promise<ProviderScheduleFacts[]> {
  if (providerIds.length === 0) return [];
  let query = scoped(db, actor)
    .selectFrom('provider_schedules as s')
    .innerJoin('locations as l', 'l.id', 's.location_id')
    .innerJoin('provider_locations as pl', (join) => join.onRef('pl.provider_id', '=', 's.provider_id').onRef('pl.location_id', '=', 's.location_id'))
    .select(['s.provider_id', 's.location_id', 'l.timezone', 's.weekly', 's.time_off'])
    .where('s.provider_id', 'in', [...providerIds]);
  if (locationId !== undefined) query = query.where('s.location_id', '=', locationId);
  return query.orderBy('s.provider_id').orderBy('s.location_id').execute();
}

/** The shortest active listing per provider (of one category when given): the slot length a search uses. */
export async function shortestListings(
  db: Executor,
  access: AccessFilter,
  providerIds: readonly string[],
  category?: ListingCategory,
): Promise<Map<string, number>> {
  if (providerIds.length === 0) return new Map();
  let query = scoped(db, access)
    .selectFrom('marketplace_listings')
    .select(['provider_id', (eb) => eb.fn.min<number>('duration_minutes').as('minutes')])
    .where('provider_id', 'in', [...providerIds])
    .where('status', '=', 'active');
  if (category !== undefined) query = query.where('category', '=', category);
  const rows = await query.groupBy('provider_id').execute();
  return new Map(rows.map((r) => [r.provider_id, Number(r.minutes)]));
}

/** The change counter of everything the directory reads (triggers move it): one small statement. */
export async function directoryVersion(db: Executor): Promise<number> {
  const [row] = await selectRows<{ version: number }>(
    acrossTenants(db, 'the directory change counter is one row for the whole appliance'),
    'select version from provider_directory_version where id = 1',
    [],
  );
  return row?.version ?? -1;
}
