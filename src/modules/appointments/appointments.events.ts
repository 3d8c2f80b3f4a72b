import { Type } from '@sinclair/typebox';
import type { EventTypeInfo } from '../../module-manifest.js';
import { eventData as data, eventFields } from '../events/index.js';

const { id, dateTime, date } = eventFields;

/** The event types the appointments module emits, with their data schemas (GET /v1/event-types; the emitters follow them). */
export const appointmentsEvents = {
  'appointment.created': {
    description: 'An appointment was booked (state confirmed).',
    emittedBy: 'POST /v1/appointments',
    data: data(
      {
        appointmentId: id('apt', 'The appointment'),
        petId: id('pet', 'The pet'),
        providerId: id('prv', 'The provider'),
        locationId: id('loc', 'The location'),
        type: Type.String({ description: 'Lower-case appointment type, e.g. vet_consultation.' }),
        status: Type.String({ description: 'confirmed' }),
        startsAt: dateTime('Start, ISO 8601 UTC.'),
        endsAt: dateTime('End (start + the type’s duration), ISO 8601 UTC.'),
      },
      'The appointment as booked.',
    ),
  },
  'appointment.completed': {
    description: 'An appointment moved to completed.',
    emittedBy: 'PATCH /v1/appointments/:id (status completed)',
    data: data(
      {
        appointmentId: id('apt', 'The appointment'),
        petId: id('pet', 'The pet'),
        providerId: id('prv', 'The provider'),
        locationId: id('loc', 'The location'),
        type: Type.String({ description: 'Lower-case appointment type.' }),
        status: Type.String({ description: 'completed' }),
        startsAt: dateTime('Start, ISO 8601 UTC.'),
        endsAt: dateTime('End, ISO 8601 UTC.'),
        completedAt: dateTime('When it was completed.'),
        visitDate: Type.Optional(date('YYYY-MM-DD of the visit in the location’s time zone (the pet’s lastVisit).')),
      },
      'The completed appointment.',
    ),
  },
} satisfies Record<string, EventTypeInfo>;

type AppointmentsEvents = typeof appointmentsEvents;

// `emit` checks each payload against these schemas.
declare module '../../event-catalogue.js' {
  interface EventCatalogue extends AppointmentsEvents {}
}
