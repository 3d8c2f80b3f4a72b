import { Type } from '@sinclair/typebox';
import type { EventTypeInfo } from '../../module-manifest.js';
import { eventData as data, eventFields } from '../events/index.js';

const { id, amount, currency } = eventFields;

const invoiceData = {
  invoiceId: id('inv', 'The invoice'),
  number: Type.String({ description: 'Its number, gapless per location, e.g. DT-000042.' }),
  parentId: id('usr', 'The pet parent billed'),
  locationId: id('loc', 'The location'),
  total: amount,
  amountDue: amount,
  currency,
};

const subscriptionData = {
  subscriptionId: id('sub', 'The subscription'),
  parentId: id('usr', 'The pet parent'),
  status: Type.String({ description: 'trialing | active | past_due | paused | canceled' }),
  latestInvoiceId: Type.Union([id('inv', 'Its latest invoice'), Type.Null()]),
};

/** The event types the payments module emits, with their data schemas (GET /v1/event-types; the emitters follow them). */
export const paymentsEvents = {
  'payment.completed': {
    description: 'A payment succeeded (alias payment.succeeded).',
    emittedBy: 'POST /v1/payments, and the subscription-billing job when it collects from a wallet',
    data: data(
      {
        paymentId: id('pay', 'The payment'),
        invoiceId: Type.Optional(Type.Union([id('inv', 'The invoice paid'), Type.Null()])),
        parentId: Type.Optional(id('usr', 'The pet parent who paid')),
        amount,
        currency,
        method: Type.Optional(Type.String({ description: 'cash | card_terminal | bank_transfer | check | wallet' })),
        locationId: Type.Optional(id('loc', 'The location')),
      },
      'The payment.',
    ),
    aliases: ['payment.succeeded'] as const,
  },
  'invoice.finalized': {
    description: 'An invoice left draft: it has its number and is open (or paid at once when its total is 0).',
    emittedBy: 'POST /v1/invoices (finalize: true), POST /v1/invoices/:id/finalize, billing jobs and check-outs',
    data: data(invoiceData, 'The finalized invoice.'),
  },
  'invoice.paid': {
    description: 'An invoice reached amountDue 0.',
    emittedBy: 'the payment that settled it (or finalization of a zero total)',
    data: data(invoiceData, 'The paid invoice.'),
  },
  'refund.created': {
    description: 'Money was paid back on a payment (to the wallet for wallet payments).',
    emittedBy: 'POST /v1/refunds',
    data: data(
      {
        refundId: id('ref', 'The refund'),
        paymentId: id('pay', 'The payment refunded'),
        invoiceId: Type.Union([id('inv', 'The invoice of the payment'), Type.Null()]),
        amount,
        currency,
      },
      'The refund.',
    ),
  },
  'subscription.created': {
    description: 'A subscription was created (trialing or active).',
    emittedBy: 'POST /v1/subscriptions',
    data: data(subscriptionData, 'The subscription.'),
  },
  'subscription.past_due': {
    description: "A subscription's invoice could not be collected (short wallet balance) or is open past its due date.",
    emittedBy: 'the subscription-billing job',
    data: data(subscriptionData, 'The subscription and the invoice left open.'),
  },
  'subscription.canceled': {
    description: 'A subscription ended: canceled now, or at the end of its period.',
    emittedBy: 'POST /v1/subscriptions/:id/cancel, and the subscription-billing job at period end',
    data: data(subscriptionData, 'The canceled subscription.'),
  },
} satisfies Record<string, EventTypeInfo>;

type PaymentsEvents = typeof paymentsEvents;

// `emit` checks each payload against these schemas.
declare module '../../event-catalogue.js' {
  interface EventCatalogue extends PaymentsEvents {}
}
