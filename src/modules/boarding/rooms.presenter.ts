import type { Static } from '@sinclair/typebox';
import type { BoardingRoomsTable } from './boarding.table.js';
import type { RoomSchema } from './rooms.schema.js';

export const roomSpecies = (row: Pick<BoardingRoomsTable, 'species'>): string[] => JSON.parse(row.species) as string[];

export const presentRoom = (row: BoardingRoomsTable): Static<typeof RoomSchema> => ({
  id: row.id,
  locationId: row.location_id,
  name: row.name,
  roomType: row.room_type,
  capacity: row.capacity,
  species: roomSpecies(row),
  nightlyRate: row.nightly_rate,
  currency: row.currency,
  active: row.active === 1,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});
