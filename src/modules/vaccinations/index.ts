import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { Stores } from '../../db/stores.js';
import type { AnyRoute } from '../../http/route.js';

/** Scaffold: the module's routes arrive with its implementation. */
export function vaccinationRoutes(_deps: { config: Config; clock: Clock; stores: Stores }): AnyRoute[] {
  return [];
}
