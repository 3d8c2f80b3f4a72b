import { type Static, Type, type TProperties, type TSchema } from '@sinclair/typebox';

/** Both event lists of seed part 6. Aliases map to their canonical name (DESIGN §6). */
export const canonicalEventTypes = [
  'pet.registered',
  'appointment.created',
  'appointment.completed',
  'pet.vaccination_due',
  'boarding.checked_in',
  'boarding.checked_out',
  'payment.completed',
  'provider.onboarded',
  'provider.approved',
  'booking.created',
  'booking.cancelled',
  'marketplace.booking_created',
  // Payments module (DESIGN §9)
  'invoice.finalized',
  'invoice.paid',
  'refund.created',
  'subscription.created',
  'subscription.past_due',
  'subscription.canceled',
  // Boarding (DESIGN §10)
  'boarding.dose_overdue',
  // Marketplace orders (DESIGN §12)
  'order.created',
  'order.paid',
  'order.cancelled',
  'order.refunded',
  'marketplace.booking_completed',
  // AI platform (DESIGN §13): vaccination recall campaigns
  'ai.recall_sent',
] as const;

export type EventType = (typeof canonicalEventTypes)[number];

export const eventTypeAliases = {
  'payment.succeeded': 'payment.completed',
  'vaccination.due': 'pet.vaccination_due',
} as const satisfies Record<string, EventType>;

export type EventTypeAlias = keyof typeof eventTypeAliases;
/** A name a client may use for a type: canonical or alias. */
export type EventTypeName = EventType | EventTypeAlias;

export const eventTypeNames: readonly EventTypeName[] = [...canonicalEventTypes, ...(Object.keys(eventTypeAliases) as EventTypeAlias[])];

/**
 * Sent only by POST /v1/webhook-endpoints/:id/test, to that endpoint: outside the catalogue,
 * never stored in the event stream, never subscribable.
 */
export const testEventType = 'webhook.test';

const canonicalSet = new Set<string>(canonicalEventTypes);

/** The canonical type a name stands for; null for a name outside the catalogue. */
export function canonicalOf(name: string): EventType | null {
  if (canonicalSet.has(name)) return name as EventType;
  return (eventTypeAliases as Record<string, EventType>)[name] ?? null;
}

export const aliasesOf = (type: EventType): EventTypeAlias[] =>
  (Object.entries(eventTypeAliases) as Array<[EventTypeAlias, EventType]>).filter(([, target]) => target === type).map(([alias]) => alias);

// Field builders for the data schemas below (documentation and tests; the emitters own the values).
const id = (prefix: string, what: string) => Type.String({ pattern: `^${prefix}_`, description: `${what} (${prefix}_…).` });
const dateTime = (description: string) => Type.String({ format: 'date-time', description });
const date = (description: string) => Type.String({ format: 'date', description });
const amount = Type.Integer({ description: 'Integer minor units (cents).' });
const currency = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code, e.g. USD.' });
const data = <P extends TProperties>(properties: P, description: string) =>
  // Open objects: a later release may add fields to an event's data, never remove or retype one.
  Type.Object(properties, { description: `${description} More fields may be added; none are removed.` });

const invoiceData = {
  invoiceId: id('inv', 'The invoice'),
  number: Type.String({ description: 'Its number, gapless per location, e.g. DT-000042.' }),
  parentId: id('usr', 'The pet parent billed'),
  locationId: id('loc', 'The location'),
  total: amount,
  amountDue: amount,
  currency,
};

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

const subscriptionData = {
  subscriptionId: id('sub', 'The subscription'),
  parentId: id('usr', 'The pet parent'),
  status: Type.String({ description: 'trialing | active | past_due | paused | canceled' }),
  latestInvoiceId: Type.Union([id('inv', 'Its latest invoice'), Type.Null()]),
};

export interface EventTypeInfo {
  description: string;
  /** The operation that emits it. */
  emittedBy: string;
  /** JSON Schema of the envelope's `data`. */
  data: TSchema;
}

/** What each type means and carries (GET /v1/event-types; the emitting modules follow these schemas). */
export const eventCatalogue = {
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
  },
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
  },
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
} satisfies Record<EventType, EventTypeInfo>;

/** The `data` of an event of type T, as its catalogue entry describes it: what `emit` takes. */
export type EventData<T extends EventType> = Static<(typeof eventCatalogue)[T]['data']>;

/** The data of the synthetic test event. */
export const testEventData = data(
  {
    endpointId: id('whe', 'The endpoint tested'),
    message: Type.String(),
  },
  'A signed test delivery.',
);
