import { sql } from 'kysely';
import { acrossTenants, scoped } from '../../db/access-policy.js';
import { selectRows, type Executor } from '../../db/database.js';
import { type AccessFilter, wholeTenant } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import { findBooking, type BookingsTable } from '../bookings/index.js';
import type { BoardingStaysTable } from './boarding.table.js';
import { nightsOf } from './stay-dates.js';
import type { ListStaysFilters } from './stays.schema.js';

/** A boarding stay: the shared booking facts and the boarding details. */
export type StayRecord = BookingsTable & BoardingStaysTable;

export async function findStay(db: Executor, actor: AccessFilter, id: string): Promise<StayRecord | null> {
  const booking = await findBooking(db, actor, 'boarding', id);
  if (!booking) return null;
  // The booking was just found visible: its details need only the tenant.
  const stay = await scoped(db, wholeTenant(actor)).selectFrom('boarding_stays').selectAll().where('booking_id', '=', id).executeTakeFirst();
  return stay ? { ...booking, ...stay } : null;
}

export async function listStays(db: Executor, actor: AccessFilter, page: PageRequest, filters: ListStaysFilters): Promise<StayRecord[]> {
  // Through the booking's visibility (tenant, and its location when the caller is location-scoped).
  let query = scoped(db, actor)
    .selectFrom('bookings')
    .innerJoin('boarding_stays', 'boarding_stays.booking_id', 'bookings.id')
    .selectAll()
    .where('bookings.kind', '=', 'boarding');
  if (filters.locationId !== undefined) query = query.where('bookings.location_id', '=', filters.locationId);
  if (filters.petId !== undefined) query = query.where('bookings.pet_id', '=', filters.petId);
  if (filters.status !== undefined) query = query.where('bookings.status', '=', filters.status);
  // Stays with a night in [from, to]: they start on or before `to` and leave after `from`.
  if (filters.to !== undefined) query = query.where('boarding_stays.check_in_on', '<=', filters.to);
  if (filters.from !== undefined) query = query.where('boarding_stays.check_out_on', '>', filters.from);
  return (await pageQuery(query, page, 'bookings.id').execute()) as StayRecord[];
}

export async function insertStay(db: Executor, access: AccessFilter, row: BoardingStaysTable): Promise<void> {
  await scoped(db, access).insert('boarding_stays', row);
}

export async function updateStay(db: Executor, access: AccessFilter, bookingId: string, patch: Partial<BoardingStaysTable>): Promise<void> {
  await scoped(db, access).updateTable('boarding_stays').set(patch).where('booking_id', '=', bookingId).execute();
}

/**
 * Moves a stay's places on the nights [from, to): `reserved` and `checkedIn` are the changes
 * (+1 when booked, −1/+1 at check-in, …), in the per-species counters and in their totals.
 */
export async function adjustNights(
  db: Executor,
  access: AccessFilter,
  stay: Pick<StayRecord, 'tenant_id' | 'location_id' | 'room_type' | 'species'>,
  from: string,
  to: string,
  change: { reserved: number; checkedIn: number },
): Promise<void> {
  if (from >= to) return;
  if (change.reserved < 0 || change.checkedIn < 0) {
    // Places given back: the nights' rows exist (they were counted when taken). An upsert would
    // check its negative VALUES row against the CHECKs before noticing the conflict.
    const set = { reserved: sql<number>`reserved + ${change.reserved}`, checked_in: sql<number>`checked_in + ${change.checkedIn}` };
    const queries = scoped(db, access);
    await queries
      .updateTable('boarding_nights')
      .set(set)
      .where('location_id', '=', stay.location_id)
      .where('room_type', '=', stay.room_type)
      .where('species', '=', stay.species)
      .where('night', '>=', from)
      .where('night', '<', to)
      .execute();
    await queries
      .updateTable('boarding_night_totals')
      .set(set)
      .where('location_id', '=', stay.location_id)
      .where('room_type', '=', stay.room_type)
      .where('night', '>=', from)
      .where('night', '<', to)
      .execute();
    return;
  }
  const rows = nightsOf(from, to).map((night) => ({
    location_id: stay.location_id,
    night,
    room_type: stay.room_type,
    tenant_id: stay.tenant_id,
    reserved: change.reserved,
    checked_in: change.checkedIn,
  }));
  const add = { reserved: sql<number>`reserved + excluded.reserved`, checked_in: sql<number>`checked_in + excluded.checked_in` };
  const queries = scoped(db, access);
  await queries
    .insertInto(
      'boarding_nights',
      rows.map((row) => ({ ...row, species: stay.species })),
    )
    .onConflict((oc) => oc.columns(['location_id', 'night', 'room_type', 'species']).doUpdateSet(add))
    .execute();
  await queries
    .insertInto('boarding_night_totals', rows)
    .onConflict((oc) => oc.columns(['location_id', 'night', 'room_type']).doUpdateSet(add))
    .execute();
}

/** Places taken per night and species of one room type on [from, to). */
export async function takenByNight(db: Executor, access: AccessFilter, locationId: string, roomType: string, from: string, to: string) {
  return scoped(db, access)
    .selectFrom('boarding_nights')
    .select(['night', 'species', 'reserved', 'checked_in'])
    .where('location_id', '=', locationId)
    .where('night', '>=', from)
    .where('night', '<', to)
    .where('room_type', '=', roomType)
    .execute();
}

/** Stays in house in one room that overlap [from, to): what a room assignment must fit beside. */
export async function staysInRoom(db: Executor, access: AccessFilter, roomId: string, from: string, to: string, exceptId: string) {
  return scoped(db, access)
    .selectFrom('boarding_stays')
    .innerJoin('bookings', 'bookings.id', 'boarding_stays.booking_id')
    .select(['boarding_stays.check_in_on', 'boarding_stays.check_out_on'])
    .where('boarding_stays.room_id', '=', roomId)
    .where('boarding_stays.check_in_on', '<', to)
    .where('boarding_stays.check_out_on', '>', from)
    .where('bookings.status', '=', 'checked_in')
    .where('bookings.id', '!=', exceptId)
    .execute();
}

/** A reserved or in-house stay of the pet with a night in [from, to), if any (at any location `access` covers). */
export async function overlappingStayOfPet(db: Executor, access: AccessFilter, petId: string, from: string, to: string): Promise<string | null> {
  const row = await scoped(db, access)
    .selectFrom('bookings')
    .innerJoin('boarding_stays', 'boarding_stays.booking_id', 'bookings.id')
    .select('bookings.id')
    .where('bookings.pet_id', '=', petId)
    .where('bookings.kind', '=', 'boarding')
    .where('bookings.status', 'in', ['reserved', 'checked_in'])
    .where('boarding_stays.check_in_on', '<', to)
    .where('boarding_stays.check_out_on', '>', from)
    .executeTakeFirst();
  return row?.id ?? null;
}

/**
 * Occupancy's two statements stay hand-written (the module's hot read, bench case h): their text
 * carries the tenant and the caller's locations (the location must be visible for any answer).
 */
const handWritten = 'hand-written: tenant_id and locations in its text';

const occupancyKeySql = new Map<number, string>();

/** Whether the caller sees the location, and the change counter of what occupancy reads: one statement. */
export async function occupancyKey(db: Executor, actor: AccessFilter, locationId: string): Promise<{ visible: number; version: number }> {
  const locations = actor.locationIds;
  const n = locations === null ? -1 : locations.length;
  let text = occupancyKeySql.get(n);
  if (!text) {
    const inLocations = n < 0 ? '' : n === 0 ? ' and 0' : ` and id in (${new Array<string>(n).fill('?').join(', ')})`;
    text = `select (select count(*) from locations where id = ? and tenant_id = ?${inLocations}) as visible, (select version from boarding_version where id = 1) as version`;
    if (occupancyKeySql.size < 100) occupancyKeySql.set(n, text);
  }
  const [row] = await selectRows<{ visible: number; version: number }>(acrossTenants(db, handWritten), text, [
    locationId,
    actor.tenantId,
    ...(locations ?? []),
  ]);
  return row ?? { visible: 0, version: 0 };
}

const occupancySql = new Map<number, string>();

/**
 * Everything occupancy reads, in one statement (it is the module's hot read): whether the caller
 * sees the location (tenant, and its locations when scoped), the capacity of its active rooms per
 * type as `type|capacity;…`, and the non-empty night totals as `night|type|reserved|checkedIn;…`.
 * Room types and dates hold neither separator (the schema's patterns). SQL text built once per
 * number of locations.
 */
export async function occupancyFacts(
  db: Executor,
  actor: AccessFilter,
  locationId: string,
  from: string,
  to: string,
): Promise<{ visible: number; capacity: string | null; taken: string | null }> {
  const locations = actor.locationIds;
  const n = locations === null ? -1 : locations.length;
  let text = occupancySql.get(n);
  if (!text) {
    const inLocations = n < 0 ? '' : n === 0 ? ' and 0' : ` and id in (${new Array<string>(n).fill('?').join(', ')})`;
    text =
      `select (select count(*) from locations where id = ? and tenant_id = ?${inLocations}) as visible, ` +
      "(select group_concat(room_type || '|' || capacity, ';') from " +
      '(select room_type, sum(capacity) as capacity from boarding_rooms where location_id = ? and tenant_id = ? and active = 1 group by room_type)) as capacity, ' +
      "(select group_concat(night || '|' || room_type || '|' || reserved || '|' || checked_in, ';') from boarding_night_totals " +
      'where location_id = ? and tenant_id = ? and night >= ? and night <= ? and (reserved > 0 or checked_in > 0)) as taken';
    if (occupancySql.size < 100) occupancySql.set(n, text);
  }
  const parameters = [locationId, actor.tenantId, ...(locations ?? []), locationId, actor.tenantId, locationId, actor.tenantId, from, to];
  const [row] = await selectRows<{ visible: number; capacity: string | null; taken: string | null }>(acrossTenants(db, handWritten), text, parameters);
  return row ?? { visible: 0, capacity: null, taken: null };
}
