import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { Executor } from '../../db/database.js';
import type { AnyRoute } from '../../http/route.js';
import type { JobDefinition } from '../../jobs/job-definition.js';
import { eraseBoardingRows } from './boarding-erasure.repository.js';
import { carePlanDosesJob } from './care-plan-doses.job.js';
import { carePlanRoutes } from './care-plans.routes.js';
import { roomRoutes } from './rooms.routes.js';
import { stayRoutes } from './stays.routes.js';

/** The boarding module (DESIGN §10): rooms, stays (bookings of kind boarding), check-in/out, occupancy, care plans and the dose log. */
export function boardingRoutes(deps: { config: Config; clock: Clock }): AnyRoute[] {
  return [...roomRoutes(deps), ...stayRoutes(deps), ...carePlanRoutes(deps)];
}

/** `care-plan-doses` (every 5 minutes): boarding.dose_overdue once per missed dose. */
export function boardingJobs(_deps: { config: Config }): JobDefinition[] {
  return [carePlanDosesJob()];
}

// What the care coordinator (src/modules/ai) reads: the check-in vaccine rule and the missed-dose rule, one copy each.
export { missingVaccines } from './stays.service.js';
export { missedDoses } from './care-plan-doses.job.js';
export { presentCarePlan, presentDose } from './care-plans.presenter.js';
export { CarePlanSchema, DoseSchema } from './care-plans.schema.js';

/** Sandbox reset: erases this module's own rows of a tenant (run before the shared bookings rows go). */
export async function eraseBoardingRecords(db: Executor, tenantId: string): Promise<void> {
  await eraseBoardingRows(db, tenantId, 'sandbox reset');
}
export { boardingModule } from './boarding.module.js';
