export { petRoutes } from './pets.routes.js';
export { findPet, recordPetVisit } from './pets.repository.js';
