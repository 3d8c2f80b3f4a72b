/** Tables of the providers module (rows follow the conventions at the top of src/db/database.ts). */

/** A vet, groomer, sitter, walker or trainer: clinic staff today, marketplace providers later. */
export interface ProvidersTable {
  id: string;
  tenant_id: string;
  name: string;
  /** vet | groomer | sitter | walker | trainer */
  kind: string;
  /** active | inactive (the marketplace work may add pending / approved / suspended). */
  status: string;
  /** JSON array of lower-case appointment type codes; [] means every type. */
  services: string;
  /** Average rating 1–5, null until rated (marketplace ratings). */
  rating: number | null;
  rating_count: number;
  created_at: string;
  updated_at: string;
}

/** Where a provider works; location-scoped clients see a provider through these rows. */
export interface ProviderLocationsTable {
  provider_id: string;
  location_id: string;
  tenant_id: string;
}

export interface ProvidersTables {
  providers: ProvidersTable;
  provider_locations: ProviderLocationsTable;
}
