export { vaccinationRoutes } from './vaccinations.routes.js';
export { deleteTenantVaccinations, findVaccination, vaccineKey } from './vaccinations.repository.js';
export { vaccinationsModule } from './vaccinations.module.js';
export { CreateVaccinationSchema } from './vaccinations.schema.js';
