import { Type, type Static } from '@sinclair/typebox';
import { pageQueryFields } from '../../http/paging.js';
import { NonBlankText } from '../../http/schema-fields.js';

export const LocationId = Type.String({ pattern: '^loc_[a-z0-9_]{1,60}$', description: 'Location id (loc_…).' });
const Timezone = Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone, e.g. Europe/London.', examples: ['America/New_York'] });
const Name = NonBlankText(200);
// Money settings of the location (payments module); defined here so locations import nothing from payments.
const Currency = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code its invoices default to, e.g. USD (default USD).', examples: ['USD'] });
const TaxRateBps = Type.Integer({
  minimum: 0,
  maximum: 10_000,
  description: 'Tax rate in basis points for invoice lines that set none: 825 = 8.25 % (default 0).',
});

/** Species a boarding requirement may name: the pets module's species. */
export const boardingSpecies = ['dog', 'cat', 'rabbit', 'bird', 'reptile', 'ferret', 'guinea_pig', 'hamster', 'horse', 'other'] as const;
const VaccineNames = Type.Array(NonBlankText(200), {
  maxItems: 20,
  description: 'Vaccine names, matched case-insensitively to the pet’s vaccination records.',
});
/** The boarding module reads it at check-in (DESIGN §10); kept here because it is a setting of the location. */
export const BoardingRequiredVaccines = Type.Object(Object.fromEntries(boardingSpecies.map((s) => [s, Type.Optional(VaccineNames)])), {
  additionalProperties: false,
  description:
    'Vaccines a boarded pet must have, valid (dueOn) through its checkOutOn, per species, e.g. {"dog": ["Rabies", "DHPP"], "cat": ["FVRCP"]}. ' +
    'Replaced whole on PATCH; {} (the default) requires none.',
  examples: [{ dog: ['Rabies', 'DHPP'], cat: ['FVRCP'] }],
});

export const LocationSchema = Type.Object(
  {
    id: LocationId,
    name: Type.String(),
    timezone: Type.String(),
    currency: Type.String({ description: 'ISO 4217 code its invoices default to.' }),
    taxRateBps: Type.Integer({ description: 'Tax rate in basis points (825 = 8.25 %).' }),
    boardingRequiredVaccines: BoardingRequiredVaccines,
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false, $id: 'Location' },
);

export const CreateLocationSchema = Type.Object(
  {
    name: Name,
    timezone: Timezone,
    currency: Type.Optional(Currency),
    taxRateBps: Type.Optional(TaxRateBps),
    boardingRequiredVaccines: Type.Optional(BoardingRequiredVaccines),
  },
  { additionalProperties: false },
);
export const UpdateLocationSchema = Type.Object(
  {
    name: Type.Optional(Name),
    timezone: Type.Optional(Timezone),
    currency: Type.Optional(Currency),
    taxRateBps: Type.Optional(TaxRateBps),
    boardingRequiredVaccines: Type.Optional(BoardingRequiredVaccines),
  },
  { additionalProperties: false, minProperties: 1 },
);
export const LocationParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
export const ListLocationsQuery = Type.Object({ ...pageQueryFields }, { additionalProperties: false });

export type CreateLocationInput = Static<typeof CreateLocationSchema>;
export type UpdateLocationInput = Static<typeof UpdateLocationSchema>;
export type BoardingRequiredVaccinesValue = Partial<Record<(typeof boardingSpecies)[number], string[]>>;
