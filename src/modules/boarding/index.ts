// What the care coordinator (src/modules/ai) reads: the check-in vaccine rule and the missed-dose rule, one copy each.
export { missingVaccines } from './stays.service.js';
export { missedDoses } from './care-plan-doses.job.js';
export { presentCarePlan, presentDose } from './care-plans.presenter.js';
export { CarePlanSchema, DoseSchema } from './care-plans.schema.js';
export { boardingModule } from './boarding.module.js';
