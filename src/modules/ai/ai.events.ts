import { Type } from '@sinclair/typebox';
import type { EventTypeInfo } from '../../module-manifest.js';
import { eventData as data, eventFields } from '../events/index.js';

const { id, date } = eventFields;

/** The event types the ai module emits, with their data schemas (GET /v1/event-types; the emitters follow them). */
export const aiEvents = {
  'ai.recall_sent': {
    description: 'A vaccination recall campaign ran (not for dry runs): its messages are queued in the notifications outbox.',
    emittedBy: 'POST /v1/ai/recall',
    data: data(
      {
        campaignId: id('rcl', 'The campaign'),
        locationId: Type.Union([id('loc', 'The location asked for'), Type.Null()]),
        dueThrough: date('The last due date selected (overdue ones included).'),
        recipients: Type.Integer({ description: 'Pets and vaccines selected.' }),
        sent: Type.Integer({ description: 'Messages queued.' }),
        skipped: Type.Integer({ description: 'Already reminded, or no consent or email address.' }),
      },
      'The campaign totals.',
    ),
  },
} satisfies Record<string, EventTypeInfo>;

type AiEvents = typeof aiEvents;

// `emit` checks each payload against these schemas.
declare module '../../event-catalogue.js' {
  interface EventCatalogue extends AiEvents {}
}
