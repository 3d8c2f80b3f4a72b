import type { Clock } from '../../clock.js';
import { wholeTenant } from '../../http/actor.js';
import { pageRequest, pageSchema, toPage } from '../../http/paging.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { businessNow } from '../business-clock/index.js';
import { presentCarePlan, presentDose } from './care-plans.presenter.js';
import { listCarePlans, listDoses } from './care-plans.repository.js';
import {
  CarePlanParams,
  CarePlanSchema,
  CreateCarePlanSchema,
  CreateDoseSchema,
  DoseSchema,
  ListCarePlansQuery,
  ListDosesQuery,
  UpdateCarePlanSchema,
} from './care-plans.schema.js';
import { createCarePlan, getCarePlan, logDose, patchCarePlan } from './care-plans.service.js';

const tags = ['Boarding'];
const access = 'Scope `bookings` to write, `bookings.read` to read; a location-scoped client sees the plans of its locations only (others answer 404). ';
const times = 'Feeding and medication times are local times (HH:MM) at the stay’s location. ';

export function carePlanRoutes(deps: { clock: Clock }): AnyRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/boarding/care-plans',
      operationId: 'createBoardingCarePlan',
      summary: 'Create the care plan of a stay',
      description:
        access +
        times +
        'For a reserved or checked-in stay (else 409 `invalid_state_transition`). Medication names are unique in a plan (case-insensitively). ' +
        'administrationAmount (default 0) is charged per dose given, as a care item on the check-out invoice. ' +
        'The `care-plan-doses` job emits `boarding.dose_overdue` once per dose of a checked-in stay with nothing logged PETCARE_DOSE_OVERDUE_MINUTES after its time.',
      tags,
      access: { scope: 'bookings' },
      body: CreateCarePlanSchema,
      response: { status: 201, description: 'The new care plan', schema: CarePlanSchema },
      errors: ['resource_missing', 'invalid_state_transition'],
      handler: async ({ db, actor, body }) => ({ body: presentCarePlan(await createCarePlan(db, actor, body, await businessNow(db, actor.env, deps.clock))) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/boarding/care-plans',
      operationId: 'listBoardingCarePlans',
      summary: 'List care plans',
      description: access + 'Newest first; filters bookingId, petId, locationId, activeOn (plans of stays with a night on that date).',
      tags,
      access: { scope: 'bookings.read' },
      query: ListCarePlansQuery,
      response: { status: 200, description: 'A page of care plans', schema: pageSchema(CarePlanSchema) },
      errors: ['invalid_cursor'],
      handler: async ({ db, actor, query }) => {
        const page = pageRequest(query);
        return { body: toPage(await listCarePlans(db, actor, page, query), page, presentCarePlan) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/boarding/care-plans/:id',
      operationId: 'getBoardingCarePlan',
      summary: 'Get a care plan',
      description: access,
      tags,
      access: { scope: 'bookings.read' },
      params: CarePlanParams,
      response: { status: 200, description: 'The care plan', schema: CarePlanSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params }) => ({ body: presentCarePlan(await getCarePlan(db, actor, params.id)) }),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/boarding/care-plans/:id',
      operationId: 'updateBoardingCarePlan',
      summary: 'Change a care plan',
      description:
        access +
        times +
        'feeding and medications are replaced whole when given; doses already logged stay. Only while the stay is reserved or checked in (else 409 `invalid_state_transition`).',
      tags,
      access: { scope: 'bookings' },
      params: CarePlanParams,
      body: UpdateCarePlanSchema,
      response: { status: 200, description: 'The updated care plan', schema: CarePlanSchema },
      errors: ['not_found', 'invalid_state_transition'],
      handler: async ({ db, actor, params, body }) => ({
        body: presentCarePlan(await patchCarePlan(db, actor, params.id, body, await businessNow(db, actor.env, deps.clock))),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/boarding/care-plans/:id/doses',
      operationId: 'logBoardingDose',
      summary: 'Log a medication dose (append-only)',
      description:
        access +
        'medication names one of the plan’s medications (case-insensitively; else 400). scheduledFor is the dose’s scheduled instant: one of the medication’s times (local time at the location) ' +
        'on a local date of the stay, from the check-in day to the last night (or to today while the pet stays past its check-out day), given with its offset or in UTC; anything else is 422 `dose_not_scheduled`. ' +
        'One entry per medication and scheduled time: a second is 409 `dose_already_logged` (its `doseId` names the latest entry). A correction is a new entry with `supersedes` = the id of the latest entry of ' +
        'that dose (same medication and scheduledFor; an entry already corrected: 409 `dose_already_logged`); only the latest entry of a dose counts, and check-out bills a dose once if that entry says given. ' +
        'A dose logged for that instant, whatever the outcome, stops the overdue alert for it. Only while the stay is checked in (a reserved, checked-out or cancelled stay: 409 `invalid_state_transition`). ' +
        'The log is append-only: entries are never changed or deleted.',
      tags,
      access: { scope: 'bookings' },
      params: CarePlanParams,
      body: CreateDoseSchema,
      response: { status: 201, description: 'The dose log entry', schema: DoseSchema },
      errors: ['not_found', 'resource_missing', 'invalid_state_transition', 'dose_not_scheduled', 'dose_already_logged'],
      handler: async ({ db, actor, params, body }) => ({
        body: presentDose(await logDose(db, actor, params.id, body, await businessNow(db, actor.env, deps.clock))),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/boarding/care-plans/:id/doses',
      operationId: 'listBoardingDoses',
      summary: 'List the dose log of a care plan',
      description: access + 'Newest logged first.',
      tags,
      access: { scope: 'bookings.read' },
      params: CarePlanParams,
      query: ListDosesQuery,
      response: { status: 200, description: 'A page of dose log entries', schema: pageSchema(DoseSchema) },
      errors: ['not_found', 'invalid_cursor'],
      handler: async ({ db, actor, params, query }) => {
        const page = pageRequest(query);
        const plan = await getCarePlan(db, actor, params.id);
        // The plan was just found visible: its dose log needs only the tenant.
        return { body: toPage(await listDoses(db, wholeTenant(actor), plan.id, page), page, presentDose) };
      },
    }),
  ];
}
