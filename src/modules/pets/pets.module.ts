import type { ModuleManifest } from '../../module-manifest.js';
import { petRoutes } from './pets.routes.js';
import { petsEvents } from './pets.events.js';

export const petsModule: ModuleManifest<Parameters<typeof petRoutes>[0]> = {
  name: 'pets',
  events: petsEvents,
  sdk: {
    pets: {
      create: 'createPet',
      list: 'listPets',
      get: 'getPet',
      update: 'updatePet',
    },
  },
  routes: (deps) => petRoutes(deps),
  tags: { Pets: 'Pets (pet_ ids), scoped to a location.' },
  tables: ['pets'],
  access: {
    pets: { location: 'location_id' },
  },
  reset: { rows: ['pets'] },
};
