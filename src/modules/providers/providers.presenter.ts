import type { ProviderRecord } from './providers.repository.js';
import type { ListingOut, ProviderKind, ProviderOut, ProviderStatus } from './providers.schema.js';
import type { MarketplaceListingsTable, ProviderReviewsTable } from './providers.table.js';
import type { ReviewOut } from './reviews.schema.js';

export const providerServices = (row: Pick<ProviderRecord, 'services'>): string[] => JSON.parse(row.services) as string[];

export const presentListing = (row: MarketplaceListingsTable): ListingOut => ({
  id: row.id,
  name: row.name,
  category: row.category,
  amount: row.amount,
  currency: row.currency,
  durationMinutes: row.duration_minutes,
  status: row.status,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export const presentProvider = (row: ProviderRecord): ProviderOut => {
  const out: ProviderOut = {
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
    externalId: row.external_id ?? null,
  };
  const market = row.marketplace;
  if (market) {
    out.marketplace = {
      bio: market.profile.bio,
      serviceArea: market.profile.service_area,
      commissionBps: market.profile.commission_bps,
      approvedAt: market.profile.approved_at,
      suspendedAt: market.profile.suspended_at,
      listings: market.listings.map(presentListing),
    };
  }
  return out;
};

export const presentReview = (row: ProviderReviewsTable): ReviewOut => ({
  id: row.id,
  providerId: row.provider_id,
  bookingId: row.booking_id,
  stars: row.stars,
  comment: row.comment,
  reply: row.reply,
  verified: true,
  createdAt: row.created_at,
});
