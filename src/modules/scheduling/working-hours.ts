import type { ScheduleRecord } from './schedules.repository.js';
import { mergeIntervals, type Interval, type WeeklyWindow } from './slot-engine.js';
import { parseClock } from './local-time.js';

/** A schedule's weekly window as stored (provider_schedules.weekly, a JSON list). */
export interface StoredWindow {
  weekday: number;
  start: string;
  end: string;
}
export interface StoredTimeOff {
  from: string;
  to: string;
  reason: string | null;
}

/** Parsed weekly patterns by their stored text: most providers of a clinic share a handful of patterns. */
const parsedWeekly = new Map<string, readonly WeeklyWindow[]>();

/** The stored weekly pattern in the engine's form (minutes since local midnight). */
export function weeklyOf(row: Pick<ScheduleRecord, 'weekly'>): readonly WeeklyWindow[] {
  let weekly = parsedWeekly.get(row.weekly);
  if (!weekly) {
    weekly = (JSON.parse(row.weekly) as StoredWindow[]).map((w) => ({ weekday: w.weekday, start: parseClock(w.start) ?? 0, end: parseClock(w.end) ?? 0 }));
    if (parsedWeekly.size >= 1000) parsedWeekly.clear();
    parsedWeekly.set(row.weekly, weekly);
  }
  return weekly;
}

export function timeOffOf(row: Pick<ScheduleRecord, 'time_off'>): StoredTimeOff[] {
  return JSON.parse(row.time_off) as StoredTimeOff[];
}

/** Time off as merged intervals, only those touching [from, to). */
export function timeOffIntervals(row: Pick<ScheduleRecord, 'time_off'>, from: number, to: number): Interval[] {
  return mergeIntervals(
    timeOffOf(row)
      .map((t) => ({ from: Date.parse(t.from), to: Date.parse(t.to) }))
      .filter((i) => i.to > from && i.from < to),
  );
}
