import type { Clock } from '../../clock.js';
import { pageRequest, pageSchema, toPage } from '../../http/paging.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { presentSchedule } from './schedules.presenter.js';
import { listSchedules } from '../scheduling/index.js';
import { ListSchedulesQuery, PutScheduleSchema, ScheduleParams, ScheduleSchema } from './schedules.schema.js';
import { putSchedule } from './schedules.service.js';

const tags = ['Schedules'];

export function scheduleRoutes(deps: { clock: Clock }): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/appointments/schedules',
      operationId: 'listSchedules',
      summary: 'List provider schedules',
      description: 'Working hours and time off per provider and location, newest first; filter by providerId or locationId.',
      tags,
      access: { scope: 'bookings.read' },
      query: ListSchedulesQuery,
      response: { status: 200, description: 'A page of schedules', schema: pageSchema(ScheduleSchema) },
      errors: ['invalid_cursor'],
      handler: async ({ db, actor, query }) => {
        const page = pageRequest(query);
        return { body: toPage(await listSchedules(db, actor, page, query), page, presentSchedule) };
      },
    }),
    defineRoute({
      method: 'put',
      path: '/v1/appointments/schedules/:providerId',
      operationId: 'putSchedule',
      summary: "Set a provider's schedule at a location",
      description:
        "Replaces the provider's weekly working windows and time off at `locationId`, read in that location's time zone (so 09:00 stays 09:00 " +
        'across daylight-saving changes). Windows on one weekday may touch but not overlap; start < end (24:00 may end a window). Time off `from`/`to` ' +
        'take a date (a whole local day; `to` includes its day), a local date-time, or a date-time with offset; they are answered in UTC. A provider ' +
        'with a schedule at a location can only be booked inside its windows there; one without a schedule there can be booked at any time. ' +
        'The provider must work at the location.',
      tags,
      access: { scope: 'bookings', roles: ['admin', 'staff'] },
      params: ScheduleParams,
      body: PutScheduleSchema,
      response: { status: 200, description: 'The schedule now in force', schema: ScheduleSchema },
      errors: ['not_found', 'resource_missing'],
      handler: async ({ db, actor, params, body }) => {
        const row = await putSchedule(db, actor, params.providerId, body, deps.clock.now());
        return { body: presentSchedule(row) };
      },
    }),
  ];
}
