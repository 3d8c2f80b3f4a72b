export { consoleRoutes, consoleSecurityHeaders } from './console.routes.js';
