import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { Executor } from '../../db/database.js';
import type { AnyRoute } from '../../http/route.js';
import type { JobDefinition } from '../../jobs/job-definition.js';

/** The boarding module (DESIGN §10). Scaffold: routes, jobs and the sandbox erasure are filled in by the module. */
export function boardingRoutes(_deps: { config: Config; clock: Clock }): AnyRoute[] {
  return [];
}

export function boardingJobs(_deps: { config: Config }): JobDefinition[] {
  return [];
}

/** Sandbox reset: erases this module's own rows of a tenant (run before the shared bookings rows go). */
export async function eraseBoardingRecords(_db: Executor, _tenantId: string): Promise<void> {}
