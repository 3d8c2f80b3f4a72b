import { Type } from '@sinclair/typebox';
import type { EventTypeInfo } from '../../module-manifest.js';
import { eventData as data, eventFields } from '../events/index.js';

const { id } = eventFields;

/** The event types the pets module emits, with their data schemas (GET /v1/event-types; the emitters follow them). */
export const petsEvents = {
  'pet.registered': {
    description: 'A pet was registered.',
    emittedBy: 'POST /v1/pets',
    data: data(
      {
        petId: id('pet', 'The pet'),
        ownerId: id('usr', 'Its pet parent'),
        locationId: id('loc', 'Where it is kept'),
        name: Type.String(),
        species: Type.String(),
      },
      'The new pet.',
    ),
  },
} satisfies Record<string, EventTypeInfo>;

type PetsEvents = typeof petsEvents;

// `emit` checks each payload against these schemas.
declare module '../../event-catalogue.js' {
  interface EventCatalogue extends PetsEvents {}
}
