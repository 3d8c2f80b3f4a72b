import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { businessNow } from '../business-clock/index.js';
import { CareCoordinatorQuery, CareSummarySchema } from './care-coordinator.schema.js';
import { careSummary } from './care-coordinator.service.js';

export function careCoordinatorRoutes(deps: { clock: Clock; config: Config }): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/agents/care-coordinator',
      operationId: 'getCareCoordinatorSummary',
      summary: "A pet's care summary and next actions",
      description:
        'Needs scope `ai.read` (admin, doctor and staff hold it). Computed from the database on every call, deterministic, no model. ' +
        "A pet the caller may not see answers 404; every section holds only rows at the caller's locations. Sections: the latest dose per vaccine with its status " +
        '(the vaccinationStatus rule: overdue before today, due_soon within 30 days); upcoming or current appointments and bookings of every kind (boarding, grooming, marketplace); ' +
        'the boarding stay in house with its care plans, recent doses and missed doses (nothing logged PETCARE_DOSE_OVERDUE_MINUTES after the time); open invoices of the pet’s parent. ' +
        'Action rules, each naming its source ids: record_vaccinations (no vaccination record; due today), vaccinate_overdue (a latest dose due before today; due on that date), ' +
        'vaccination_due_soon (due within 30 days; due on that date), book_vaccination_before_boarding (a reserved stay whose location requires vaccines the pet lacks valid through check-out, ' +
        'the check-in rule; due on the check-in day), missed_dose_follow_up (per care plan and medication with missed doses; due today), pay_open_invoice (an open invoice with an amount due; ' +
        'due on its dueOn, else today). Actions come earliest due first. Today is the UTC date of the business clock (the sandbox test clock in the sandbox). Emits nothing.',
      tags: ['AI agents'],
      access: { scope: 'ai.read' },
      query: CareCoordinatorQuery,
      response: { status: 200, description: 'The care summary', schema: CareSummarySchema },
      errors: ['not_found'],
      handler: async ({ db, actor, query }) => ({
        body: await careSummary(db, actor, query.petId, await businessNow(db, actor.env, deps.clock), deps.config.doseOverdueMinutes),
        resourceId: query.petId,
      }),
    }),
  ];
}
