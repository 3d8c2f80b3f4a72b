import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { pageQueryFields } from '../../http/paging.js';
import { DateOrLocalOrInstant, Instant, NonBlankText, RecordId as Id } from '../../http/schema-fields.js';
import { LocationId } from '../locations/index.js';
import { PetSizeSchema, petSizes } from '../pets/index.js';
import { ProviderId } from '../providers/index.js';

export const groomingStatuses = ['confirmed', 'checked_in', 'in_progress', 'completed', 'cancelled', 'no_show'] as const;
export type GroomingStatus = (typeof groomingStatuses)[number];
export const payMethods = ['invoice', 'membership', 'package_credit'] as const;
export type PayWith = (typeof payMethods)[number];
export const membershipStatuses = ['active', 'cancelled'] as const;

/** The longest package (per size): keeps the shared busy-time scan bounded (below appointments' maxProviderBookingMinutes). */
export const maxPackageMinutes = 600;

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const PetId = Id('pet', 'Pet');
const ParentId = Id('usr', 'Pet parent');
const PackageId = Id('pkg', 'Package');
const BookingId = Id('bkg', 'Booking');
const MembershipId = Id('mbr', 'Membership');
const Amount = Type.Integer({ minimum: 0, maximum: 100_000_000, description: 'Integer minor units.' });
const Currency = Type.String({
  pattern: '^[A-Z]{3}$',
  description: 'ISO 4217 code; defaults to the location’s (or the tenant default for a group-wide package).',
});
const Minutes = Type.Integer({ minimum: 5, maximum: maxPackageMinutes, description: 'Minutes.' });
const Service = Type.String({
  minLength: 2,
  maxLength: 50,
  pattern: '^[a-z][a-z0-9_]{1,49}$',
  description: 'A service code (lower-case), e.g. bath, haircut, nail_trim.',
});
const DateTime = Instant('ISO 8601 date-time with Z or an offset.');
const Boundary = DateOrLocalOrInstant('A date YYYY-MM-DD (the location’s day), a local date-time, or a date-time with Z or an offset.');

const perSize = <T extends TSchema>(item: T, description: string) =>
  Type.Object(Object.fromEntries(petSizes.map((s) => [s, item])) as Record<(typeof petSizes)[number], T>, { additionalProperties: false, description });
const Durations = perSize(Minutes, 'Minutes per pet size (small, medium, large, xlarge).');
const Prices = perSize(Amount, 'Price per pet size, integer minor units.');

// ---------------------------------------------------------------- packages

export const PackageSchema = Type.Object(
  {
    id: Type.String({ description: 'Package id (pkg_…).' }),
    name: Type.String(),
    locationId: Nullable(Type.String({ description: 'null: offered at every location.' })),
    services: Type.Array(Type.String()),
    durationMinutes: Durations,
    price: Prices,
    currency: Type.String(),
    sessions: Type.Integer({ description: 'Sessions sold together; > 1 is a prepaid bundle (POST /v1/grooming/package-credits).' }),
    validDays: Nullable(Type.Integer({ description: 'Days a bought bundle’s credits stay valid; null: no expiry.' })),
    active: Type.Boolean(),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const CreatePackageSchema = Type.Object(
  {
    name: NonBlankText(200),
    locationId: Type.Optional(LocationId),
    services: Type.Array(Service, { minItems: 1, maxItems: 30, uniqueItems: true }),
    durationMinutes: Durations,
    price: Prices,
    currency: Type.Optional(Currency),
    sessions: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    validDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
  },
  { additionalProperties: false },
);

export const UpdatePackageSchema = Type.Object(
  {
    name: Type.Optional(NonBlankText(200)),
    services: Type.Optional(Type.Array(Service, { minItems: 1, maxItems: 30, uniqueItems: true })),
    durationMinutes: Type.Optional(Durations),
    price: Type.Optional(Prices),
    sessions: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    validDays: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 3650 }))),
    active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const ListPackagesQuery = Type.Object(
  {
    ...pageQueryFields,
    locationId: Type.Optional(Type.String({ maxLength: 100, description: 'Packages offered there: of that location or group-wide.' })),
    active: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
  },
  { additionalProperties: false },
);

export const IdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });

// ---------------------------------------------------------------- appointments

export const GroomingAppointmentSchema = Type.Object(
  {
    id: Type.String({ description: 'Booking id (bkg_…), shared with every booking kind.' }),
    kind: Type.Literal('grooming'),
    status: Type.Union(groomingStatuses.map((s) => Type.Literal(s))),
    petId: Type.String(),
    parentId: Type.String(),
    packageId: Type.String(),
    stylistId: Type.String({ description: 'The groomer (prv_…) whose time it takes.' }),
    locationId: Type.String(),
    startsAt: Type.String({ format: 'date-time' }),
    endsAt: Type.String({ format: 'date-time' }),
    size: PetSizeSchema,
    durationMinutes: Type.Integer(),
    amount: Type.Integer({ description: 'The package price for the size, integer minor units (before tax).' }),
    currency: Type.String(),
    payWith: Type.Union(payMethods.map((p) => Type.Literal(p))),
    membershipId: Nullable(
      Type.String({ description: 'The membership named on create (payWith membership); once completed, the membership whose credit paid it; else null.' }),
    ),
    invoiceId: Nullable(Type.String({ description: 'The finalized invoice of a completed groom paid by invoice.' })),
    notes: Nullable(Type.String()),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const CreateGroomingAppointmentSchema = Type.Object(
  {
    petId: PetId,
    packageId: PackageId,
    locationId: LocationId,
    startsAt: DateTime,
    size: Type.Optional(PetSizeSchema),
    stylistId: Type.Optional(ProviderId),
    notes: Type.Optional(Type.String({ maxLength: 2000 })),
    payWith: Type.Optional(
      Type.Union(
        payMethods.map((p) => Type.Literal(p)),
        { description: 'Default invoice.' },
      ),
    ),
    membershipId: Type.Optional(MembershipId),
  },
  { additionalProperties: false },
);

export const UpdateGroomingAppointmentSchema = Type.Object(
  {
    status: Type.Union(groomingStatuses.map((s) => Type.Literal(s))),
    reason: Type.Optional(Type.String({ maxLength: 500, description: 'Why, for a cancellation (sent in booking.cancelled).' })),
  },
  { additionalProperties: false },
);

export const ListGroomingAppointmentsQuery = Type.Object(
  {
    ...pageQueryFields,
    locationId: Type.Optional(Type.String({ maxLength: 100 })),
    stylistId: Type.Optional(Type.String({ maxLength: 100 })),
    petId: Type.Optional(Type.String({ maxLength: 100 })),
    status: Type.Optional(Type.Union(groomingStatuses.map((s) => Type.Literal(s)))),
    from: Type.Optional(DateTime),
    to: Type.Optional(DateTime),
  },
  { additionalProperties: false },
);

export const AssignStylistSchema = Type.Object({ bookingId: BookingId, stylistId: Type.Optional(ProviderId) }, { additionalProperties: false });

// ---------------------------------------------------------------- availability

export const GroomingAvailabilityQuery = Type.Object(
  {
    locationId: LocationId,
    packageId: PackageId,
    size: PetSizeSchema,
    from: Boundary,
    to: Boundary,
  },
  { additionalProperties: false },
);

export const availabilityReasons = ['no_stylist_working', 'fully_booked', 'outside_booking_window'] as const;

export const GroomingAvailabilitySchema = Type.Object(
  {
    data: Type.Array(
      Type.Object(
        { stylistId: Type.String(), startsAt: Type.String({ format: 'date-time' }), endsAt: Type.String({ format: 'date-time' }) },
        { additionalProperties: false },
      ),
    ),
    days: Type.Array(
      Type.Object(
        {
          date: Type.String({ format: 'date' }),
          slots: Type.Integer({ description: 'Free slots that day (all stylists).' }),
          reasons: Type.Array(Type.Union(availabilityReasons.map((r) => Type.Literal(r))), { description: 'Why a day has no slot; [] when it has some.' }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

// ---------------------------------------------------------------- memberships and bundles

export const MembershipSchema = Type.Object(
  {
    id: Type.String({ description: 'Membership id (mbr_…).' }),
    status: Type.Union(membershipStatuses.map((s) => Type.Literal(s))),
    parentId: Type.String(),
    petId: Nullable(Type.String()),
    packageId: Type.String(),
    locationId: Type.String({ description: 'Where it is billed; its credits work at every location of the group.' }),
    subscriptionId: Type.String(),
    sessionsPerPeriod: Type.Integer(),
    creditsRemaining: Type.Integer({ description: 'sessionsPerPeriod × paid periods − credits spent.' }),
    currentPeriodEnd: Nullable(Type.String({ format: 'date' })),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const CreateMembershipSchema = Type.Object(
  {
    parentId: ParentId,
    petId: Type.Optional(PetId),
    packageId: PackageId,
    locationId: LocationId,
    sessionsPerPeriod: Type.Integer({ minimum: 1, maximum: 100 }),
    price: Type.Integer({ minimum: 1, maximum: 100_000_000, description: 'Per period, integer minor units.' }),
    interval: Type.Union([Type.Literal('week'), Type.Literal('month'), Type.Literal('year')]),
    collection: Type.Union([Type.Literal('wallet'), Type.Literal('send_invoice')]),
  },
  { additionalProperties: false },
);

export const ListMembershipsQuery = Type.Object(
  {
    ...pageQueryFields,
    parentId: Type.Optional(Type.String({ maxLength: 100 })),
    packageId: Type.Optional(Type.String({ maxLength: 100 })),
    status: Type.Optional(Type.Union(membershipStatuses.map((s) => Type.Literal(s)))),
  },
  { additionalProperties: false },
);

export const PackageCreditSchema = Type.Object(
  {
    id: Type.String({ description: 'Bundle id (pcr_…).' }),
    parentId: Type.String(),
    packageId: Type.String(),
    locationId: Type.String(),
    invoiceId: Type.String({ description: 'The finalized invoice of the bundle.' }),
    sessions: Type.Integer(),
    creditsRemaining: Type.Integer(),
    expiresAt: Nullable(Type.String({ format: 'date-time' })),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const CreatePackageCreditSchema = Type.Object(
  {
    parentId: ParentId,
    packageId: PackageId,
    locationId: LocationId,
    size: Type.Union(
      petSizes.map((v) => Type.Literal(v)),
      { description: 'Prices the bundle: sessions × the package price for this size.' },
    ),
  },
  { additionalProperties: false },
);

export const ListPackageCreditsQuery = Type.Object(
  { ...pageQueryFields, parentId: Type.Optional(Type.String({ maxLength: 100 })), packageId: Type.Optional(Type.String({ maxLength: 100 })) },
  { additionalProperties: false },
);

export type PackageOut = Static<typeof PackageSchema>;
export type CreatePackageInput = Static<typeof CreatePackageSchema>;
export type UpdatePackageInput = Static<typeof UpdatePackageSchema>;
export type CreateGroomingAppointmentInput = Static<typeof CreateGroomingAppointmentSchema>;
export type UpdateGroomingAppointmentInput = Static<typeof UpdateGroomingAppointmentSchema>;
export type ListGroomingAppointmentsFilters = Static<typeof ListGroomingAppointmentsQuery>;
export type GroomingAvailabilityInput = Static<typeof GroomingAvailabilityQuery>;
export type CreateMembershipInput = Static<typeof CreateMembershipSchema>;
export type CreatePackageCreditInput = Static<typeof CreatePackageCreditSchema>;
