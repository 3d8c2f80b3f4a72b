import { Type } from '@sinclair/typebox';
import type { EventTypeInfo } from '../../module-manifest.js';
import { eventData as data, eventFields } from '../events/index.js';

const { id, dateTime } = eventFields;

/** The event types the providers module emits, with their data schemas (GET /v1/event-types; the emitters follow them). */
export const providersEvents = {
  'provider.onboarded': {
    description: 'A provider (staff or marketplace) was created.',
    emittedBy: 'POST /v1/providers',
    data: data(
      {
        providerId: id('prv', 'The provider'),
        name: Type.String(),
        kind: Type.String({ description: 'vet | groomer | sitter | walker | trainer' }),
        status: Type.String({ description: 'active (clinic staff) or pending (marketplace, awaiting approval).' }),
        locationIds: Type.Array(Type.String(), { description: 'Where the provider works.' }),
        services: Type.Optional(Type.Array(Type.String(), { description: 'Appointment type codes; [] means every type.' })),
      },
      'The new provider.',
    ),
  },
  'provider.approved': {
    description: 'A marketplace provider was approved (also when reinstated after a suspension).',
    emittedBy: 'POST /v1/providers/:id/approve',
    data: data(
      {
        providerId: id('prv', 'The provider'),
        name: Type.Optional(Type.String()),
        approvedAt: Type.Optional(dateTime('Approval time.')),
      },
      'The approved provider.',
    ),
  },
} satisfies Record<string, EventTypeInfo>;

type ProvidersEvents = typeof providersEvents;

// `emit` checks each payload against these schemas.
declare module '../../event-catalogue.js' {
  interface EventCatalogue extends ProvidersEvents {}
}
