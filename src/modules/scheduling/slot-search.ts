import type { Database, Executor, LocationsTable } from '../../db/database.js';
import { validationFailed } from '../../http/errors.js';
import { maxBufferMinutes, maxDurationMinutes } from './appointment-types.js';
import { cachedBusyIntervals } from './busy-cache.js';
import { dayMs, minuteMs, zoneClock, type ZoneClock } from './local-time.js';
import type { BookableSchedule } from './schedules.repository.js';
import { freeSlots, workingIntervals, type Interval } from './slot-engine.js';
import { timeOffIntervals, weeklyOf } from './working-hours.js';

export const maxWindowDays = 31;

export interface Window {
  from: number;
  to: number;
}

/** from/to of a query in the location's zone; defaults now and now + `defaultDays`; at most 31 days. */
export function readWindow(clock: ZoneClock, input: { from?: string | undefined; to?: string | undefined }, now: number, defaultDays: number): Window {
  const from = input.from === undefined ? now : clock.parseBoundary(input.from);
  if (from === null) throw validationFailed([{ field: 'from', message: 'must be a date YYYY-MM-DD or a date-time with Z or an offset' }]);
  const to = input.to === undefined ? from + defaultDays * dayMs : clock.parseBoundary(input.to, true);
  if (to === null) throw validationFailed([{ field: 'to', message: 'must be a date YYYY-MM-DD or a date-time with Z or an offset' }]);
  if (to <= from) throw validationFailed([{ field: 'to', message: 'must be after from' }]);
  if (to - from > maxWindowDays * dayMs) throw validationFailed([{ field: 'to', message: `the window may span at most ${maxWindowDays} days` }]);
  return { from, to };
}

/** What a slot takes: its duration and buffers (an appointment type, or a grooming package's size). */
export type SlotShape = Pick<Database['appointment_types'], 'duration_minutes' | 'buffer_before_minutes' | 'buffer_after_minutes'>;

export interface SlotSearch {
  location: Pick<LocationsTable, 'timezone'>;
  type: SlotShape;
  /** Schedules at the location of the candidate providers. */
  schedules: ReadonlyArray<Pick<BookableSchedule, 'provider_id' | 'weekly' | 'time_off'>>;
  window: Window;
  earliest: number;
  /** Per provider. */
  limitEach?: number;
}

/**
 * Free slots per provider at one location: one query for the blocked intervals of all of them (at
 * any location; appointments and grooming bookings alike). Grooming availability runs through it too.
 */
export async function searchSlots(db: Executor, search: SlotSearch): Promise<Map<string, Interval[]>> {
  const { window, type, schedules } = search;
  const out = new Map<string, Interval[]>();
  if (schedules.length === 0) return out;
  const busy = await cachedBusyIntervals(
    db,
    schedules.map((s) => s.provider_id),
    window.from - maxBufferMinutes * minuteMs,
    window.to + (maxDurationMinutes + maxBufferMinutes) * minuteMs,
  );
  const clock = zoneClock(search.location.timezone);
  const reach = window.to + type.duration_minutes * minuteMs;
  for (const schedule of schedules) {
    out.set(
      schedule.provider_id,
      freeSlots({
        working: workingIntervals(weeklyOf(schedule), clock, window.from, reach),
        timeOff: timeOffIntervals(schedule, window.from, reach),
        busy: busy.get(schedule.provider_id) ?? [],
        durationMs: type.duration_minutes * minuteMs,
        bufferBeforeMs: type.buffer_before_minutes * minuteMs,
        bufferAfterMs: type.buffer_after_minutes * minuteMs,
        from: window.from,
        to: window.to,
        earliest: search.earliest,
        ...(search.limitEach === undefined ? {} : { limit: search.limitEach }),
      }),
    );
  }
  return out;
}
