export { petRoutes } from './pets.routes.js';
export { findPet, recordPetVisit, visiblePetIds } from './pets.repository.js';
