export { locationRoutes } from './locations.routes.js';
export { missingLocations, findLocation } from './locations.repository.js';
export { LocationId, boardingSpecies } from './locations.schema.js';
export { isTimeZone } from './locations.service.js';
export { requiredVaccinesOf } from './boarding-vaccines.js';
export type { BoardingRequiredVaccinesValue } from './locations.schema.js';
export { locationsModule } from './locations.module.js';
