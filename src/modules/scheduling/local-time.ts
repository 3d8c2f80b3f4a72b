import { DateTime } from 'luxon';
import { addDays, isCalendarDate, parseInstant } from '../../calendar-dates.js';

export const minuteMs = 60_000;
export { dayMs } from '../../calendar-dates.js';

const clockPattern = /^(?:([01]\d|2[0-3]):([0-5]\d)|24:00)$/;
const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;
const localDateTimePattern = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

/** "HH:MM" (00:00–24:00) → minutes since local midnight; null when malformed. */
export function parseClock(value: string): number | null {
  const match = clockPattern.exec(value);
  if (!match) return null;
  return match[1] === undefined ? 1440 : Number(match[1]) * 60 + Number(match[2]);
}

export const formatClock = (minutes: number): string => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

const nextDate = (date: string): string => addDays(date, 1);

export { isoAt as toIso } from '../../clock.js';

const digit = (text: string, at: number): number => text.charCodeAt(at) - 48;

/**
 * Epoch ms of the ISO text at text[start, end). Our stored times are toISOString() output
 * (YYYY-MM-DDTHH:MM:SS.sssZ), read here by character arithmetic, about three times faster than
 * Date.parse; anything else goes through Date.parse. Availability reads thousands per request.
 */
export function isoMsAt(text: string, start = 0, end = text.length): number {
  if (end - start !== 24 || text.charCodeAt(start + 23) !== 90 /* Z */ || text.charCodeAt(start + 10) !== 84 /* T */) return Date.parse(text.slice(start, end));
  const year = digit(text, start) * 1000 + digit(text, start + 1) * 100 + digit(text, start + 2) * 10 + digit(text, start + 3);
  // Date.UTC reads years 0–99 as 1900–1999; Date.parse reads a four-digit year as written.
  if (year < 100) return Date.parse(text.slice(start, end));
  return Date.UTC(
    year,
    digit(text, start + 5) * 10 + digit(text, start + 6) - 1,
    digit(text, start + 8) * 10 + digit(text, start + 9),
    digit(text, start + 11) * 10 + digit(text, start + 12),
    digit(text, start + 14) * 10 + digit(text, start + 15),
    digit(text, start + 17) * 10 + digit(text, start + 18),
    digit(text, start + 20) * 100 + digit(text, start + 21) * 10 + digit(text, start + 22),
  );
}

/** ISO weekday (Monday = 1) of a calendar date. */
const isoWeekday = (date: string): number => ((new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7) + 1;

/** Conversions kept per zone; time-zone rules do not change while the process runs. */
const maxCachedConversions = 50_000;

/**
 * Wall-clock arithmetic in one IANA zone. Local → UTC goes through luxon (which knows the zone's
 * DST rules) and is cached: availability converts the same few (date, time) pairs for every
 * provider and every request, and luxon's offset lookup is by far the costliest step.
 * Use `zoneClock(zone)` for the shared instance.
 */
export class ZoneClock {
  private readonly cache = new Map<string, number>();
  private readonly dateFormat: Intl.DateTimeFormat;

  constructor(readonly zone: string) {
    this.dateFormat = new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' });
  }

  /**
   * The UTC instant of a local date and time. A time skipped by a spring-forward change moves
   * forward by the gap (02:30 → 03:30); a repeated one (autumn) takes its first occurrence.
   */
  toUtc(date: string, minutes: number): number {
    if (minutes >= 1440) return this.toUtc(nextDate(date), minutes - 1440);
    const key = `${date}|${minutes}`;
    let value = this.cache.get(key);
    if (value === undefined) {
      const [year, month, day] = date.split('-').map(Number) as [number, number, number];
      value = DateTime.fromObject({ year, month, day, hour: Math.floor(minutes / 60), minute: minutes % 60 }, { zone: this.zone }).toMillis();
      if (this.cache.size >= maxCachedConversions) this.cache.clear();
      this.cache.set(key, value);
    }
    return value;
  }

  /** The local calendar date (YYYY-MM-DD) of an instant. */
  localDate(ms: number): string {
    const parts: Record<string, string> = {};
    for (const part of this.dateFormat.formatToParts(ms)) parts[part.type] = part.value;
    // en-US writes year 40 as "40": pad it back to the API's four digits.
    return `${parts.year?.padStart(4, '0')}-${parts.month}-${parts.day}`;
  }

  private readonly recentDates = new Map<string, Array<{ date: string; weekday: number }>>();

  /**
   * Local dates, with their ISO weekday (Monday = 1), from the day of `from` to the day of `to`,
   * inclusive. Remembered briefly: one availability request asks the same range once per provider.
   */
  dates(from: number, to: number): ReadonlyArray<{ date: string; weekday: number }> {
    const key = `${from}|${to}`;
    const known = this.recentDates.get(key);
    if (known) return known;
    const out: Array<{ date: string; weekday: number }> = [];
    const last = this.localDate(to);
    let date = this.localDate(from);
    for (let i = 0; i < 400 && date <= last; i++) {
      out.push({ date, weekday: isoWeekday(date) });
      date = nextDate(date);
    }
    if (this.recentDates.size >= 64) this.recentDates.clear();
    this.recentDates.set(key, out);
    return out;
  }

  /**
   * A boundary given by a client: a date (start of that local day; with `endOfDay`, the start of
   * the next one, so a date `to` includes its whole day), a local date-time without offset (read in
   * this zone), or a date-time with Z or an offset. Null when none of these.
   */
  parseBoundary(value: string, endOfDay = false): number | null {
    if (datePattern.test(value)) {
      if (!isCalendarDate(value)) return null;
      return this.toUtc(endOfDay ? nextDate(value) : value, 0);
    }
    const local = localDateTimePattern.exec(value);
    if (local) {
      const parsed = DateTime.fromISO(value, { zone: this.zone });
      return parsed.isValid ? parsed.toMillis() : null;
    }
    return parseInstant(value);
  }
}

const clocks = new Map<string, ZoneClock>();

/** The shared clock of a zone (its conversion cache serves every request). */
export function zoneClock(zone: string): ZoneClock {
  let clock = clocks.get(zone);
  if (!clock) {
    clock = new ZoneClock(zone);
    clocks.set(zone, clock);
  }
  return clock;
}

/** An ISO 8601 date-time with Z or a numeric offset → epoch ms; null otherwise: the API's one rule (src/calendar-dates.ts). */
export { parseInstant };
