export { petRoutes } from './pets.routes.js';
export { findPet, recordPetVisit } from './pets.repository.js';
export { petSizes, type PetSize } from './pets.table.js';
export { dueSoonDays, latestDoseRank, latestDosesDueThrough, latestDosesOfPet, latestDueDates, statusFrom, type LatestDose } from './vaccination-status.js';
export { PetSizeSchema } from './pets.schema.js';
export { petsModule } from './pets.module.js';
export { CreatePetSchema } from './pets.schema.js';
