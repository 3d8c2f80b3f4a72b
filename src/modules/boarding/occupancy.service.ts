import type { Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import { foundOr404, validationFailed } from '../../http/errors.js';
import { findLocation } from '../locations/index.js';
import { isCalendarDate } from '../../calendar-dates.js';
import { maxOccupancyNights } from './boarding-fields.js';
import { daysBetween, nightsOf } from './stay-dates.js';
import { capacityByRoomType, takenByNightAndType } from './stays.repository.js';
import type { Occupancy } from './stays.schema.js';
import { addDays } from '../../calendar-dates.js';

interface Counts {
  capacity: number;
  reserved: number;
  checkedIn: number;
  available: number;
}

/**
 * Occupancy per night and room type, from two grouped queries (capacity of the active rooms, the
 * night counters) and one pass over the nights: its cost follows nights × room types, not stays.
 */
export async function occupancy(db: Executor, actor: AccessFilter, query: { locationId: string; from: string; to: string }): Promise<Occupancy> {
  if (!isCalendarDate(query.from) || !isCalendarDate(query.to)) throw validationFailed([{ field: isCalendarDate(query.from) ? 'to' : 'from', message: 'is not a calendar date' }]);
  if (query.to < query.from) throw validationFailed([{ field: 'to', message: 'must be on or after from' }]);
  if (daysBetween(query.from, query.to) + 1 > maxOccupancyNights) throw validationFailed([{ field: 'to', message: `at most ${maxOccupancyNights} nights from from` }]);
  const location = foundOr404(await findLocation(db, actor, query.locationId), 'location', query.locationId);

  const capacity = new Map<string, number>();
  for (const row of await capacityByRoomType(db, actor.tenantId, location.id)) capacity.set(row.room_type, Number(row.capacity));
  const taken = new Map<string, Map<string, { reserved: number; checkedIn: number }>>();
  for (const row of await takenByNightAndType(db, location.id, query.from, query.to)) {
    const reserved = Number(row.reserved);
    const checkedIn = Number(row.checked_in);
    if (reserved === 0 && checkedIn === 0) continue;
    let types = taken.get(row.night);
    if (!types) taken.set(row.night, (types = new Map()));
    types.set(row.room_type, { reserved, checkedIn });
  }
  const allTypes = new Set(capacity.keys());
  for (const types of taken.values()) for (const type of types.keys()) allTypes.add(type);
  const roomTypes = [...allTypes].sort();

  const nights = nightsOf(query.from, addDays(query.to, 1)).map((date) => {
    const total: Counts = { capacity: 0, reserved: 0, checkedIn: 0, available: 0 };
    const types = taken.get(date);
    const byRoomType = roomTypes.map((roomType) => {
      const cap = capacity.get(roomType) ?? 0;
      const counts = types?.get(roomType);
      const reserved = counts?.reserved ?? 0;
      const checkedIn = counts?.checkedIn ?? 0;
      total.capacity += cap;
      total.reserved += reserved;
      total.checkedIn += checkedIn;
      return { roomType, capacity: cap, reserved, checkedIn, available: cap - reserved - checkedIn };
    });
    total.available = total.capacity - total.reserved - total.checkedIn;
    return { date, ...total, byRoomType };
  });
  return { locationId: location.id, from: query.from, to: query.to, nights };
}
