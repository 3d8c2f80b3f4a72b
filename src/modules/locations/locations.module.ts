import type { ModuleManifest } from '../../module-manifest.js';
import { locationRoutes } from './locations.routes.js';

export const locationsModule: ModuleManifest<Parameters<typeof locationRoutes>[0]> = {
  name: 'locations',
  sdk: {
    locations: {
      create: 'createLocation',
      list: 'listLocations',
      get: 'getLocation',
      update: 'updateLocation',
    },
  },
  routes: (deps) => locationRoutes(deps),
  tags: { Locations: 'Clinics, salons and boarding sites, each with its time zone. Admin only.' },
  tables: ['locations'],
  access: {
    locations: { location: 'id' },
  },
  reset: { rows: ['locations'] },
};
