import { Type, type Static } from '@sinclair/typebox';
import { pageQueryFields } from '../../http/paging.js';
import { DateOrLocalOrInstant } from '../../http/schema-fields.js';
import { LocationId } from '../locations/index.js';

const Clock = Type.String({
  pattern: '^(?:(?:[01][0-9]|2[0-3]):[0-5][0-9]|24:00)$',
  description: 'Local time HH:MM (24:00 allowed as an end).',
  examples: ['09:00'],
});
const Weekday = Type.Integer({ minimum: 1, maximum: 7, description: 'ISO weekday: Monday = 1 … Sunday = 7.' });
const Boundary = DateOrLocalOrInstant(
  "A date (YYYY-MM-DD: a whole day; as `to` it includes that day), a local date-time without offset (read in the location's time zone), or a date-time with Z or an offset.",
);

export const WeeklyWindowSchema = Type.Object({ weekday: Weekday, start: Clock, end: Clock }, { additionalProperties: false });
const TimeOffInput = Type.Object(
  {
    from: Boundary,
    to: Boundary,
    reason: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
  },
  { additionalProperties: false },
);

export const PutScheduleSchema = Type.Object(
  {
    locationId: LocationId,
    weekly: Type.Array(WeeklyWindowSchema, { maxItems: 70, description: 'Working windows per weekday; [] means no bookable hours at this location.' }),
    timeOff: Type.Optional(Type.Array(TimeOffInput, { maxItems: 200, description: 'Absences at this location (holidays, training).' })),
  },
  { additionalProperties: false },
);

export const ScheduleSchema = Type.Object(
  {
    id: Type.String({ description: 'Schedule id (sch_…).' }),
    providerId: Type.String(),
    locationId: Type.String(),
    timezone: Type.String({ description: "The location's IANA time zone, in which `weekly` is read." }),
    weekly: Type.Array(WeeklyWindowSchema),
    timeOff: Type.Array(
      Type.Object(
        {
          from: Type.String({ format: 'date-time' }),
          to: Type.String({ format: 'date-time' }),
          reason: Type.Union([Type.String(), Type.Null()]),
        },
        { additionalProperties: false },
      ),
    ),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const ScheduleParams = Type.Object({ providerId: Type.String({ maxLength: 100 }) });
export const ListSchedulesQuery = Type.Object(
  {
    ...pageQueryFields,
    providerId: Type.Optional(Type.String({ maxLength: 100 })),
    locationId: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);

export type PutScheduleInput = Static<typeof PutScheduleSchema>;
export type ScheduleOut = Static<typeof ScheduleSchema>;
export type ListSchedulesFilters = Static<typeof ListSchedulesQuery>;
