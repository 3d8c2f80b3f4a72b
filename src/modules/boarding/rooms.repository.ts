import { scoped } from '../../db/access-policy.js';
import type { Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { BoardingRoomsTable } from './boarding.table.js';
import type { ListRoomsFilters } from './rooms.schema.js';

/** Rooms the caller may see: its tenant, and its locations when location-scoped (the manifest's policy). */
function visible(db: Executor, actor: AccessFilter) {
  return scoped(db, actor).selectFrom('boarding_rooms').selectAll();
}

export async function findRoom(db: Executor, actor: AccessFilter, id: string): Promise<BoardingRoomsTable | null> {
  return (await visible(db, actor).where('id', '=', id).executeTakeFirst()) ?? null;
}

export async function listRooms(db: Executor, actor: AccessFilter, page: PageRequest, filters: ListRoomsFilters): Promise<BoardingRoomsTable[]> {
  let query = visible(db, actor);
  if (filters.locationId !== undefined) query = query.where('location_id', '=', filters.locationId);
  if (filters.roomType !== undefined) query = query.where('room_type', '=', filters.roomType);
  if (filters.active !== undefined) query = query.where('active', '=', filters.active ? 1 : 0);
  return pageQuery(query, page).execute();
}

/** The active rooms of a location (of one type when given): what capacity, rates and room picks read. */
export async function activeRooms(db: Executor, access: AccessFilter, locationId: string, roomType?: string): Promise<BoardingRoomsTable[]> {
  let query = visible(db, access).where('location_id', '=', locationId).where('active', '=', 1);
  if (roomType !== undefined) query = query.where('room_type', '=', roomType);
  return query.orderBy('nightly_rate').orderBy('name').orderBy('id').execute();
}

export async function insertRoom(db: Executor, access: AccessFilter, row: BoardingRoomsTable): Promise<void> {
  await scoped(db, access).insert('boarding_rooms', row);
}

export async function updateRoom(db: Executor, access: AccessFilter, id: string, patch: Partial<BoardingRoomsTable>): Promise<void> {
  await scoped(db, access).updateTable('boarding_rooms').set(patch).where('id', '=', id).execute();
}
