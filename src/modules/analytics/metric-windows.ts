import { DateTime } from 'luxon';
import { addDays, isCalendarDate } from '../../calendar-dates.js';
import { type FieldError, validationFailed } from '../../http/errors.js';
import type { Interval } from './analytics.schema.js';

/** A location as analytics reads it. */
export interface ScopeLocation {
  id: string;
  timezone: string;
  currency: string;
}

/** One bucket of a range: `bucket` is its natural first day, from/to its days inside the range (inclusive). */
export interface Bucket {
  bucket: string;
  from: string;
  to: string;
}

/**
 * One location's share of one bucket, as the SQL reads it: the local dates [sd, ed] (inclusive) and
 * the UTC instants [s, e) of their start and end in the location's time zone. Stored times are ISO
 * 8601 UTC strings with milliseconds, so they compare as text with these.
 */
export type WindowRow = [loc: string, bucket: string, s: string, e: string, sd: string, ed: string];

/** The longest range a metric answers: from plus 2 years, minus a day. */
export const maxRangeYears = 2;

/** Checks from/to: real dates, from ≤ to, at most 2 years (400 with the field otherwise). */
export function checkRange(from: string, to: string): void {
  const errors: FieldError[] = [];
  if (!isCalendarDate(from)) errors.push({ field: 'from', message: `'${from}' is not a calendar date` });
  if (!isCalendarDate(to)) errors.push({ field: 'to', message: `'${to}' is not a calendar date` });
  if (errors.length === 0) {
    if (from > to) errors.push({ field: 'to', message: `must not be before from (${from})` });
    else {
      const last = DateTime.fromISO(from, { zone: 'utc' }).plus({ years: maxRangeYears }).minus({ days: 1 }).toISODate();
      if (last !== null && to > last) errors.push({ field: 'to', message: `the range may span at most ${maxRangeYears} years: to must be ${last} or earlier` });
    }
  }
  if (errors.length > 0) throw validationFailed(errors);
}

const weekdayOf = (date: string): number => {
  const day = new Date(`${date}T00:00:00Z`).getUTCDay();
  return day === 0 ? 7 : day;
};

/** The natural start of the bucket holding `date`. */
function bucketStart(date: string, interval: Interval): string {
  if (interval === 'day') return date;
  if (interval === 'week') return addDays(date, 1 - weekdayOf(date));
  return `${date.slice(0, 8)}01`;
}

function nextBucket(start: string, interval: Interval): string {
  if (interval === 'day') return addDays(start, 1);
  if (interval === 'week') return addDays(start, 7);
  const [year, month] = [Number(start.slice(0, 4)), Number(start.slice(5, 7))];
  return month === 12 ? `${String(year + 1).padStart(4, '0')}-01-01` : `${start.slice(0, 5)}${String(month + 1).padStart(2, '0')}-01`;
}

/** Every bucket of [from, to] in order, each clipped to the range; null interval = the whole range as one bucket. */
export function bucketsOf(from: string, to: string, interval: Interval | null): Bucket[] {
  if (interval === null) return [{ bucket: from, from, to }];
  const buckets: Bucket[] = [];
  for (let start = bucketStart(from, interval); start <= to; start = nextBucket(start, interval)) {
    const end = addDays(nextBucket(start, interval), -1);
    buckets.push({ bucket: start, from: start < from ? from : start, to: end > to ? to : end });
  }
  return buckets;
}

/** Local midnights already computed, by zone and date: luxon takes tens of µs for one, and a year by day over 12 locations asks 8,760. */
const midnights = new Map<string, string>();
const maxMidnights = 50_000;

/** The UTC instant (ISO, ms) a local date starts at in a zone (luxon moves a midnight skipped by DST to the first hour that exists). */
function startOfDay(date: string, timezone: string): string {
  const key = `${timezone}|${date}`;
  let instant = midnights.get(key);
  if (instant === undefined) {
    instant = new Date(DateTime.fromISO(date, { zone: timezone }).toMillis()).toISOString();
    if (midnights.size >= maxMidnights) midnights.clear();
    midnights.set(key, instant);
  }
  return instant;
}

/** Each location's windows for the buckets: its own midnights, so a day is the location's day. */
export function windowRows(locations: readonly ScopeLocation[], buckets: readonly Bucket[]): WindowRow[] {
  const rows: WindowRow[] = [];
  for (const location of locations) {
    for (const b of buckets)
      rows.push([location.id, b.bucket, startOfDay(b.from, location.timezone), startOfDay(addDays(b.to, 1), location.timezone), b.from, b.to]);
  }
  return rows;
}
