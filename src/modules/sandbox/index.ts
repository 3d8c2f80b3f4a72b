export { sandboxRoutes, seedSandboxIfEmpty } from './sandbox.routes.js';
export { businessNow } from './business-clock.js';
