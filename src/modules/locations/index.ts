export { locationRoutes } from './locations.routes.js';
export { missingLocations, findLocation } from './locations.repository.js';
export { LocationId } from './locations.schema.js';
export { isTimeZone } from './locations.service.js';
