import type { ModuleManifest } from '../../module-manifest.js';
import { petRoutes } from './pets.routes.js';

export const petsModule: ModuleManifest<Parameters<typeof petRoutes>[0]> = {
  name: 'pets',
  routes: (deps) => petRoutes(deps),
  tags: { Pets: 'Pets (pet_ ids), scoped to a location.' },
  tables: ['pets'],
  access: {
    pets: { location: 'location_id' },
  },
  reset: { rows: ['pets'] },
};
