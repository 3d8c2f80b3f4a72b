export { sandboxRoutes, seedSandboxIfEmpty } from './sandbox.routes.js';
export { sandboxModule } from './sandbox.module.js';
