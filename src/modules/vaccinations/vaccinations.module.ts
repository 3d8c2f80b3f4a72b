import type { ModuleManifest } from '../../module-manifest.js';
import type { VaccinationsTables } from './vaccinations.table.js';
import { vaccinationRoutes } from './vaccinations.routes.js';

// The module's tables join the `Database` type here, so src/db imports no module.
declare module '../../db/database.js' {
  interface Database extends VaccinationsTables {}
}

export const vaccinationsModule: ModuleManifest<Parameters<typeof vaccinationRoutes>[0]> = {
  name: 'vaccinations',
  sdk: {
    pets: {
      vaccinations: {
        create: 'createVaccination',
        list: 'listPetVaccinations',
      },
    },
    vaccinations: {
      get: 'getVaccination',
    },
  },
  routes: (deps) => vaccinationRoutes(deps),
  tags: { Vaccinations: "Vaccination records (vac_ ids); they drive the pet's vaccinationStatus." },
  tables: ['vaccinations'],
  access: {
    // Visible when its pet is: a record follows its pet when the pet moves (location_id is where it was given).
    vaccinations: { parent: 'pets', key: 'pet_id' },
  },
  reset: { rows: ['vaccinations'] },
};
