export { auditRoutes } from './audit.routes.js';
export { auditModule } from './audit.module.js';
