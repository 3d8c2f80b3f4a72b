import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { Executor } from '../../db/database.js';
import type { AnyRoute } from '../../http/route.js';
import type { JobDefinition } from '../../jobs/job-definition.js';
import { deleteGroomingRows } from './grooming.repository.js';
import { groomingRouteList } from './grooming.routes.js';

/** The grooming module (DESIGN §11): packages, grooms (bookings of kind grooming), stylist assignment, availability, memberships and prepaid bundles. */
export function groomingRoutes(deps: { config: Config; clock: Clock }): AnyRoute[] {
  return groomingRouteList(deps);
}

/** Grooming has no jobs of its own: memberships bill through payments' subscription-billing job. */
export function groomingJobs(_deps: { config: Config }): JobDefinition[] {
  return [];
}

/** Sandbox reset: erases this module's own rows of a tenant (run before the shared bookings rows go). */
export async function eraseGroomingRecords(db: Executor, tenantId: string): Promise<void> {
  await deleteGroomingRows(db, tenantId);
}
export { groomingModule } from './grooming.module.js';
