import type { ProviderRecord } from './providers.repository.js';
import type { ProviderKind, ProviderOut, ProviderStatus } from './providers.schema.js';

export const providerServices = (row: Pick<ProviderRecord, 'services'>): string[] => JSON.parse(row.services) as string[];

export const presentProvider = (row: ProviderRecord): ProviderOut => ({
  id: row.id,
  name: row.name,
  kind: row.kind as ProviderKind,
  status: row.status as ProviderStatus,
  locationIds: row.locationIds,
  services: providerServices(row),
  rating: row.rating,
  ratingCount: row.rating_count,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});
