import { isoAt } from '../../clock.js';
import type { Executor } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import type { AccessFilter } from '../../http/actor.js';
import { foundOr404, missingReference, validationFailed } from '../../http/errors.js';
import { findLocation } from '../locations/index.js';
import type { BoardingRoomsTable } from './boarding.table.js';
import { findRoom, insertRoom, updateRoom } from './rooms.repository.js';
import type { CreateRoomInput, UpdateRoomInput } from './rooms.schema.js';

export async function createRoom(db: Executor, actor: AccessFilter, input: CreateRoomInput, now: number): Promise<BoardingRoomsTable> {
  const location = await findLocation(db, actor, input.locationId);
  if (!location) throw missingReference('locationId', 'location', input.locationId);
  // One currency per location: a stay priced by one room and billed at another's rate never mixes currencies.
  if (input.currency !== undefined && input.currency !== location.currency) {
    throw validationFailed([{ field: 'currency', message: `must be the location's currency (${location.currency})` }]);
  }
  const at = isoAt(now);
  const row: BoardingRoomsTable = {
    id: newId('room'),
    tenant_id: actor.tenantId,
    location_id: location.id,
    name: input.name.trim(),
    room_type: input.roomType,
    capacity: input.capacity,
    species: JSON.stringify(input.species),
    nightly_rate: input.nightlyRate,
    currency: location.currency,
    active: 1,
    created_at: at,
    updated_at: at,
  };
  await insertRoom(db, actor, row);
  return row;
}

export async function getRoom(db: Executor, actor: AccessFilter, id: string): Promise<BoardingRoomsTable> {
  return foundOr404(await findRoom(db, actor, id), 'room', id);
}

/**
 * Rename, re-price, resize, change species, (de)activate. Stays already booked keep their place
 * and their amount: a smaller capacity only refuses new bookings that no longer fit.
 */
export async function patchRoom(db: Executor, actor: AccessFilter, id: string, input: UpdateRoomInput, now: number): Promise<BoardingRoomsTable> {
  const room = await getRoom(db, actor, id);
  const patch: Partial<BoardingRoomsTable> = { updated_at: isoAt(now) };
  if (input.name !== undefined) patch.name = input.name.trim();
  if (input.capacity !== undefined) patch.capacity = input.capacity;
  if (input.nightlyRate !== undefined) patch.nightly_rate = input.nightlyRate;
  if (input.species !== undefined) patch.species = JSON.stringify(input.species);
  if (input.active !== undefined) patch.active = input.active ? 1 : 0;
  await updateRoom(db, actor, id, patch);
  return { ...room, ...patch };
}
