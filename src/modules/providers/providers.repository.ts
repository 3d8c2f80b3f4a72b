import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { MarketplaceListingsTable, ProviderMarketplaceProfilesTable, ProvidersTable } from './providers.table.js';
import { inList } from '../../db/in-list.js';

/** A provider row with the locations it works at (only those the caller may see). */
export interface ProviderRecord extends ProvidersTable {
  locationIds: string[];
  /** A marketplace provider's profile and listings, when the caller asked for them (`withMarketplace`). */
  marketplace?: { profile: ProviderMarketplaceProfilesTable; listings: MarketplaceListingsTable[] } | undefined;
}

/**
 * The access policy lives here: tenant always; a location-scoped caller sees a provider
 * when it works at one of the caller's locations.
 */
function visible(db: Executor, actor: AccessFilter) {
  let query = db.selectFrom('providers').selectAll('providers').where('providers.tenant_id', '=', actor.tenantId);
  if (actor.locationIds !== null) {
    const ids = inList(actor.locationIds);
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('provider_locations')
          .select(sql<number>`1`.as('one'))
          .whereRef('provider_locations.provider_id', '=', 'providers.id')
          .where('provider_locations.location_id', 'in', ids),
      ),
    );
  }
  return query;
}

/** Location ids per provider, narrowed to the caller's view. */
async function locationsOf(db: Executor, actor: AccessFilter, providerIds: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>(providerIds.map((id) => [id, []]));
  if (providerIds.length === 0) return out;
  let query = db.selectFrom('provider_locations').select(['provider_id', 'location_id']).where('provider_id', 'in', [...providerIds]);
  if (actor.locationIds !== null) query = query.where('location_id', 'in', inList(actor.locationIds));
  for (const row of await query.orderBy('location_id').execute()) out.get(row.provider_id)?.push(row.location_id);
  return out;
}

async function withLocations(db: Executor, actor: AccessFilter, rows: ProvidersTable[]): Promise<ProviderRecord[]> {
  const byProvider = await locationsOf(db, actor, rows.map((r) => r.id));
  return rows.map((row) => ({ ...row, locationIds: byProvider.get(row.id) ?? [] }));
}

export async function findProvider(db: Executor, actor: AccessFilter, id: string): Promise<ProviderRecord | null> {
  const row = await visible(db, actor).where('providers.id', '=', id).executeTakeFirst();
  return row ? ((await withLocations(db, actor, [row]))[0] ?? null) : null;
}

/** Every location a provider works at, whatever the caller sees (to keep the hidden ones on a PATCH). */
export async function allLocationsOf(db: Executor, providerId: string): Promise<string[]> {
  const rows = await db.selectFrom('provider_locations').select('location_id').where('provider_id', '=', providerId).execute();
  return rows.map((r) => r.location_id);
}

export interface ProviderFilters {
  locationId?: string | undefined;
  kind?: string | undefined;
  /** Lower-case type code: providers offering it, or offering every type. */
  service?: string | undefined;
  status?: string | undefined;
}

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
  if (filters.status !== undefined) query = query.where('providers.status', '=', filters.status);
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

export async function insertProvider(db: Executor, row: ProvidersTable, locationIds: readonly string[]): Promise<void> {
  await db.insertInto('providers').values(row).execute();
  await db
    .insertInto('provider_locations')
    .values(locationIds.map((location_id) => ({ provider_id: row.id, location_id, tenant_id: row.tenant_id })))
    .execute();
}

export async function updateProvider(db: Executor, tenantId: string, id: string, patch: Partial<ProvidersTable>): Promise<void> {
  await db.updateTable('providers').set(patch).where('id', '=', id).where('tenant_id', '=', tenantId).execute();
}

export async function replaceProviderLocations(db: Executor, tenantId: string, id: string, locationIds: readonly string[]): Promise<void> {
  await db.deleteFrom('provider_locations').where('provider_id', '=', id).where('tenant_id', '=', tenantId).execute();
  if (locationIds.length === 0) return;
  await db
    .insertInto('provider_locations')
    .values(locationIds.map((location_id) => ({ provider_id: id, location_id, tenant_id: tenantId })))
    .execute();
}
