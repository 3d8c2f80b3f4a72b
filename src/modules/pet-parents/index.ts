export { petParentRoutes } from './pet-parents.routes.js';
export { findPetParent } from './pet-parents.repository.js';
export { petParentsModule } from './pet-parents.module.js';
export { CreatePetParentSchema } from './pet-parents.schema.js';
export { petParentRow } from './pet-parents.service.js';
