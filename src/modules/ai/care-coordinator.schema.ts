import { Type, type Static } from '@sinclair/typebox';
import { CarePlanSchema, DoseSchema } from '../boarding/index.js';

/** Rows each list section holds at most (the nearest first); a longer history is read from the module's own list. */
export const sectionLimit = 50;
/** Logged doses shown per care plan (newest first). */
export const recentDoseLimit = 20;

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Instant = (description?: string) => Type.String({ format: 'date-time', ...(description ? { description } : {}) });
const DateOnly = (description: string) => Type.String({ format: 'date', description: `${description} (YYYY-MM-DD).` });

export const CareCoordinatorQuery = Type.Object(
  { petId: Type.String({ minLength: 1, maxLength: 100, description: 'The pet (pet_…); one the caller may not see answers 404.' }) },
  { additionalProperties: false },
);

export const actionKinds = [
  'record_vaccinations',
  'vaccinate_overdue',
  'vaccination_due_soon',
  'book_vaccination_before_boarding',
  'missed_dose_follow_up',
  'pay_open_invoice',
] as const;
export type ActionKind = (typeof actionKinds)[number];

export const CareActionSchema = Type.Object(
  {
    kind: Type.Union(actionKinds.map((k) => Type.Literal(k))),
    reason: Type.String({ description: 'Why, in one sentence naming the facts the rule used.' }),
    dueOn: DateOnly('When the action is (or was) due; a past date means it is late'),
    sourceIds: Type.Array(Type.String(), { description: 'The records the rule read (pet_, vac_, bkg_, cpl_, inv_ ids), the main one first.' }),
  },
  { additionalProperties: false },
);

const VaccineDueSchema = Type.Object(
  {
    vaccinationId: Type.String({ description: 'The latest dose of this vaccine (vac_…).' }),
    vaccine: Type.String(),
    administeredOn: Type.String({ format: 'date' }),
    dueOn: Type.String({ format: 'date' }),
    status: Type.Union([Type.Literal('overdue'), Type.Literal('due_soon'), Type.Literal('up_to_date')], {
      description: 'overdue: dueOn before today; due_soon: within 30 days (today included); the vaccinationStatus rule per vaccine.',
    }),
  },
  { additionalProperties: false },
);

const AppointmentSummarySchema = Type.Object(
  {
    id: Type.String(),
    type: Type.String(),
    status: Type.String(),
    startsAt: Instant(),
    endsAt: Instant(),
    locationId: Type.String(),
    providerId: Type.String(),
  },
  { additionalProperties: false },
);

const BookingSummarySchema = Type.Object(
  {
    id: Type.String({ description: 'bkg_…' }),
    kind: Type.String({ description: 'boarding | grooming | marketplace' }),
    status: Type.String(),
    startsAt: Instant(),
    endsAt: Instant(),
    locationId: Type.String(),
    providerId: Nullable(Type.String()),
    amount: Type.Integer({ description: 'Integer minor units, as booked.' }),
    currency: Type.String(),
  },
  { additionalProperties: false },
);

const MissedDoseSchema = Type.Object(
  {
    medication: Type.String(),
    scheduledFor: Instant('When it was due (a local time at the location, as UTC).'),
  },
  { additionalProperties: false },
);

const ActiveStaySchema = Type.Object(
  {
    bookingId: Type.String(),
    locationId: Type.String(),
    checkInOn: Type.String({ format: 'date' }),
    checkOutOn: Type.String({ format: 'date' }),
    roomId: Nullable(Type.String()),
    carePlans: Type.Array(
      Type.Object(
        {
          carePlan: CarePlanSchema,
          recentDoses: Type.Array(DoseSchema, { description: `The last ${recentDoseLimit} doses logged, newest first.` }),
          missedDoses: Type.Array(MissedDoseSchema, {
            description: `Doses scheduled since check-in with nothing logged PETCARE_DOSE_OVERDUE_MINUTES after their time (the care-plan-doses job’s rule), in schedule order: the latest ${sectionLimit} (the missed_dose_follow_up action counts them all).`,
          }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const OpenInvoiceSchema = Type.Object(
  {
    id: Type.String(),
    number: Nullable(Type.String()),
    status: Type.String(),
    locationId: Type.String(),
    petId: Nullable(Type.String({ description: 'The pet it bills, when it names one (another pet of the same parent is possible).' })),
    currency: Type.String(),
    total: Type.Integer(),
    amountDue: Type.Integer(),
    dueOn: Nullable(Type.String({ format: 'date' })),
  },
  { additionalProperties: false },
);

export const CareSummarySchema = Type.Object(
  {
    pet: Type.Object(
      {
        id: Type.String(),
        name: Type.String(),
        species: Type.String(),
        ownerId: Type.String(),
        locationId: Type.String(),
        vaccinationStatus: Type.String({ description: "The pet's vaccinationStatus as GET /v1/pets/{id} derives it." }),
      },
      { additionalProperties: false },
    ),
    asOf: Instant('The business-clock instant the summary was computed at.'),
    today: DateOnly('The UTC date of asOf: the day due dates are compared with'),
    vaccinations: Type.Array(VaccineDueSchema, { description: 'The latest dose per vaccine, earliest due first.' }),
    appointments: Type.Array(AppointmentSummarySchema, {
      description: `Upcoming or in-progress appointments (confirmed, checked_in, in_progress, not ended), soonest first, at most ${sectionLimit}.`,
    }),
    bookings: Type.Array(BookingSummarySchema, {
      description: `Upcoming or current bookings of every kind (boarding, grooming, marketplace) not ended and not in a final state, soonest first, at most ${sectionLimit}.`,
    }),
    activeStay: Nullable(ActiveStaySchema),
    openInvoices: Type.Array(OpenInvoiceSchema, {
      description: `Open invoices of the pet's parent with an amount due, oldest first, at most ${sectionLimit}.`,
    }),
    actions: Type.Array(CareActionSchema, { description: 'What to do next, by rule, earliest due first.' }),
  },
  { additionalProperties: false },
);

export type CareSummary = Static<typeof CareSummarySchema>;
export type CareAction = Static<typeof CareActionSchema>;
