import { Type } from '@sinclair/typebox';
import type { EventTypeInfo } from '../../module-manifest.js';
import { eventData as data, eventFields } from '../events/index.js';

const { id, dateTime, amount, currency } = eventFields;

/** The event types the bookings module emits, with their data schemas (GET /v1/event-types; the emitters follow them). */
export const bookingsEvents = {
  'booking.created': {
    description: 'A booking was made: boarding, grooming or marketplace.',
    emittedBy: 'any booking creation',
    data: data(
      {
        bookingId: id('bkg', 'The booking'),
        petId: id('pet', 'The pet'),
        service: Type.String({ description: 'e.g. boarding, grooming, or a marketplace service.' }),
        amount,
        currency,
        kind: Type.Optional(Type.String({ description: 'boarding | grooming | marketplace' })),
        locationId: Type.Optional(id('loc', 'The location')),
        startsAt: Type.Optional(dateTime('When the booking starts, ISO 8601 UTC (a boarding stay: the start of its check-in day at the location).')),
      },
      'Seed fields bookingId, petId, service, amount, currency.',
    ),
  },
  'booking.cancelled': {
    description: 'A booking was cancelled.',
    emittedBy: 'any booking cancellation',
    data: data(
      {
        bookingId: id('bkg', 'The booking'),
        petId: id('pet', 'The pet'),
        service: Type.String(),
        reason: Type.Optional(Type.Union([Type.String(), Type.Null()])),
        kind: Type.Optional(Type.String({ description: 'boarding | grooming | marketplace' })),
        status: Type.Optional(Type.String({ description: 'cancelled or no_show.' })),
        amount: Type.Optional(amount),
        currency: Type.Optional(currency),
        locationId: Type.Optional(id('loc', 'The location')),
      },
      'The cancelled booking.',
    ),
  },
} satisfies Record<string, EventTypeInfo>;

type BookingsEvents = typeof bookingsEvents;

// `emit` checks each payload against these schemas.
declare module '../../event-catalogue.js' {
  interface EventCatalogue extends BookingsEvents {}
}
