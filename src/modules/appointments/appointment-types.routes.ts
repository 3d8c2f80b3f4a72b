import { Type } from '@sinclair/typebox';
import type { Clock } from '../../clock.js';
import { foundOr404 } from '../../http/errors.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { presentAppointmentType } from './appointment-types.presenter.js';
import { findAppointmentType, listAppointmentTypes } from './appointment-types.repository.js';
import {
  AppointmentTypeParams,
  AppointmentTypeSchema,
  CreateAppointmentTypeSchema,
  ListAppointmentTypesQuery,
  UpdateAppointmentTypeSchema,
} from './appointment-types.schema.js';
import { createAppointmentType, patchAppointmentType } from './appointment-types.service.js';

const tags = ['Appointment types'];
const admin = ['admin'] as const;

export function appointmentTypeRoutes(deps: { clock: Clock }): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/appointment-types',
      operationId: 'listAppointmentTypes',
      summary: 'List appointment types',
      description:
        "The tenant's catalogue, by code: each type's duration and the buffers that keep its provider blocked before and after. Every tenant " +
        'starts with vaccination (15 min, 5 after), vet_consultation (30, 10 after), checkup (30, 5 after), dental (60, 15 before and after), ' +
        'surgery (120, 30 before and after) and grooming (60, 15 after).',
      tags,
      access: { scope: 'bookings.read' },
      query: ListAppointmentTypesQuery,
      response: {
        status: 200,
        description: 'The catalogue',
        schema: Type.Object({ data: Type.Array(AppointmentTypeSchema) }, { additionalProperties: false }),
      },
      handler: async ({ db, actor, query }) => ({
        body: { data: (await listAppointmentTypes(db, actor, query.includeInactive ?? false)).map(presentAppointmentType) },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/appointment-types/:code',
      operationId: 'getAppointmentType',
      summary: 'Get an appointment type',
      description: 'The code is case-insensitive.',
      tags,
      access: { scope: 'bookings.read' },
      params: AppointmentTypeParams,
      response: { status: 200, description: 'The type', schema: AppointmentTypeSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params }) => {
        const row = foundOr404(await findAppointmentType(db, actor, params.code.toLowerCase()), 'appointment type', params.code);
        return { body: presentAppointmentType(row) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/appointment-types',
      operationId: 'createAppointmentType',
      summary: 'Add an appointment type',
      description: 'The code is stored lower-case and must be new (409 `conflict` otherwise). Unscoped admin clients only.',
      tags,
      access: { scope: 'bookings', roles: admin },
      body: CreateAppointmentTypeSchema,
      response: { status: 201, description: 'The new type', schema: AppointmentTypeSchema },
      errors: ['conflict'],
      handler: async ({ db, actor, body }) => {
        const row = await createAppointmentType(db, actor, body, deps.clock.now());
        return { body: presentAppointmentType(row), resourceId: row.code };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/appointment-types/:code',
      operationId: 'updateAppointmentType',
      summary: 'Change an appointment type',
      description:
        'Name, duration, buffers, or `active: false` to stop new bookings of it. Booked appointments keep the times and buffers they were booked with. ' +
        'Unscoped admin clients only.',
      tags,
      access: { scope: 'bookings', roles: admin },
      params: AppointmentTypeParams,
      body: UpdateAppointmentTypeSchema,
      response: { status: 200, description: 'The updated type', schema: AppointmentTypeSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params, body }) => {
        const row = await patchAppointmentType(db, actor, params.code, body, deps.clock.now());
        return { body: presentAppointmentType(row), resourceId: row.code };
      },
    }),
  ];
}
