import type { Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import type { MarketplaceListingsTable, ProviderMarketplaceProfilesTable } from './providers.table.js';

/**
 * SQL of the marketplace side of providers: profiles and listings. Callers have already found the
 * provider through `findProvider` (tenant and location applied there); these filter by tenant again.
 */

export async function insertProfile(db: Executor, row: ProviderMarketplaceProfilesTable): Promise<void> {
  await db.insertInto('provider_marketplace_profiles').values(row).execute();
}

export async function findProfile(db: Executor, actor: AccessFilter, providerId: string): Promise<ProviderMarketplaceProfilesTable | null> {
  return (
    (await db
      .selectFrom('provider_marketplace_profiles')
      .selectAll()
      .where('provider_id', '=', providerId)
      .where('tenant_id', '=', actor.tenantId)
      .executeTakeFirst()) ?? null
  );
}

export async function updateProfile(db: Executor, tenantId: string, providerId: string, patch: Partial<ProviderMarketplaceProfilesTable>): Promise<void> {
  await db.updateTable('provider_marketplace_profiles').set(patch).where('provider_id', '=', providerId).where('tenant_id', '=', tenantId).execute();
}

/** Profiles of the given providers (a page of the directory). */
export async function profilesOf(db: Executor, tenantId: string, providerIds: readonly string[]): Promise<Map<string, ProviderMarketplaceProfilesTable>> {
  if (providerIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('provider_marketplace_profiles')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('provider_id', 'in', [...providerIds])
    .execute();
  return new Map(rows.map((r) => [r.provider_id, r]));
}

export async function insertListings(db: Executor, rows: readonly MarketplaceListingsTable[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('marketplace_listings')
    .values([...rows])
    .execute();
}

export async function findListing(db: Executor, tenantId: string, providerId: string, listingId: string): Promise<MarketplaceListingsTable | null> {
  return (
    (await db
      .selectFrom('marketplace_listings')
      .selectAll()
      .where('id', '=', listingId)
      .where('provider_id', '=', providerId)
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst()) ?? null
  );
}

export async function updateListing(db: Executor, tenantId: string, id: string, patch: Partial<MarketplaceListingsTable>): Promise<void> {
  await db.updateTable('marketplace_listings').set(patch).where('id', '=', id).where('tenant_id', '=', tenantId).execute();
}

/** Listings of the given providers, oldest first (what a directory entry shows); `activeOnly` drops deactivated ones. */
export async function listingsOf(
  db: Executor,
  tenantId: string,
  providerIds: readonly string[],
  activeOnly: boolean,
): Promise<Map<string, MarketplaceListingsTable[]>> {
  const out = new Map<string, MarketplaceListingsTable[]>(providerIds.map((id) => [id, []]));
  if (providerIds.length === 0) return out;
  let query = db
    .selectFrom('marketplace_listings')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('provider_id', 'in', [...providerIds]);
  if (activeOnly) query = query.where('status', '=', 'active');
  for (const row of await query.orderBy('id').execute()) out.get(row.provider_id)?.push(row);
  return out;
}

/** Active listings of a provider (approval needs one). */
export async function countActiveListings(db: Executor, tenantId: string, providerId: string): Promise<number> {
  const row = await db
    .selectFrom('marketplace_listings')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId)
    .where('provider_id', '=', providerId)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Marketplace rows of a tenant go (sandbox reset only), before its providers and bookings. */
export async function eraseMarketplaceProviderRecords(db: Executor, tenantId: string): Promise<void> {
  await db.deleteFrom('provider_reviews').where('tenant_id', '=', tenantId).execute();
  await db.deleteFrom('marketplace_listings').where('tenant_id', '=', tenantId).execute();
  await db.deleteFrom('provider_marketplace_profiles').where('tenant_id', '=', tenantId).execute();
}
