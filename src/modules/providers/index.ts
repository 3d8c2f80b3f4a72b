export { findProvider, providersFor, type ProviderRecord } from './providers.repository.js';
export { presentProvider, providerServices } from './providers.presenter.js';
export { ProviderId, TypeCode, typeCode, ListingId } from './providers.schema.js';
// The marketplace side other modules build on (orders, commissions, settlements: DESIGN §12).
export { BookableNotFound, findBookableListing, isBookable, type BookableListing } from './marketplace-providers.service.js';
export { eraseMarketplaceProviderRecords } from './listings.repository.js';
export { providerRoutes } from './providers.routes.js';
export { providersModule } from './providers.module.js';
export { CreateProviderSchema } from './providers.schema.js';
