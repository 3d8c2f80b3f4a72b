import type { Executor } from '../../db/database.js';
import { inList } from '../../db/in-list.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { BoardingRoomsTable } from './boarding.table.js';
import type { ListRoomsFilters } from './rooms.schema.js';

/** Rooms the caller may see: its tenant, and its locations when location-scoped. */
function visible(db: Executor, actor: AccessFilter) {
  let query = db.selectFrom('boarding_rooms').selectAll().where('tenant_id', '=', actor.tenantId);
  if (actor.locationIds !== null) query = query.where('location_id', 'in', inList(actor.locationIds));
  return query;
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
export async function activeRooms(db: Executor, tenantId: string, locationId: string, roomType?: string): Promise<BoardingRoomsTable[]> {
  let query = db.selectFrom('boarding_rooms').selectAll().where('tenant_id', '=', tenantId).where('location_id', '=', locationId).where('active', '=', 1);
  if (roomType !== undefined) query = query.where('room_type', '=', roomType);
  return query.orderBy('nightly_rate').orderBy('name').orderBy('id').execute();
}

export async function insertRoom(db: Executor, row: BoardingRoomsTable): Promise<void> {
  await db.insertInto('boarding_rooms').values(row).execute();
}

export async function updateRoom(db: Executor, tenantId: string, id: string, patch: Partial<BoardingRoomsTable>): Promise<void> {
  await db.updateTable('boarding_rooms').set(patch).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
}
