export { jobRoutes } from './jobs.routes.js';
