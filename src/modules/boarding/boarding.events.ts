import { Type } from '@sinclair/typebox';
import type { EventTypeInfo } from '../../module-manifest.js';
import { eventData as data, eventFields } from '../events/index.js';

const { id, dateTime, amount, currency } = eventFields;

/** The event types the boarding module emits, with their data schemas (GET /v1/event-types; the emitters follow them). */
export const boardingEvents = {
  'boarding.checked_in': {
    description: 'A boarded pet was checked in.',
    emittedBy: 'POST /v1/boarding/check-in',
    data: data(
      {
        bookingId: id('bkg', 'The boarding booking'),
        petId: id('pet', 'The pet'),
        roomId: Type.Optional(id('room', 'The room')),
        locationId: Type.Optional(id('loc', 'The boarding location')),
        checkedInAt: Type.Optional(dateTime('Check-in time.')),
      },
      'The stay.',
    ),
  },
  'boarding.checked_out': {
    description: 'A boarded pet was checked out.',
    emittedBy: 'POST /v1/boarding/check-out',
    data: data(
      {
        bookingId: id('bkg', 'The boarding booking'),
        petId: id('pet', 'The pet'),
        roomId: Type.Optional(id('room', 'The room')),
        locationId: Type.Optional(id('loc', 'The boarding location')),
        checkedOutAt: Type.Optional(dateTime('Check-out time.')),
        invoiceId: Type.Optional(id('inv', 'The finalized invoice of the stay')),
        nights: Type.Optional(Type.Integer({ minimum: 0, description: 'Nights actually stayed.' })),
        amount: Type.Optional(amount),
        currency: Type.Optional(currency),
      },
      'The stay and its bill (DESIGN §10: bookingId, petId, invoiceId, nights, amount, currency).',
    ),
  },
  'boarding.dose_overdue': {
    description: "A boarded pet's medication dose was not logged in time (PETCARE_DOSE_OVERDUE_MINUTES after it was due); sent once per missed dose.",
    emittedBy: 'the care-plan-doses job',
    data: data(
      {
        carePlanId: id('cpl', 'The care plan'),
        bookingId: id('bkg', 'The boarding booking'),
        petId: id('pet', 'The pet'),
        locationId: id('loc', 'The boarding location'),
        medication: Type.String({ description: 'The medication as named in the plan.' }),
        scheduledFor: dateTime('When the dose was due, ISO 8601 UTC (the plan gives local times at the location).'),
      },
      'The missed dose.',
    ),
  },
} satisfies Record<string, EventTypeInfo>;

type BoardingEvents = typeof boardingEvents;

// `emit` checks each payload against these schemas.
declare module '../../event-catalogue.js' {
  interface EventCatalogue extends BoardingEvents {}
}
