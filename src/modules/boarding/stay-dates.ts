import { DateTime } from 'luxon';
import { addDays, dayMs } from '../../calendar-dates.js';
import { isoAt } from '../../clock.js';

/** The dates of the nights [from, to): check-in day inclusive, check-out day exclusive. */
export function nightsOf(from: string, to: string): string[] {
  const out: string[] = [];
  for (let night = from; night < to && out.length < 400; night = addDays(night, 1)) out.push(night);
  return out;
}

/** Whole days from one date to another (negative when `to` is earlier). */
export const daysBetween = (from: string, to: string): number => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / dayMs);

/** The start of a local date at a location, ISO UTC: a stay's starts_at / ends_at in the bookings facts. */
export function startOfLocalDay(date: string, zone: string): string {
  const start = DateTime.fromISO(date, { zone }).startOf('day');
  return isoAt(start.isValid ? start.toMillis() : Date.parse(`${date}T00:00:00Z`));
}
