import { Type, type Static } from '@sinclair/typebox';
import { pageQueryFields } from '../../http/paging.js';
import { DateOnly as DateField, ExternalIdFilter, ExternalIdOut, NonBlankText } from '../../http/schema-fields.js';
import { ProviderId } from '../providers/index.js';

export const vaccineMaxLength = 200;

const DateOnly = (description: string) => DateField(`${description} (YYYY-MM-DD).`);

export const VaccinationSchema = Type.Object(
  {
    id: Type.String({ description: 'Vaccination id (vac_…).' }),
    petId: Type.String(),
    vaccine: Type.String({ description: 'Vaccine name as entered, e.g. Rabies.' }),
    administeredOn: Type.String({ format: 'date' }),
    dueOn: Type.String({ format: 'date', description: 'When the next dose is due; drives vaccinationStatus and pet.vaccination_due.' }),
    lotNumber: Type.Union([Type.String(), Type.Null()]),
    providerId: Type.Union([Type.String(), Type.Null()]),
    locationId: Type.String({ description: "The pet's location when this was recorded." }),
    recordedBy: Type.Object(
      { clientId: Type.String({ description: 'API client (cli_…).' }), role: Type.String() },
      { additionalProperties: false, description: 'The API client that recorded it and its role at the time.' },
    ),
    createdAt: Type.String({ format: 'date-time' }),
    externalId: ExternalIdOut,
  },
  { additionalProperties: false },
);

export const CreateVaccinationSchema = Type.Object(
  {
    vaccine: NonBlankText(vaccineMaxLength),
    administeredOn: DateOnly("The day it was given; not after today's date at the pet's location"),
    dueOn: DateOnly('When the next dose is due; after administeredOn'),
    lotNumber: Type.Optional(Type.Union([NonBlankText(100), Type.Null()])),
    providerId: Type.Optional(Type.Union([ProviderId, Type.Null()], { description: 'The provider (prv_…) who gave it; must be visible to the caller.' })),
  },
  { additionalProperties: false },
);

export const PetVaccinationsParams = Type.Object({ id: Type.String({ maxLength: 100, description: 'Pet id (pet_…).' }) });
export const VaccinationParams = Type.Object({ id: Type.String({ maxLength: 100, description: 'Vaccination id (vac_…).' }) });

export const ListVaccinationsQuery = Type.Object(
  {
    ...pageQueryFields,
    vaccine: Type.Optional(Type.String({ minLength: 1, maxLength: vaccineMaxLength, description: 'Exact vaccine name, case-insensitive.' })),
    externalId: ExternalIdFilter,
  },
  { additionalProperties: false },
);

export type CreateVaccinationInput = Static<typeof CreateVaccinationSchema>;
export type ListVaccinationsFilters = Static<typeof ListVaccinationsQuery>;
