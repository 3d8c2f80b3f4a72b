import { Type } from '@sinclair/typebox';
import type { EventTypeInfo } from '../../module-manifest.js';
import { eventData as data, eventFields } from '../events/index.js';

const { id, date } = eventFields;

/** The event types the reminders module emits, with their data schemas (GET /v1/event-types; the emitters follow them). */
export const remindersEvents = {
  'pet.vaccination_due': {
    description: 'A vaccine falls due for a pet (alias vaccination.due). Sent once per pet, vaccine and due date.',
    emittedBy: 'the daily vaccination-reminders job, or POST /v1/ai/recall (whichever handles the pet, vaccine and due date first)',
    data: data(
      {
        petId: id('pet', 'The pet'),
        vaccine: Type.String({ description: 'The vaccine, as recorded.' }),
        dueOn: date('YYYY-MM-DD the next dose is due.'),
        vaccinationId: Type.Optional(id('vac', 'The vaccination record the due date comes from')),
        ownerId: Type.Optional(id('usr', 'The pet parent')),
        locationId: Type.Optional(id('loc', 'The location')),
      },
      'Seed fields petId, vaccine, dueOn.',
    ),
    aliases: ['vaccination.due'] as const,
  },
} satisfies Record<string, EventTypeInfo>;

type RemindersEvents = typeof remindersEvents;

// `emit` checks each payload against these schemas.
declare module '../../event-catalogue.js' {
  interface EventCatalogue extends RemindersEvents {}
}
