import type { ModuleManifest } from '../../module-manifest.js';
import type { ProvidersTables } from './providers.table.js';
import { eraseMarketplaceProviderRecords } from './listings.repository.js';
import { providerRoutes } from './providers.routes.js';
import { providersErrorCodes } from './providers.errors.js';
import { providersEvents } from './providers.events.js';

// The module's tables join the `Database` type here, so src/db imports no module.
declare module '../../db/database.js' {
  interface Database extends ProvidersTables {}
}

/** Providers, where they work and what they offer; their marketplace side (profiles, listings, reviews). */
export const providersModule: ModuleManifest<Parameters<typeof providerRoutes>[0]> = {
  name: 'providers',
  events: providersEvents,
  errors: providersErrorCodes,
  sdk: {
    providers: {
      create: 'createProvider',
      list: 'listProviders',
      get: 'getProvider',
      update: 'updateProvider',
      match: 'matchProviders',
      approve: 'approveProvider',
      suspend: 'suspendProvider',
      availability: 'listProviderAvailability',
      listings: {
        create: 'createProviderListing',
        update: 'updateProviderListing',
      },
      ratings: {
        create: 'rateProvider',
      },
      reviews: {
        list: 'listProviderReviews',
        reply: 'replyToProviderReview',
      },
    },
  },
  routes: (deps) => providerRoutes(deps),
  tags: {
    Providers:
      'Vets, groomers, sitters, walkers and trainers (prv_ ids), where they work and what they offer; ranked matching. Marketplace providers: ' +
      'onboarding with listings (lst_ ids), approval and suspension, the directory with ratings, and open slots across providers.',
    'Provider reviews': 'Ratings and verified reviews (rev_ ids) of marketplace providers, one per completed marketplace booking, and the provider reply.',
  },
  tables: ['providers', 'provider_locations', 'provider_marketplace_profiles', 'marketplace_listings', 'provider_reviews', 'provider_directory_version'],
  access: {
    // A location-scoped caller sees a provider that works at one of its locations.
    providers: { via: 'provider_locations', key: 'provider_id' },
    provider_locations: { location: 'location_id' },
    provider_marketplace_profiles: { location: null, why: "a provider's marketplace profile is group-wide" },
    marketplace_listings: { location: null, why: 'listings belong to a provider, group-wide' },
    provider_reviews: { location: 'location_id' },
    provider_directory_version: { system: 'a counter of writes that invalidates the cached directory' },
  },
  reset: {
    // Reviews point at bookings, which point at providers: the marketplace side goes before the shared bookings rows, providers after them.
    erase: { tables: ['provider_reviews', 'marketplace_listings', 'provider_marketplace_profiles'], run: eraseMarketplaceProviderRecords },
    rows: ['provider_locations', 'providers'],
  },
};
