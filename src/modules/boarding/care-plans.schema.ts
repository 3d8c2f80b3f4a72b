import { Type, type Static } from '@sinclair/typebox';
import { pageQueryFields } from '../../http/paging.js';
import { NonBlankText } from '../../http/schema-fields.js';
import { LocationId } from '../locations/index.js';
import { DateOnly, IdParams, Nullable, RecordId } from './boarding-fields.js';

const LocalTime = Type.String({ pattern: '^([01]\\d|2[0-3]):[0-5]\\d$', description: 'Local time at the location, HH:MM (24 h).', examples: ['08:00'] });

const FeedingInput = Type.Object(
  { time: LocalTime, food: NonBlankText(200), portion: NonBlankText(100), notes: Type.Optional(Nullable(NonBlankText(1000))) },
  { additionalProperties: false },
);
const MedicationInput = Type.Object(
  {
    name: NonBlankText(200),
    dose: NonBlankText(100),
    times: Type.Array(LocalTime, { minItems: 1, maxItems: 12, uniqueItems: true, description: 'Local times at the location, HH:MM.' }),
    withFood: Type.Optional(Type.Boolean()),
    notes: Type.Optional(Nullable(NonBlankText(1000))),
    administrationAmount: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 100_000_000,
        description: 'Charged per dose given (integer minor units, default 0): billed at check-out as a care item.',
      }),
    ),
  },
  { additionalProperties: false },
);

const Feeding = Type.Array(FeedingInput, { maxItems: 20 });
const Medications = Type.Array(MedicationInput, { maxItems: 20, description: 'Medication names are unique in a plan (case-insensitively).' });

export const CarePlanSchema = Type.Object(
  {
    id: Type.String({ description: 'Care plan id (cpl_…).' }),
    bookingId: Type.String(),
    petId: Type.String(),
    locationId: Type.String(),
    feeding: Type.Array(
      Type.Object({ time: Type.String(), food: Type.String(), portion: Type.String(), notes: Nullable(Type.String()) }, { additionalProperties: false }),
    ),
    medications: Type.Array(
      Type.Object(
        {
          name: Type.String(),
          dose: Type.String(),
          times: Type.Array(Type.String()),
          withFood: Type.Boolean(),
          notes: Nullable(Type.String()),
          administrationAmount: Type.Integer({ description: 'Charged per dose given, integer minor units.' }),
        },
        { additionalProperties: false },
      ),
    ),
    notes: Nullable(Type.String()),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const CreateCarePlanSchema = Type.Object(
  { bookingId: RecordId('bkg', 'The boarding booking'), feeding: Feeding, medications: Medications, notes: Type.Optional(Nullable(NonBlankText(2000))) },
  { additionalProperties: false },
);

export const UpdateCarePlanSchema = Type.Object(
  { feeding: Type.Optional(Feeding), medications: Type.Optional(Medications), notes: Type.Optional(Nullable(NonBlankText(2000))) },
  { additionalProperties: false, minProperties: 1 },
);

export const ListCarePlansQuery = Type.Object(
  {
    ...pageQueryFields,
    bookingId: Type.Optional(RecordId('bkg', 'Booking id')),
    petId: Type.Optional(RecordId('pet', 'Pet id')),
    locationId: Type.Optional(LocationId),
    activeOn: Type.Optional(DateOnly('Plans of stays with a night on this date')),
  },
  { additionalProperties: false },
);

export const doseOutcomes = ['given', 'refused', 'skipped'] as const;

export const DoseSchema = Type.Object(
  {
    id: Type.String({ description: 'Dose log entry id (dos_…).' }),
    carePlanId: Type.String(),
    bookingId: Type.String(),
    medication: Type.String(),
    scheduledFor: Type.String({ format: 'date-time' }),
    outcome: Type.Union(doseOutcomes.map((o) => Type.Literal(o))),
    givenBy: Type.String(),
    notes: Nullable(Type.String()),
    recordedBy: Type.Object({ clientId: Type.String() }, { additionalProperties: false }),
    createdAt: Type.String({ format: 'date-time' }),
    supersedes: Nullable(Type.String({ description: 'The entry this one corrects (dos_…), or null. Only the latest entry of a chain counts.' })),
  },
  { additionalProperties: false },
);

export const CreateDoseSchema = Type.Object(
  {
    medication: NonBlankText(200),
    scheduledFor: Type.String({
      format: 'date-time',
      description:
        'The dose’s scheduled instant: one of the medication’s times on a local date of the stay at the location, ISO 8601 with Z or an offset (else 422 dose_not_scheduled).',
    }),
    outcome: Type.Union(doseOutcomes.map((o) => Type.Literal(o))),
    givenBy: NonBlankText(200),
    notes: Type.Optional(Nullable(NonBlankText(1000))),
    supersedes: Type.Optional(
      Type.String({
        pattern: '^dos_[a-z0-9_]{1,60}$',
        description: 'A correction: the id (dos_…) of the latest entry of the same medication and scheduledFor, which this one replaces.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ListDosesQuery = Type.Object({ ...pageQueryFields }, { additionalProperties: false });
export const CarePlanParams = IdParams('Care plan id (cpl_…).');

export type CreateCarePlanInput = Static<typeof CreateCarePlanSchema>;
export type UpdateCarePlanInput = Static<typeof UpdateCarePlanSchema>;
export type ListCarePlansFilters = Static<typeof ListCarePlansQuery>;
export type CreateDoseInput = Static<typeof CreateDoseSchema>;
export type CarePlan = Static<typeof CarePlanSchema>;
export type Medication = CarePlan['medications'][number];
