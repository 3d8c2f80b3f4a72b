import { DateTime, IANAZone } from 'luxon';
import { addDays, dayMs, isCalendarDate, utcDate } from '../../calendar-dates.js';
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

/**
 * Every bucket of [from, to] in order, each clipped to the range; null interval = the whole range as
 * one bucket. Counted in epoch days, each written once (dateOfDay's cache): a year by day built with
 * addDays was about 2 ms of the event loop per call (test/analytics/metric-windows.test.ts compares
 * it with that definition).
 */
export function bucketsOf(from: string, to: string, interval: Interval | null): Bucket[] {
  if (interval === null) return [{ bucket: from, from, to }];
  const buckets: Bucket[] = [];
  const first = epochDay(from);
  const last = epochDay(to);
  for (let start = epochDay(bucketStart(from, interval)); start <= last; ) {
    const next = interval === 'day' ? start + 1 : interval === 'week' ? start + 7 : epochDay(nextBucket(dateOfDay(start), interval));
    buckets.push({ bucket: dateOfDay(start), from: start < first ? from : dateOfDay(start), to: next - 1 > last ? to : dateOfDay(next - 1) });
    start = next;
  }
  return buckets;
}

/**
 * Local midnights, computed with integer arithmetic: a day's midnight is its UTC midnight minus the
 * zone's offset, read from the offsets at UTC noon of the days around it (Intl calls, cached: see
 * steadyOffset). Where those differ (a DST or other transition within two days) luxon computes it, as
 * it did every day before: that also decides a midnight a transition skips or repeats. Far from any
 * transition luxon's answer is that same subtraction (its guesses, within ±14 h of the instant, all
 * read the one offset), so the results are equal (test/analytics/metric-windows.test.ts compares
 * every day of several years in zones with DST, non-hour offsets and transitions at midnight).
 * A year by day over 12 locations asks 4,380 midnights: luxon took tens of µs for each.
 */
interface ZoneDays {
  zone: IANAZone;
  /** Offset (minutes) at UTC noon, by epoch day. */
  noonOffsets: Map<number, number>;
  /** The midnight's UTC instant (ISO, ms), by epoch day. */
  midnights: Map<number, string>;
}

const zones = new Map<string, ZoneDays>();
const maxCachedDays = 50_000;
/** Days outside these years go to luxon (historical offsets, with seconds and odd transitions; far futures). */
const firstFastDay = Date.parse('1970-01-10T00:00:00Z') / dayMs;
const lastFastDay = Date.parse('2199-12-29T00:00:00Z') / dayMs;

/** The epoch day of a date (YYYY-MM-DD). */
export const epochDay = (date: string): number => Date.parse(`${date}T00:00:00Z`) / dayMs;

const dates = new Map<number, string>();
/** The date (YYYY-MM-DD) of an epoch day. */
export function dateOfDay(day: number): string {
  let date = dates.get(day);
  if (date === undefined) {
    date = utcDate(day * dayMs);
    if (dates.size >= maxCachedDays) dates.clear();
    dates.set(day, date);
  }
  return date;
}

function zoneDays(timezone: string): ZoneDays {
  let found = zones.get(timezone);
  if (found === undefined) {
    if (zones.size >= 1000) zones.clear();
    found = { zone: IANAZone.create(timezone), noonOffsets: new Map(), midnights: new Map() };
    zones.set(timezone, found);
  }
  return found;
}

function noonOffset(z: ZoneDays, day: number): number {
  let offset = z.noonOffsets.get(day);
  if (offset === undefined) {
    offset = z.zone.offset(day * dayMs + dayMs / 2);
    if (z.noonOffsets.size >= maxCachedDays) z.noonOffsets.clear();
    z.noonOffsets.set(day, offset);
  }
  return offset;
}

/**
 * The zone's offset at the noons of days day-2..day+2 when they are all one (no transition near the
 * day's midnight), else null. First from the noons of the week boundaries around them (epoch days
 * divisible by 7): equal there, the offset is taken to hold between (no zone has had two transitions
 * that cancel within a week); otherwise day by day. A year is then ~60 Intl calls a zone, not 365.
 */
function steadyOffset(z: ZoneDays, day: number): number | null {
  const first = Math.floor((day - 2) / 7) * 7;
  const last = Math.ceil((day + 2) / 7) * 7;
  const offset = noonOffset(z, first);
  if (!Number.isFinite(offset)) return null;
  let steady = true;
  for (let anchor = first + 7; anchor <= last && steady; anchor += 7) steady = noonOffset(z, anchor) === offset;
  if (steady) return offset;
  const near = noonOffset(z, day);
  for (let d = day - 2; d <= day + 2; d++) if (noonOffset(z, d) !== near) return null;
  return Number.isFinite(near) ? near : null;
}

/** The UTC instant (ISO, ms) an epoch day starts at in a zone (luxon moves a midnight skipped by DST to the first hour that exists). */
function midnightOf(z: ZoneDays, timezone: string, day: number): string {
  let instant = z.midnights.get(day);
  if (instant === undefined) {
    let ms: number | undefined;
    if (z.zone.isValid && day >= firstFastDay && day <= lastFastDay) {
      const offset = steadyOffset(z, day);
      if (offset !== null) ms = day * dayMs - offset * 60 * 1000; // as luxon computes it
    }
    instant = new Date(ms ?? DateTime.fromISO(dateOfDay(day), { zone: timezone }).toMillis()).toISOString();
    if (z.midnights.size >= maxCachedDays) z.midnights.clear();
    z.midnights.set(day, instant);
  }
  return instant;
}

/** The UTC instant (ISO, ms) a local date starts at in a zone. */
export const startOfDay = (date: string, timezone: string): string => midnightOf(zoneDays(timezone), timezone, epochDay(date));

/** Each location's windows for the buckets: its own midnights, so a day is the location's day. */
export function windowRows(locations: readonly ScopeLocation[], buckets: readonly Bucket[]): WindowRow[] {
  const firstDays = buckets.map((b) => epochDay(b.from));
  const endDays = buckets.map((b) => epochDay(b.to) + 1);
  const rows: WindowRow[] = [];
  for (const location of locations) {
    const z = zoneDays(location.timezone);
    for (let i = 0; i < buckets.length; i++) {
      const b = buckets[i]!;
      rows.push([location.id, b.bucket, midnightOf(z, location.timezone, firstDays[i]!), midnightOf(z, location.timezone, endDays[i]!), b.from, b.to]);
    }
  }
  return rows;
}
