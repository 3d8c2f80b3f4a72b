import { Type, type Static } from '@sinclair/typebox';
import { pageQueryFields } from '../../http/paging.js';
import { NonBlankText } from '../../http/schema-fields.js';
import { LocationId } from '../locations/index.js';
import { IdParams, RoomType, Species } from './boarding-fields.js';

const SpeciesList = Type.Array(Species, { minItems: 1, maxItems: 10, uniqueItems: true, description: 'Species the room takes, e.g. ["dog"].' });
const NightlyRate = Type.Integer({ minimum: 0, maximum: 1_000_000_000_000, description: 'Price of one night, integer minor units.' });
const Capacity = Type.Integer({ minimum: 1, maximum: 1000, description: 'Pets it holds at once (1–1000).' });

export const RoomSchema = Type.Object(
  {
    id: Type.String({ description: 'Room id (room_…).' }),
    locationId: Type.String(),
    name: Type.String(),
    roomType: Type.String(),
    capacity: Type.Integer(),
    species: Type.Array(Type.String()),
    nightlyRate: Type.Integer({ description: 'Integer minor units per night.' }),
    currency: Type.String(),
    active: Type.Boolean({ description: 'Inactive rooms add no capacity and take no check-ins; their stays stay as they are.' }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const CreateRoomSchema = Type.Object(
  {
    locationId: LocationId,
    name: NonBlankText(100),
    roomType: RoomType,
    capacity: Capacity,
    species: SpeciesList,
    nightlyRate: NightlyRate,
    currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', description: "ISO 4217; must be the location's currency (the default)." })),
  },
  { additionalProperties: false },
);

export const UpdateRoomSchema = Type.Object(
  {
    name: Type.Optional(NonBlankText(100)),
    capacity: Type.Optional(Capacity),
    nightlyRate: Type.Optional(NightlyRate),
    species: Type.Optional(SpeciesList),
    active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const ListRoomsQuery = Type.Object(
  {
    ...pageQueryFields,
    locationId: Type.Optional(LocationId),
    roomType: Type.Optional(RoomType),
    active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const RoomParams = IdParams('Room id (room_…).');

export type CreateRoomInput = Static<typeof CreateRoomSchema>;
export type UpdateRoomInput = Static<typeof UpdateRoomSchema>;
export type ListRoomsFilters = Static<typeof ListRoomsQuery>;
