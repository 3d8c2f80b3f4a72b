export { vaccinationRoutes } from './vaccinations.routes.js';
export { deleteTenantVaccinations, findVaccination } from './vaccinations.repository.js';
