export { providerRoutes } from './providers.routes.js';
export { findProvider, providersFor, type ProviderRecord } from './providers.repository.js';
export { presentProvider, providerServices } from './providers.presenter.js';
export { ProviderId, TypeCode, typeCode } from './providers.schema.js';
