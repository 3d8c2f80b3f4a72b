import { Type } from '@sinclair/typebox';
import type { EventTypeInfo } from '../../module-manifest.js';
import { eventData as data, eventFields } from '../events/index.js';

const { id, dateTime, amount, currency } = eventFields;

const orderData = {
  orderId: id('ord', 'The order'),
  parentId: id('usr', 'The pet parent'),
  petId: id('pet', 'The pet'),
  locationId: id('loc', 'The location billing it (the pet’s)'),
  status: Type.String({ description: 'pending_payment | paid | fulfilled | cancelled | partially_refunded | refunded' }),
  total: amount,
  amountRefunded: amount,
  currency,
  invoiceId: id('inv', 'The order’s invoice'),
};

/** The event types the marketplace module emits, with their data schemas (GET /v1/event-types; the emitters follow them). */
export const marketplaceEvents = {
  'marketplace.booking_created': {
    description: 'A marketplace booking was made (booking.created is sent for it as well).',
    emittedBy: 'marketplace booking creation',
    data: data(
      {
        bookingId: id('bkg', 'The booking'),
        providerId: id('prv', 'The marketplace provider'),
        petId: id('pet', 'The pet'),
        service: Type.String(),
        amount,
        currency,
        startsAt: Type.Optional(dateTime('Start, ISO 8601 UTC.')),
        orderId: Type.Optional(id('ord', 'The order it is a line of')),
        listingId: Type.Optional(id('lst', 'The listing booked')),
      },
      'The marketplace booking.',
    ),
  },
  'order.created': {
    description: 'A marketplace order was placed: its bookings are reserved and its invoice is open.',
    emittedBy: 'POST /v1/orders',
    data: data(orderData, 'The order.'),
  },
  'order.paid': {
    description: 'A marketplace order’s invoice was paid: its bookings are confirmed and its commission lines accrued.',
    emittedBy: 'the payment (POST /v1/payments) that paid the order’s invoice',
    data: data(orderData, 'The paid order.'),
  },
  'order.cancelled': {
    description: 'An unpaid marketplace order was cancelled: its invoice voided, its bookings cancelled.',
    emittedBy: 'POST /v1/orders/:id/cancel',
    data: data(orderData, 'The cancelled order.'),
  },
  'order.refunded': {
    description: 'Lines of a marketplace order were refunded (partially or in full).',
    emittedBy: 'POST /v1/orders/:id/refund, or POST /v1/refunds of a paid order’s payment',
    data: data(
      {
        ...orderData,
        refundIds: Type.Array(id('ref', 'A refund made')),
        amount: Type.Integer({ description: 'Money paid back by this refund, tax shares included.' }),
      },
      'The order after the refund.',
    ),
  },
  'marketplace.booking_completed': {
    description: 'A provider completed a marketplace booking; it now counts for the next payout statement.',
    emittedBy: 'POST /v1/marketplace/bookings/:id/complete',
    data: data(
      {
        bookingId: id('bkg', 'The booking'),
        orderId: id('ord', 'Its order'),
        providerId: id('prv', 'The provider'),
        petId: id('pet', 'The pet'),
        completedAt: dateTime('Completion time.'),
      },
      'The completed booking.',
    ),
  },
} satisfies Record<string, EventTypeInfo>;

type MarketplaceEvents = typeof marketplaceEvents;

// `emit` checks each payload against these schemas.
declare module '../../event-catalogue.js' {
  interface EventCatalogue extends MarketplaceEvents {}
}
