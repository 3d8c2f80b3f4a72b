import type { ModuleManifest } from '../../module-manifest.js';
import { sandboxRoutes } from './sandbox.routes.js';
import { sandboxErrorCodes } from './sandbox.errors.js';

/** The sandbox's reset and test clock; the reset erases through every module's manifest. */
export const sandboxModule: ModuleManifest<Parameters<typeof sandboxRoutes>[0]> = {
  name: 'sandbox',
  errors: sandboxErrorCodes,
  sdk: {
    sandbox: {
      clock: 'getSandboxClock',
      advanceClock: 'advanceSandboxClock',
      reset: 'resetSandbox',
    },
  },
  routes: (deps) => sandboxRoutes(deps),
  tags: { Sandbox: 'Sandbox environment tools.' },
};
