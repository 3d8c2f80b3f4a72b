import { Type, type Static } from '@sinclair/typebox';
import { pageQueryFields } from '../../http/paging.js';
import { DateOrLocalOrInstant, ExternalIdFilter, ExternalIdOut, Instant as InstantField } from '../../http/schema-fields.js';
import { LocationId } from '../locations/index.js';
import { holdingStatuses as schedulingHoldingStatuses } from '../scheduling/index.js';
import { ProviderId, TypeCode } from '../providers/index.js';

export const appointmentStatuses = ['confirmed', 'checked_in', 'in_progress', 'completed', 'cancelled', 'no_show'] as const;
export type AppointmentStatus = (typeof appointmentStatuses)[number];

/** Statuses whose appointment still holds the provider's time: the scheduling kernel's busy time reads them. */
export const holdingStatuses: readonly AppointmentStatus[] = schedulingHoldingStatuses;

const statusList = appointmentStatuses.join(', ');
const StatusInput = Type.String({
  minLength: 1,
  maxLength: 20,
  description: `One of ${statusList}; case-insensitive (CONFIRMED = confirmed).`,
  examples: ['checked_in'],
});
const instant = (description?: string) => InstantField(description);
const Instant = instant();
const PetId = Type.String({ pattern: '^pet_[a-z0-9_]{1,60}$', description: 'Pet id (pet_…).' });
const Notes = Type.String({ maxLength: 2000, description: 'Free text.' });

export const AppointmentSchema = Type.Object(
  {
    id: Type.String({ description: 'Appointment id (apt_…).' }),
    status: Type.Union(
      appointmentStatuses.map((s) => Type.Literal(s)),
      { description: 'Lower-case state; a new appointment is confirmed.' },
    ),
    petId: Type.String(),
    providerId: Type.String(),
    provider: Type.Object({ id: Type.String(), name: Type.String() }, { additionalProperties: false }),
    type: Type.String({ description: 'Lower-case appointment type code.' }),
    startsAt: Type.String({ format: 'date-time' }),
    endsAt: Type.String({ format: 'date-time', description: "startsAt + the type's duration." }),
    locationId: Type.String(),
    notes: Type.Union([Type.String(), Type.Null()]),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    calendarUrl: Type.String({ description: 'An ICS (RFC 5545) entry for calendars; works without a bearer token. Treat it as a secret.' }),
    externalId: ExternalIdOut,
  },
  { additionalProperties: false },
);

export const CreateAppointmentSchema = Type.Object(
  {
    petId: PetId,
    providerId: ProviderId,
    type: TypeCode,
    startsAt: Instant,
    notes: Type.Optional(Type.Union([Notes, Type.Null()])),
    locationId: Type.Optional(LocationId),
  },
  { additionalProperties: false },
);

export const UpdateAppointmentSchema = Type.Object(
  {
    startsAt: Type.Optional(Instant),
    providerId: Type.Optional(ProviderId),
    notes: Type.Optional(Type.Union([Notes, Type.Null()])),
    status: Type.Optional(StatusInput),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const AppointmentParams = Type.Object({ id: Type.String({ maxLength: 100 }) });

export const ListAppointmentsQuery = Type.Object(
  {
    ...pageQueryFields,
    from: Type.Optional(instant('Only appointments starting at or after this instant.')),
    to: Type.Optional(instant('Only appointments starting before this instant.')),
    providerId: Type.Optional(Type.String({ maxLength: 100 })),
    petId: Type.Optional(Type.String({ maxLength: 100 })),
    locationId: Type.Optional(Type.String({ maxLength: 100 })),
    status: Type.Optional(StatusInput),
    externalId: ExternalIdFilter,
  },
  { additionalProperties: false },
);

export const AvailabilityQuery = Type.Object(
  {
    locationId: Type.String({ maxLength: 100, description: 'The location (its time zone reads the dates).' }),
    type: TypeCode,
    from: Type.Optional(
      DateOrLocalOrInstant("A date YYYY-MM-DD (start of that day in the location's zone), a local date-time, or a date-time with offset. Default: now."),
    ),
    to: Type.Optional(
      DateOrLocalOrInstant(
        'A date YYYY-MM-DD (that day included), a local date-time, or a date-time with offset. Default: from + 7 days; at most 31 days after from.',
      ),
    ),
    providerId: Type.Optional(Type.String({ maxLength: 100 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 5000, default: 1000, description: 'Most slots to return (1–5000, default 1000).' })),
  },
  { additionalProperties: false },
);

export const SlotSchema = Type.Object(
  {
    providerId: Type.String(),
    startsAt: Type.String({ format: 'date-time' }),
    endsAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const AvailabilitySchema = Type.Object(
  {
    data: Type.Array(SlotSchema, { description: 'Bookable slots, earliest first (then by providerId).' }),
    hasMore: Type.Boolean({ description: 'True when `limit` cut the list; ask again with from = nextFrom.' }),
    nextFrom: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Start of the first slot left out.' }),
  },
  { additionalProperties: false },
);

export const MatchProvidersSchema = Type.Object(
  {
    petId: PetId,
    type: TypeCode,
    locationId: Type.Optional(LocationId),
    from: Type.Optional(DateOrLocalOrInstant('As in availability. Default: now.')),
    to: Type.Optional(DateOrLocalOrInstant('As in availability. Default: from + 14 days; at most 31 days after from.')),
  },
  { additionalProperties: false },
);

export const ProviderMatchSchema = Type.Object(
  {
    rank: Type.Integer({ minimum: 1 }),
    providerId: Type.String(),
    provider: Type.Object({ id: Type.String(), name: Type.String(), kind: Type.String() }, { additionalProperties: false }),
    nextSlot: Type.Union([SlotSchema, Type.Null()], { description: 'The earliest bookable slot in the window; null when none.' }),
    rating: Type.Union([Type.Number(), Type.Null()]),
    reasons: Type.Array(Type.String(), { description: 'Why the provider is listed and ranked here, in plain words.' }),
  },
  { additionalProperties: false },
);

export const MatchResultSchema = Type.Object(
  {
    data: Type.Array(ProviderMatchSchema),
    petId: Type.String(),
    type: Type.String(),
    locationId: Type.String(),
    from: Type.String({ format: 'date-time' }),
    to: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

const { provider: _provider, status: _status, type: _type, ...appointmentFields20250601 } = AppointmentSchema.properties;

/** API version 2025-06-01's answer of PATCH /v1/appointments/{id}: providerId only, upper-case status and type. */
export const AppointmentSchema20250601 = Type.Object(
  {
    ...appointmentFields20250601,
    status: Type.Union(
      appointmentStatuses.map((s) => Type.Literal(s.toUpperCase())),
      { description: 'Upper-case state (CONFIRMED, CHECKED_IN, …).' },
    ),
    type: Type.String({ description: 'Upper-case appointment type code (VET_CONSULTATION).' }),
  },
  { additionalProperties: false, title: 'Appointment (2025-06-01)' },
);

/** API version 2025-06-01's answer of POST /v1/providers/match: a bare array of providers, best first. */
export const ProviderRankingSchema20250601 = Type.Array(
  Type.Object(
    {
      id: Type.String({ description: 'Provider id (prv_…).' }),
      name: Type.String(),
      kind: Type.String(),
      rating: Type.Union([Type.Number(), Type.Null()]),
    },
    { additionalProperties: false },
  ),
  { title: 'Providers in rank order (2025-06-01)' },
);

export type AppointmentOut = Static<typeof AppointmentSchema>;
export type AppointmentOut20250601 = Static<typeof AppointmentSchema20250601>;
export type MatchResultOut = Static<typeof MatchResultSchema>;
export type ProviderRankingOut20250601 = Static<typeof ProviderRankingSchema20250601>;
export type CreateAppointmentInput = Static<typeof CreateAppointmentSchema>;
export type UpdateAppointmentInput = Static<typeof UpdateAppointmentSchema>;
export type ListAppointmentsFilters = Static<typeof ListAppointmentsQuery>;
export type AvailabilityInput = Static<typeof AvailabilityQuery>;
export type MatchProvidersInput = Static<typeof MatchProvidersSchema>;
export type SlotOut = Static<typeof SlotSchema>;
