import { Type, type Static } from '@sinclair/typebox';
import { pageQueryFields } from '../../http/paging.js';
import { DateOnly, documentedAs } from '../../http/schema-fields.js';

/** Every metric the API computes (DESIGN §14); the path parameter is checked against this list (400 otherwise). */
export const metricNames = [
  'revenue_net',
  'invoices_open',
  'appointments_by_status',
  'no_show_rate',
  'boarding_occupancy_rate',
  'grooming_completed',
  'vaccination_compliance_rate',
  'new_pets',
  'active_pets',
  'marketplace_gmv',
  'commission_earned',
] as const;

export type MetricName = (typeof metricNames)[number];

export const metricUnits = ['count', 'ratio', 'minor'] as const;
export type MetricUnit = (typeof metricUnits)[number];

export const intervals = ['day', 'week', 'month'] as const;
export type Interval = (typeof intervals)[number];

const LocalDate = (description: string) => DateOnly(`${description} (YYYY-MM-DD, the location's own calendar).`, '2026-11-01');

const windowFields = {
  from: LocalDate('First day counted, inclusive'),
  to: LocalDate('Last day counted, inclusive; at most 2 years after from'),
  locationId: Type.Optional(
    Type.String({ maxLength: 100, description: "One location (loc_…); default: every location the caller may see. A location outside the caller's → 404." }),
  ),
  currency: Type.Optional(
    Type.String({
      pattern: '^[A-Z]{3}$',
      maxLength: 3,
      description: 'Money metrics: the currency to count (ISO 4217). Needed only when the locations covered use several.',
    }),
  ),
};

export const SummaryQuery = Type.Object({ from: windowFields.from, to: windowFields.to, locationId: windowFields.locationId }, { additionalProperties: false });

export const MetricParams = Type.Object({
  name: Type.Union(
    metricNames.map((name) => Type.Literal(name)),
    { description: 'The metric; an unknown name → 400.' },
  ),
});

export const SeriesQuery = Type.Object(
  {
    ...windowFields,
    interval: Type.Optional(
      Type.Union(
        intervals.map((i) => Type.Literal(i)),
        { description: "Bucket size: day (default), week (ISO, Monday first) or month; in each location's calendar." },
      ),
    ),
    format: Type.Optional(Type.Literal('csv', { description: 'csv: the series as text/csv (columns bucket,value), as `Accept: text/csv` does.' })),
  },
  { additionalProperties: false },
);

export const RecordsQuery = Type.Object({ ...windowFields, ...pageQueryFields }, { additionalProperties: false });

const Basis = Type.Object(
  {
    date: Type.String({ description: 'Which date of which record places it in the window, and in which time zone.' }),
    formula: Type.String({ description: 'How the value is computed from those records.' }),
  },
  { additionalProperties: false },
);

const metricFields = {
  name: Type.Union(metricNames.map((name) => Type.Literal(name))),
  value: Type.Number({ description: 'count: an integer; ratio: 0..1; minor: integer minor units of `currency`.' }),
  unit: Type.Union(metricUnits.map((u) => Type.Literal(u))),
  currency: Type.Optional(Type.String({ description: 'ISO 4217, for unit minor.' })),
  numerator: Type.Optional(Type.Integer({ description: 'unit ratio: what the value divides (0/0 answers 0).' })),
  denominator: Type.Optional(Type.Integer()),
  breakdown: Type.Optional(
    Type.Array(Type.Object({ key: Type.String(), value: Type.Number() }, { additionalProperties: false }), {
      description: 'appointments_by_status: the count of each status (value is their total).',
    }),
  ),
  from: Type.String({ format: 'date' }),
  to: Type.String({ format: 'date' }),
  locationIds: Type.Array(Type.String(), { description: "The locations counted (the caller's, or the one asked for)." }),
  asOf: Type.String({ format: 'date-time', description: 'When the value was computed: records written later are not in it.' }),
  basis: Basis,
};

export const MetricSchema = Type.Object(metricFields, { additionalProperties: false });

export const SummarySchema = Type.Object(
  { metrics: Type.Array(MetricSchema, { description: 'Every metric once; a money metric once per currency when the locations use several.' }) },
  { additionalProperties: false },
);

const SeriesPoint = Type.Object(
  {
    bucket: Type.String({ format: 'date', description: "The bucket's first day (a Monday for week, the 1st for month)." }),
    from: Type.String({ format: 'date', description: 'First day of the bucket inside the asked range.' }),
    to: Type.String({ format: 'date', description: 'Last day of the bucket inside the asked range.' }),
    value: Type.Number(),
    numerator: Type.Optional(Type.Integer()),
    denominator: Type.Optional(Type.Integer()),
  },
  { additionalProperties: false },
);

export const SeriesSchema = Type.Object(
  {
    name: metricFields.name,
    unit: metricFields.unit,
    currency: metricFields.currency,
    interval: Type.Union(intervals.map((i) => Type.Literal(i))),
    from: metricFields.from,
    to: metricFields.to,
    locationIds: metricFields.locationIds,
    asOf: metricFields.asOf,
    basis: Basis,
    points: Type.Array(SeriesPoint, { description: 'Every bucket of the range in order; an empty one as 0.' }),
  },
  { additionalProperties: false },
);

/** JSON, or the CSV text when asked for (`Accept: text/csv` or `?format=csv`); validated as either, documented per media type. */
export const SeriesOrCsvSchema = documentedAs(
  Type.Union([SeriesSchema, Type.String({ description: 'text/csv: a header line `bucket,value`, then one line per bucket.' })]),
  // The document gives each media type its own body: the series under application/json, the text under text/csv.
  SeriesSchema,
);

export const MetricRecordSchema = Type.Object(
  {
    sourceType: Type.String({ description: 'payment, refund, invoice, appointment, booking, boarding_room, pet, order_line or commission_line.' }),
    sourceId: Type.String(),
    occurredAt: Type.String({ format: 'date-time', description: "The instant that dates it (see the metric's basis)." }),
    locationId: Type.String(),
    amount: Type.Optional(Type.Integer({ description: 'Money metrics: signed minor units (refunds negative); they sum to the value.' })),
    currency: Type.Optional(Type.String()),
    status: Type.Optional(Type.String({ description: "The row's status where the metric reads it." })),
    counted: Type.Union([Type.Literal('numerator'), Type.Literal('denominator'), Type.Literal('both')], {
      description: "Where the row counts: a count's or a sum's rows are numerator; a ratio's rows are in the denominator, and both when also in the numerator.",
    }),
  },
  { additionalProperties: false },
);

export type SummaryInput = Static<typeof SummaryQuery>;
export type SeriesInput = Static<typeof SeriesQuery>;
export type RecordsInput = Static<typeof RecordsQuery>;
export type Metric = Static<typeof MetricSchema>;
export type Series = Static<typeof SeriesSchema>;
export type MetricRecord = Static<typeof MetricRecordSchema>;
