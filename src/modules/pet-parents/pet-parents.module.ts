import type { ModuleManifest } from '../../module-manifest.js';
import { petParentRoutes } from './pet-parents.routes.js';

export const petParentsModule: ModuleManifest<Parameters<typeof petParentRoutes>[0]> = {
  name: 'pet-parents',
  sdk: {
    petParents: {
      create: 'createPetParent',
      list: 'listPetParents',
      get: 'getPetParent',
      update: 'updatePetParent',
    },
  },
  routes: (deps) => petParentRoutes(deps),
  tags: { 'Pet parents': 'Owners of pets (usr_ ids).' },
  tables: ['pet_parents'],
  access: {
    pet_parents: { location: 'location_id' },
  },
  reset: { rows: ['pet_parents'] },
};
