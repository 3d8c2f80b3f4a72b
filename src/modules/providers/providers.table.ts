/** Tables of the providers module (rows follow the conventions at the top of src/db/database.ts). */

/** A vet, groomer, sitter, walker or trainer: clinic staff today, marketplace providers later. */
export interface ProvidersTable {
  id: string;
  tenant_id: string;
  name: string;
  /** vet | groomer | sitter | walker | trainer */
  kind: string;
  /** Staff: active | inactive. Marketplace (a profile row exists): pending | approved | suspended. */
  status: string;
  /** JSON array of lower-case appointment type codes; [] means every type. */
  services: string;
  /** Average stars of its reviews, 1 decimal, null until rated: kept by triggers on provider_reviews. */
  rating: number | null;
  rating_count: number;
  created_at: string;
  updated_at: string;
  /** The source system's id of an imported row (imports module), null otherwise; unique per tenant. */
  external_id?: string | null;
}

/** Where a provider works; location-scoped clients see a provider through these rows. */
export interface ProviderLocationsTable {
  provider_id: string;
  location_id: string;
  tenant_id: string;
}

/** The marketplace side of a provider; its presence makes the provider a marketplace provider. */
export interface ProviderMarketplaceProfilesTable {
  provider_id: string;
  tenant_id: string;
  bio: string | null;
  service_area: string | null;
  /** Per-provider commission override in basis points; null = the tenant default. */
  commission_bps: number | null;
  approved_at: string | null;
  suspended_at: string | null;
  created_at: string;
  updated_at: string;
}

export const listingCategories = ['walking', 'sitting', 'boarding', 'daycare', 'training', 'grooming', 'transport', 'other'] as const;
export type ListingCategory = (typeof listingCategories)[number];

/** What a marketplace provider sells: a priced, timed service (lst_…). */
export interface MarketplaceListingsTable {
  id: string;
  tenant_id: string;
  provider_id: string;
  name: string;
  category: ListingCategory;
  /** Integer minor units. */
  amount: number;
  currency: string;
  duration_minutes: number;
  /** active | inactive (deactivated listings take no new orders). */
  status: 'active' | 'inactive';
  created_at: string;
  updated_at: string;
}

/** One verified review per completed marketplace booking (rev_…); only the reply changes, once. */
export interface ProviderReviewsTable {
  id: string;
  tenant_id: string;
  provider_id: string;
  booking_id: string;
  parent_id: string;
  pet_id: string;
  /** The booking's location: location-scoped clients see reviews of their locations. */
  location_id: string;
  stars: number;
  comment: string | null;
  reply: string | null;
  replied_at: string | null;
  created_at: string;
}

/** One row: the change counter of everything the directory reads, moved by triggers. */
export interface ProviderDirectoryVersionTable {
  id: number;
  version: number;
}

export interface ProvidersTables {
  providers: ProvidersTable;
  provider_locations: ProviderLocationsTable;
  provider_marketplace_profiles: ProviderMarketplaceProfilesTable;
  marketplace_listings: MarketplaceListingsTable;
  provider_reviews: ProviderReviewsTable;
  provider_directory_version: ProviderDirectoryVersionTable;
}
