export { locationRoutes } from './locations.routes.js';
export { missingLocations, findLocation, listLocations } from './locations.repository.js';
export { LocationId, boardingSpecies, CreateLocationSchema, type CreateLocationInput } from './locations.schema.js';
export { isTimeZone, createLocation } from './locations.service.js';
export { presentLocation } from './locations.presenter.js';
export { requiredVaccinesOf } from './boarding-vaccines.js';
export type { BoardingRequiredVaccinesValue } from './locations.schema.js';
export { locationsModule } from './locations.module.js';
