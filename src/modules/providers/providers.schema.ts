import { Type, type Static } from '@sinclair/typebox';
import { pageQueryFields } from '../../http/paging.js';
import { NonBlankText } from '../../http/schema-fields.js';
import { LocationId } from '../locations/index.js';

export const providerKinds = ['vet', 'groomer', 'sitter', 'walker', 'trainer'] as const;
export const providerStatuses = ['active', 'inactive'] as const;

export type ProviderKind = (typeof providerKinds)[number];
export type ProviderStatus = (typeof providerStatuses)[number];

const Kind = Type.Union(providerKinds.map((k) => Type.Literal(k)));
const Status = Type.Union(providerStatuses.map((s) => Type.Literal(s)), {
  description: 'active providers can be booked; inactive ones keep their appointments but take no new ones.',
});
const Name = NonBlankText(200);

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
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const CreateProviderSchema = Type.Object(
  {
    name: Name,
    kind: Kind,
    locationIds: LocationIds,
    services: Type.Optional(Services),
  },
  { additionalProperties: false },
);

export const UpdateProviderSchema = Type.Object(
  {
    name: Type.Optional(Name),
    kind: Type.Optional(Kind),
    status: Type.Optional(Status),
    locationIds: Type.Optional(LocationIds),
    services: Type.Optional(Services),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const ProviderParams = Type.Object({ id: Type.String({ maxLength: 100 }) });

export const ListProvidersQuery = Type.Object(
  {
    ...pageQueryFields,
    locationId: Type.Optional(Type.String({ maxLength: 100, description: 'Only providers working at this location.' })),
    kind: Type.Optional(Kind),
    service: Type.Optional(typeCode('Only providers offering this appointment type (those offering every type included).')),
    status: Type.Optional(Status),
  },
  { additionalProperties: false },
);

export type ProviderOut = Static<typeof ProviderSchema>;
export type CreateProviderInput = Static<typeof CreateProviderSchema>;
export type UpdateProviderInput = Static<typeof UpdateProviderSchema>;
export type ListProvidersFilters = Static<typeof ListProvidersQuery>;
