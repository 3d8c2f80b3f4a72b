import { Type, type Static } from '@sinclair/typebox';
import { pageQueryFields } from '../../http/paging.js';
import { ExternalIdFilter, ExternalIdOut, NonBlankText } from '../../http/schema-fields.js';
import { LocationId } from '../locations/index.js';

const Name = NonBlankText(200);
const Email = Type.String({ maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', description: 'Email address for reminders.' });
const Phone = Type.String({ minLength: 3, maxLength: 32, pattern: '^\\+?[0-9 ()./-]{3,32}$', description: 'Phone number, E.164 preferred.' });

export const PetParentSchema = Type.Object(
  {
    id: Type.String({ description: 'Pet parent id (usr_…).' }),
    name: Type.String(),
    email: Type.Union([Type.String(), Type.Null()]),
    phone: Type.Union([Type.String(), Type.Null()]),
    locationId: Type.String(),
    reminderConsent: Type.Boolean({ description: 'Whether reminders may be sent to this parent.' }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    externalId: ExternalIdOut,
  },
  { additionalProperties: false },
);

export const CreatePetParentSchema = Type.Object(
  {
    name: Name,
    email: Type.Optional(Type.Union([Email, Type.Null()])),
    phone: Type.Optional(Type.Union([Phone, Type.Null()])),
    locationId: LocationId,
    reminderConsent: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);

export const UpdatePetParentSchema = Type.Object(
  {
    name: Type.Optional(Name),
    email: Type.Optional(Type.Union([Email, Type.Null()])),
    phone: Type.Optional(Type.Union([Phone, Type.Null()])),
    locationId: Type.Optional(LocationId),
    reminderConsent: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const PetParentParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
export const ListPetParentsQuery = Type.Object(
  {
    ...pageQueryFields,
    locationId: Type.Optional(Type.String({ maxLength: 100 })),
    email: Type.Optional(Type.String({ maxLength: 254, description: 'Exact email, case-insensitive.' })),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Case-insensitive substring of the name.' })),
    externalId: ExternalIdFilter,
  },
  { additionalProperties: false },
);

export type CreatePetParentInput = Static<typeof CreatePetParentSchema>;
export type UpdatePetParentInput = Static<typeof UpdatePetParentSchema>;
export type ListPetParentsFilters = Static<typeof ListPetParentsQuery>;
