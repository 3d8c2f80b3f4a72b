import { dayMs, isCalendarDate, utcDate } from '../../calendar-dates.js';
import type { Executor } from '../../db/database.js';
import { VersionedCache } from '../../db/versioned-cache.js';
import type { AccessFilter } from '../../http/actor.js';
import { notFound, validationFailed } from '../../http/errors.js';
import { maxOccupancyNights } from './boarding-fields.js';
import { daysBetween } from './stay-dates.js';
import { occupancyFacts, occupancyKey } from './stays.repository.js';
import type { Occupancy } from './stays.schema.js';

/**
 * Answers by database (environment), tenant, location and window, with the change counter they were
 * computed under: rooms and night totals change only through writes, whose triggers move the
 * counter, so an answer is reused exactly while nothing it reads changed (a front desk polls the
 * grid). The caller's visibility is checked on every call, before the cache is consulted.
 */
const answers = new VersionedCache<Occupancy>(1000);

/**
 * Occupancy per night and room type, from one statement (capacity of the active rooms per type,
 * the non-empty night totals) and one pass over the nights: its cost follows nights × room types,
 * never the number of stays.
 */
export async function occupancy(db: Executor, actor: AccessFilter, query: { locationId: string; from: string; to: string }): Promise<Occupancy> {
  if (!isCalendarDate(query.from)) throw validationFailed([{ field: 'from', message: 'is not a calendar date' }]);
  if (!isCalendarDate(query.to)) throw validationFailed([{ field: 'to', message: 'is not a calendar date' }]);
  if (query.to < query.from) throw validationFailed([{ field: 'to', message: 'must be on or after from' }]);
  const count = daysBetween(query.from, query.to) + 1;
  if (count > maxOccupancyNights) throw validationFailed([{ field: 'to', message: `at most ${maxOccupancyNights} nights from from` }]);
  const key = await occupancyKey(db, actor, query.locationId);
  if (key.visible === 0) throw notFound('location', query.locationId);
  const cacheKey = `${actor.tenantId}|${query.locationId}|${query.from}|${query.to}`;
  const cached = answers.get(db, cacheKey, key.version);
  if (cached) return cached;
  const answer = await computeOccupancy(db, actor, query, count);
  answers.set(db, cacheKey, key.version, answer);
  return answer;
}

async function computeOccupancy(db: Executor, actor: AccessFilter, query: { locationId: string; from: string; to: string }, count: number): Promise<Occupancy> {
  const facts = await occupancyFacts(db, actor, query.locationId, query.from, query.to);
  if (facts.visible === 0) throw notFound('location', query.locationId);

  const capacity = new Map<string, number>();
  for (const entry of facts.capacity ? facts.capacity.split(';') : []) {
    const bar = entry.indexOf('|');
    capacity.set(entry.slice(0, bar), Number(entry.slice(bar + 1)));
  }
  const taken = facts.taken ? facts.taken.split(';').map((entry) => entry.split('|')) : [];
  for (const [, roomType] of taken) if (!capacity.has(roomType!)) capacity.set(roomType!, 0);
  const roomTypes = [...capacity.keys()].sort();
  const typeIndex = new Map(roomTypes.map((type, i) => [type, i]));
  const width = roomTypes.length;

  const start = Date.parse(`${query.from}T00:00:00Z`);
  const dates = new Array<string>(count);
  const dateIndex = new Map<string, number>();
  for (let n = 0; n < count; n++) {
    dates[n] = utcDate(start + n * dayMs);
    dateIndex.set(dates[n]!, n);
  }
  // reserved and checkedIn per (night, room type), in two flat arrays.
  const reserved = new Array<number>(count * width).fill(0);
  const checkedIn = new Array<number>(count * width).fill(0);
  for (const [night, roomType, r, c] of taken) {
    const at = dateIndex.get(night!)! * width + typeIndex.get(roomType!)!;
    reserved[at] = Number(r);
    checkedIn[at] = Number(c);
  }
  const caps = roomTypes.map((type) => capacity.get(type)!);
  const totalCapacity = caps.reduce((sum, c) => sum + c, 0);

  const nights: Occupancy['nights'] = new Array(count);
  for (let n = 0; n < count; n++) {
    let nightReserved = 0;
    let nightIn = 0;
    const byRoomType: Occupancy['nights'][number]['byRoomType'] = new Array(width);
    for (let i = 0; i < width; i++) {
      const r = reserved[n * width + i]!;
      const c = checkedIn[n * width + i]!;
      nightReserved += r;
      nightIn += c;
      byRoomType[i] = { roomType: roomTypes[i]!, capacity: caps[i]!, reserved: r, checkedIn: c, available: caps[i]! - r - c };
    }
    nights[n] = {
      date: dates[n]!,
      capacity: totalCapacity,
      reserved: nightReserved,
      checkedIn: nightIn,
      available: totalCapacity - nightReserved - nightIn,
      byRoomType,
    };
  }
  return { locationId: query.locationId, from: query.from, to: query.to, nights };
}
