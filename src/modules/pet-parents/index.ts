export { petParentRoutes } from './pet-parents.routes.js';
export { findPetParent } from './pet-parents.repository.js';
