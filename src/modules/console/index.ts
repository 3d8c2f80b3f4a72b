export { consoleRoutes, consoleSecurityHeaders } from './console.routes.js';
export { consoleModule } from './console.module.js';
