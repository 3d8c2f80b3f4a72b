import { DateTime } from 'luxon';

/** The date at a location (its IANA zone) at an instant of the business clock. */
export const localDate = (now: number, timezone: string): string =>
  DateTime.fromMillis(now, { zone: timezone }).toISODate() ?? new Date(now).toISOString().slice(0, 10);
