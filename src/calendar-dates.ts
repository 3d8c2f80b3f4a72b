/** Calendar dates as the API writes them: YYYY-MM-DD, in UTC unless a time zone is applied first. */
import { DateTime } from 'luxon';

export const dayMs = 86_400_000;

const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The UTC date of an instant. */
export const utcDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** The date at a location (its IANA zone) at an instant. */
export const localDate = (ms: number, timezone: string): string =>
  DateTime.fromMillis(ms, { zone: timezone }).toISODate() ?? utcDate(ms);

/** A date plus whole days (negative: minus). */
export const addDays = (date: string, days: number): string => utcDate(Date.parse(`${date}T00:00:00Z`) + days * dayMs);

/** A real calendar day written YYYY-MM-DD, year 1 or later: 2026-02-30 is not one (Date.parse rolls it over to 2 March). */
export function isCalendarDate(value: string): boolean {
  const match = datePattern.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return year >= 1 && date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}
