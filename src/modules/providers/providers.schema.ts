import { Type, type Static } from '@sinclair/typebox';
import { pageQueryFields } from '../../http/paging.js';
import { DateOnly, DateOrLocalOrInstant, ExternalIdFilter, ExternalIdOut, NonBlankText } from '../../http/schema-fields.js';
import { LocationId } from '../locations/index.js';
// The file, not the payments index: payments loads the sandbox, which loads appointments, which loads this module.
import { maxAmount } from '../payments/index.js';
import { listingCategories } from './providers.table.js';

export const providerKinds = ['vet', 'groomer', 'sitter', 'walker', 'trainer'] as const;
export const staffStatuses = ['active', 'inactive'] as const;
export const marketplaceStatuses = ['pending', 'approved', 'suspended'] as const;
export const providerStatuses = [...staffStatuses, ...marketplaceStatuses] as const;

export type ProviderKind = (typeof providerKinds)[number];
export type ProviderStatus = (typeof providerStatuses)[number];
export type MarketplaceStatus = (typeof marketplaceStatuses)[number];

const Kind = Type.Union(providerKinds.map((k) => Type.Literal(k)));
const StaffStatus = Type.Union(
  staffStatuses.map((s) => Type.Literal(s)),
  {
    description: 'Clinic staff providers: active providers can be booked; inactive ones keep their appointments but take no new ones.',
  },
);
const Status = Type.Union(
  providerStatuses.map((s) => Type.Literal(s)),
  {
    description:
      'Staff providers: active | inactive. Marketplace providers: pending (onboarded, not yet approved) → approved (listed and bookable) ⇄ suspended ' +
      '(hidden, open slots gone, existing bookings stay). Only active and approved providers take new bookings.',
  },
);
const Name = NonBlankText(200);

export const ListingId = Type.String({ pattern: '^lst_[a-z0-9_]{1,60}$', description: 'Listing id (lst_…).' });
const Category = Type.Union(
  listingCategories.map((c) => Type.Literal(c)),
  { description: 'What kind of service a listing is.' },
);
const Currency = Type.String({ pattern: '^[A-Z]{3}$', maxLength: 3, description: 'ISO 4217 code, upper case.', examples: ['USD'] });
const ListingAmount = Type.Integer({ minimum: 0, maximum: maxAmount, description: 'Price in integer minor units (cents).' });
const DurationMinutes = Type.Integer({ minimum: 5, maximum: 1440, description: 'How long the service takes, in minutes (5–1440).' });
const Bio = Type.String({ maxLength: 5000, description: 'What the provider tells pet parents (up to 5,000 characters).' });
const ServiceArea = Type.String({ maxLength: 500, description: 'Where the provider works, in words (up to 500 characters).' });
const CommissionBps = Type.Integer({
  minimum: 0,
  maximum: 10_000,
  description: 'Commission override in basis points (1500 = 15 %); null = the tenant default.',
});

export const ListingInputSchema = Type.Object(
  {
    name: Name,
    category: Category,
    amount: ListingAmount,
    currency: Type.Optional(Currency),
    durationMinutes: DurationMinutes,
  },
  { additionalProperties: false, description: "A service the provider sells. currency defaults to the provider's first location's." },
);

export const UpdateListingSchema = Type.Object(
  {
    name: Type.Optional(Name),
    category: Type.Optional(Category),
    amount: Type.Optional(ListingAmount),
    durationMinutes: Type.Optional(DurationMinutes),
    status: Type.Optional(
      Type.Union([Type.Literal('active'), Type.Literal('inactive')], { description: 'inactive: the listing takes no new orders (existing bookings stay).' }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const ListingSchema = Type.Object(
  {
    id: Type.String({ description: 'Listing id (lst_…).' }),
    name: Type.String(),
    category: Category,
    amount: Type.Integer({ description: 'Integer minor units.' }),
    currency: Type.String(),
    durationMinutes: Type.Integer(),
    status: Type.Union([Type.Literal('active'), Type.Literal('inactive')]),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

const MarketplaceInput = Type.Object(
  {
    listings: Type.Array(ListingInputSchema, { maxItems: 50, description: 'What the provider sells; approval needs at least one.' }),
    bio: Type.Optional(Bio),
    serviceArea: Type.Optional(ServiceArea),
    commissionBps: Type.Optional(CommissionBps),
  },
  { additionalProperties: false, description: 'Onboards a marketplace provider: it starts `pending` and needs an admin approval.' },
);

const MarketplaceProfile = Type.Object(
  {
    bio: Type.Union([Type.String(), Type.Null()]),
    serviceArea: Type.Union([Type.String(), Type.Null()]),
    commissionBps: Type.Union([Type.Integer(), Type.Null()], { description: 'Override in basis points; null = the tenant default.' }),
    approvedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Last approval.' }),
    suspendedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Last suspension, while suspended.' }),
    listings: Type.Array(ListingSchema),
  },
  { additionalProperties: false, description: 'Present on marketplace providers only.' },
);

/** An appointment type code as clients may send it: any letter case (`VET_CONSULTATION` = `vet_consultation`). */
export const typeCode = (description = 'Appointment type code, case-insensitive (answered lower-case).') =>
  Type.String({ minLength: 2, maxLength: 50, pattern: '^[A-Za-z][A-Za-z0-9_]{1,49}$', description, examples: ['vet_consultation'] });
export const TypeCode = typeCode();

export const ProviderId = Type.String({ pattern: '^prv_[a-z0-9_]{1,60}$', description: 'Provider id (prv_…).' });

const LocationIds = Type.Array(LocationId, { minItems: 1, maxItems: 50, uniqueItems: true, description: 'Locations the provider works at.' });
const Services = Type.Array(TypeCode, {
  maxItems: 50,
  description: 'Appointment type codes the provider offers; an empty list means every type.',
});

export const ProviderSchema = Type.Object(
  {
    id: Type.String({ description: 'Provider id (prv_…).' }),
    name: Type.String(),
    kind: Kind,
    status: Status,
    locationIds: Type.Array(Type.String(), { description: 'Locations the provider works at (those the caller can see).' }),
    services: Type.Array(Type.String(), { description: 'Lower-case appointment type codes; [] = every type.' }),
    rating: Type.Union([Type.Number(), Type.Null()], { description: 'Average rating 1–5; null until rated (marketplace).' }),
    ratingCount: Type.Integer({ minimum: 0 }),
    marketplace: Type.Optional(MarketplaceProfile),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    externalId: ExternalIdOut,
  },
  { additionalProperties: false },
);

export const CreateProviderSchema = Type.Object(
  {
    name: Name,
    kind: Kind,
    locationIds: LocationIds,
    services: Type.Optional(Services),
    marketplace: Type.Optional(MarketplaceInput),
  },
  { additionalProperties: false },
);

export const UpdateProviderSchema = Type.Object(
  {
    name: Type.Optional(Name),
    kind: Type.Optional(Kind),
    status: Type.Optional(StaffStatus),
    locationIds: Type.Optional(LocationIds),
    services: Type.Optional(Services),
    bio: Type.Optional(Type.Union([Bio, Type.Null()], { description: 'Marketplace providers only.' })),
    serviceArea: Type.Optional(Type.Union([ServiceArea, Type.Null()], { description: 'Marketplace providers only.' })),
    commissionBps: Type.Optional(Type.Union([CommissionBps, Type.Null()], { description: 'Marketplace providers only; null = the tenant default.' })),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const ListingParams = Type.Object({ id: Type.String({ maxLength: 100 }), listingId: Type.String({ maxLength: 100 }) });

export const ProviderParams = Type.Object({ id: Type.String({ maxLength: 100 }) });

export const ListProvidersQuery = Type.Object(
  {
    ...pageQueryFields,
    locationId: Type.Optional(Type.String({ maxLength: 100, description: 'Only providers working at this location.' })),
    kind: Type.Optional(Kind),
    service: Type.Optional(typeCode('Only providers offering this appointment type (those offering every type included).')),
    status: Type.Optional(Status),
    category: Type.Optional(Category),
    minRating: Type.Optional(Type.Number({ minimum: 1, maximum: 5, description: 'Only providers rated at least this (unrated providers drop out).' })),
    q: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Text in the name or the marketplace bio (case-insensitive).' })),
    externalId: ExternalIdFilter,
    availableOn: Type.Optional(DateOnly('A local date (YYYY-MM-DD) with at least one open slot.')),
  },
  { additionalProperties: false },
);

export type ProviderOut = Static<typeof ProviderSchema>;
export type CreateProviderInput = Static<typeof CreateProviderSchema>;
export type UpdateProviderInput = Static<typeof UpdateProviderSchema>;
export type ListProvidersFilters = Static<typeof ListProvidersQuery>;
export type ListingInput = Static<typeof ListingInputSchema>;
export type UpdateListingInput = Static<typeof UpdateListingSchema>;
export type ListingOut = Static<typeof ListingSchema>;
export type MarketplaceProfileOut = Static<typeof MarketplaceProfile>;

const WindowBoundary = (description: string) =>
  DateOrLocalOrInstant(
    `${description} A date (YYYY-MM-DD, read in each provider location's time zone; as \`to\` it includes that day), a local date-time, or a date-time with Z or an offset.`,
  );

export const ProviderAvailabilityQuery = Type.Object(
  {
    category: Type.Optional(Category),
    providerIds: Type.Optional(Type.String({ minLength: 5, maxLength: 3300, description: 'Comma-separated provider ids (up to 50).' })),
    locationId: Type.Optional(Type.String({ maxLength: 100, description: 'Only slots at this location.' })),
    from: Type.Optional(WindowBoundary('Start of the window (default now).')),
    to: Type.Optional(WindowBoundary('End of the window (default from + 7 days; at most 31 days).')),
    durationMinutes: Type.Optional(DurationMinutes),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 500, description: 'At most this many slots (earliest first).' })),
  },
  { additionalProperties: false },
);

export const ProviderSlotsSchema = Type.Object(
  {
    data: Type.Array(
      Type.Object(
        {
          providerId: Type.String(),
          startsAt: Type.String({ format: 'date-time' }),
          endsAt: Type.String({ format: 'date-time' }),
        },
        { additionalProperties: false },
      ),
    ),
    hasMore: Type.Boolean({ description: 'More slots than `limit` in the window.' }),
    nextFrom: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Ask again with from= this to read on.' }),
  },
  { additionalProperties: false },
);

export type ProviderAvailabilityInput = Static<typeof ProviderAvailabilityQuery>;
