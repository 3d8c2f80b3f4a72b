export { petRoutes } from './pets.routes.js';
export { findPet } from './pets.repository.js';
