export { sandboxRoutes, seedSandboxIfEmpty } from './sandbox.routes.js';
