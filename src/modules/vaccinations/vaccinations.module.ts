import type { ModuleManifest } from '../../module-manifest.js';
import { vaccinationRoutes } from './vaccinations.routes.js';

export const vaccinationsModule: ModuleManifest<Parameters<typeof vaccinationRoutes>[0]> = {
  name: 'vaccinations',
  routes: (deps) => vaccinationRoutes(deps),
  tags: { Vaccinations: "Vaccination records (vac_ ids); they drive the pet's vaccinationStatus." },
  tables: ['vaccinations'],
  reset: { rows: ['vaccinations'] },
};
