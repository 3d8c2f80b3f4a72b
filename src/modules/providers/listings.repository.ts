import { scoped } from '../../db/access-policy.js';
import type { Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import type { MarketplaceListingsTable, ProviderMarketplaceProfilesTable } from './providers.table.js';

/**
 * SQL of the marketplace side of providers: profiles and listings, both tenant-wide (the policy).
 * Callers have already found the provider through `findProvider` (tenant and location applied there).
 */

export async function insertProfile(db: Executor, access: AccessFilter, row: ProviderMarketplaceProfilesTable): Promise<void> {
  await scoped(db, access).insert('provider_marketplace_profiles', row);
}

export async function findProfile(db: Executor, actor: AccessFilter, providerId: string): Promise<ProviderMarketplaceProfilesTable | null> {
  return (await scoped(db, actor).selectFrom('provider_marketplace_profiles').selectAll().where('provider_id', '=', providerId).executeTakeFirst()) ?? null;
}

export async function updateProfile(db: Executor, access: AccessFilter, providerId: string, patch: Partial<ProviderMarketplaceProfilesTable>): Promise<void> {
  await scoped(db, access).updateTable('provider_marketplace_profiles').set(patch).where('provider_id', '=', providerId).execute();
}

/** Profiles of the given providers (a page of the directory). */
export async function profilesOf(db: Executor, access: AccessFilter, providerIds: readonly string[]): Promise<Map<string, ProviderMarketplaceProfilesTable>> {
  if (providerIds.length === 0) return new Map();
  const rows = await scoped(db, access)
    .selectFrom('provider_marketplace_profiles')
    .selectAll()
    .where('provider_id', 'in', [...providerIds])
    .execute();
  return new Map(rows.map((r) => [r.provider_id, r]));
}

export async function insertListings(db: Executor, access: AccessFilter, rows: readonly MarketplaceListingsTable[]): Promise<void> {
  await scoped(db, access).insert('marketplace_listings', rows);
}

export async function findListing(db: Executor, access: AccessFilter, providerId: string, listingId: string): Promise<MarketplaceListingsTable | null> {
  return (
    (await scoped(db, access)
      .selectFrom('marketplace_listings')
      .selectAll()
      .where('id', '=', listingId)
      .where('provider_id', '=', providerId)
      .executeTakeFirst()) ?? null
  );
}

export async function updateListing(db: Executor, access: AccessFilter, id: string, patch: Partial<MarketplaceListingsTable>): Promise<void> {
  await scoped(db, access).updateTable('marketplace_listings').set(patch).where('id', '=', id).execute();
}

/** Listings of the given providers, oldest first (what a directory entry shows); `activeOnly` drops deactivated ones. */
export async function listingsOf(
  db: Executor,
  access: AccessFilter,
  providerIds: readonly string[],
  activeOnly: boolean,
): Promise<Map<string, MarketplaceListingsTable[]>> {
  const out = new Map<string, MarketplaceListingsTable[]>(providerIds.map((id) => [id, []]));
  if (providerIds.length === 0) return out;
  let query = scoped(db, access)
    .selectFrom('marketplace_listings')
    .selectAll()
    .where('provider_id', 'in', [...providerIds]);
  if (activeOnly) query = query.where('status', '=', 'active');
  for (const row of await query.orderBy('id').execute()) out.get(row.provider_id)?.push(row);
  return out;
}

/** Active listings of a provider (approval needs one). */
export async function countActiveListings(db: Executor, access: AccessFilter, providerId: string): Promise<number> {
  const row = await scoped(db, access)
    .selectFrom('marketplace_listings')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('provider_id', '=', providerId)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Marketplace rows of a tenant go (sandbox reset only), before its providers and bookings. */
export async function eraseMarketplaceProviderRecords(db: Executor, tenantId: string): Promise<void> {
  const tenant = scoped(db, { tenantId, locationIds: null });
  await tenant.deleteFrom('provider_reviews').execute();
  await tenant.deleteFrom('marketplace_listings').execute();
  await tenant.deleteFrom('provider_marketplace_profiles').execute();
}
