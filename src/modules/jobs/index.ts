export { jobRoutes } from './jobs.routes.js';
export { jobsModule } from './jobs.module.js';
