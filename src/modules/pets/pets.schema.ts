import { Type, type Static } from '@sinclair/typebox';
import { pageQueryFields } from '../../http/paging.js';
import { DateOnly, ExternalIdFilter, ExternalIdOut, NonBlankText } from '../../http/schema-fields.js';
import { LocationId } from '../locations/index.js';
import { petSizes } from './pets.table.js';

export const species = ['dog', 'cat', 'rabbit', 'bird', 'reptile', 'ferret', 'guinea_pig', 'hamster', 'horse', 'other'] as const;
export const vaccinationStatuses = ['Up to date', 'Due soon', 'Overdue', 'No records'] as const;

const Species = Type.Union(species.map((s) => Type.Literal(s)));
const BirthDate = DateOnly('Date of birth (YYYY-MM-DD); not in the future.', '2021-04-12');
const Name = NonBlankText(100);
const Breed = NonBlankText(100);
/** DESIGN §5: optional; grooming times and prices its packages by it. */
export const PetSizeSchema = Type.Union(
  petSizes.map((s) => Type.Literal(s)),
  { description: 'small | medium | large | xlarge (grooming prices and times by it).' },
);
const OwnerId = Type.String({ pattern: '^usr_[a-z0-9_]{1,60}$', description: 'Pet parent id (usr_…).' });

export const PetSchema = Type.Object(
  {
    id: Type.String({ description: 'Pet id (pet_…).' }),
    name: Type.String(),
    breed: Type.String(),
    ownerId: Type.String({ description: 'Pet parent id (usr_…).' }),
    vaccinationStatus: Type.Union(
      vaccinationStatuses.map((s) => Type.Literal(s)),
      {
        description: 'Derived from vaccination records: Up to date, Due soon (within 30 days), Overdue or No records.',
      },
    ),
    lastVisit: Type.Union([DateOnly('The date of the last completed visit (YYYY-MM-DD).'), Type.Null()]),
    species: Species,
    birthDate: Type.Union([BirthDate, Type.Null()]),
    locationId: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    size: Type.Union([PetSizeSchema, Type.Null()], { description: 'small | medium | large | xlarge, or null when not recorded.' }),
    externalId: ExternalIdOut,
  },
  { additionalProperties: false },
);

export const CreatePetSchema = Type.Object(
  {
    name: Name,
    breed: Breed,
    species: Species,
    ownerId: OwnerId,
    locationId: LocationId,
    birthDate: Type.Optional(Type.Union([BirthDate, Type.Null()])),
    size: Type.Optional(Type.Union([PetSizeSchema, Type.Null()])),
  },
  { additionalProperties: false },
);

export const UpdatePetSchema = Type.Object(
  {
    name: Type.Optional(Name),
    breed: Type.Optional(Breed),
    species: Type.Optional(Species),
    ownerId: Type.Optional(OwnerId),
    locationId: Type.Optional(LocationId),
    birthDate: Type.Optional(Type.Union([BirthDate, Type.Null()])),
    size: Type.Optional(Type.Union([PetSizeSchema, Type.Null()])),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const PetParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
export const ListPetsQuery = Type.Object(
  {
    ...pageQueryFields,
    ownerId: Type.Optional(Type.String({ maxLength: 100 })),
    locationId: Type.Optional(Type.String({ maxLength: 100 })),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Case-insensitive substring of the name.' })),
    externalId: ExternalIdFilter,
  },
  { additionalProperties: false },
);

export type CreatePetInput = Static<typeof CreatePetSchema>;
export type UpdatePetInput = Static<typeof UpdatePetSchema>;
export type ListPetsFilters = Static<typeof ListPetsQuery>;
export type VaccinationStatus = (typeof vaccinationStatuses)[number];
