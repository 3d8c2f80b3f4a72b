/** Calendar dates as the API writes them: YYYY-MM-DD, in UTC unless a time zone is applied first; and the reading of instants. */
import { DateTime } from 'luxon';

export const dayMs = 86_400_000;

const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The UTC date of an instant. */
export const utcDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** The date at a location (its IANA zone) at an instant. */
export const localDate = (ms: number, timezone: string): string => DateTime.fromMillis(ms, { zone: timezone }).toISODate() ?? utcDate(ms);

/** A date plus whole days (negative: minus). */
export const addDays = (date: string, days: number): string => utcDate(Date.parse(`${date}T00:00:00Z`) + days * dayMs);

const monthDays = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeapYear = (year: number): boolean => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);

/**
 * A real calendar day written YYYY-MM-DD, years 0001–9999 (proleptic Gregorian, as Date and ISO
 * 8601 count): 2026-02-30 is not one (Date.parse rolls it over to 2 March). Pure arithmetic: Date.UTC
 * reads years 0–99 as 1900–1999, which refused 0040-08-27 while 0100-08-27 passed.
 */
export function isCalendarDate(value: string): boolean {
  const match = datePattern.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  return day <= (month === 2 && isLeapYear(year) ? 29 : monthDays[month - 1]!);
}

const localDateTimePattern = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

/** A local date-time without offset (`2026-12-24T13:00[:00]`): a real calendar day and a time below 24:00 (the `local-date-time` format). */
export function isLocalDateTime(value: string): boolean {
  const m = localDateTimePattern.exec(value);
  return m !== null && isCalendarDate(m[1]!) && Number(m[2]) < 24 && Number(m[3]) < 60 && Number(m[4] ?? 0) < 60;
}

/** The widest offset an instant may carry (DESIGN §5): −14:00…+14:00 covers every zone in use (Kiribati's +14:00 the furthest). */
export const maxOffsetMinutes = 14 * 60;

const instantPattern = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:Z|([+-])(\d{2}):(\d{2}))$/i;
const firstInstantMs = Date.parse('0001-01-01T00:00:00.000Z');
const lastInstantMs = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * The one reading of a client's date-time (the `date-time` format of every schema, and every
 * service that parses an instant itself): ISO 8601 `YYYY-MM-DDTHH:MM[:SS[.fraction]]` with `Z` or a
 * numeric offset within ±14:00 whose minutes are below 60, a real date in years 0001–9999, a time
 * below 24:00, and an instant that is itself in years 0001–9999 in UTC (the form it is stored and
 * answered in). Epoch ms (fraction truncated to ms), or null: never rolled over, never clamped.
 */
export function parseInstant(value: string): number | null {
  const m = instantPattern.exec(value);
  if (!m || !isCalendarDate(m[1]!)) return null;
  const [hour, minute, second] = [Number(m[2]), Number(m[3]), Number(m[4] ?? 0)];
  if (hour > 23 || minute > 59 || second > 59) return null;
  let offset = 0;
  if (m[6] !== undefined) {
    const [offsetHours, offsetMinutes] = [Number(m[7]), Number(m[8])];
    if (offsetMinutes > 59) return null;
    offset = offsetHours * 60 + offsetMinutes;
    if (offset > maxOffsetMinutes) return null;
    if (m[6] === '-') offset = -offset;
  }
  const millis = m[5] === undefined ? 0 : Number(`${m[5]}00`.slice(0, 3));
  const ms = Date.parse(`${m[1]}T00:00:00.000Z`) + ((hour * 60 + minute - offset) * 60 + second) * 1000 + millis;
  return ms >= firstInstantMs && ms <= lastInstantMs ? ms : null;
}
