import { Type } from '@sinclair/typebox';
import { isCalendarDate } from '../../calendar-dates.js';
import { validationFailed } from '../../http/errors.js';
import { DateOrInstant } from '../../http/schema-fields.js';

/** `from` / `to` filters of the money lists: an instant, or a UTC date (to: through the end of that day). */
export const timeRangeFields = {
  from: Type.Optional(DateOrInstant('Created at or after: an ISO 8601 instant, or a date (00:00 UTC).')),
  to: Type.Optional(DateOrInstant('Created before: an ISO 8601 instant, or a date (inclusive: through 24:00 UTC).')),
};

export interface TimeRange {
  /** ISO 8601 UTC, inclusive. */
  from: string | undefined;
  /** ISO 8601 UTC, exclusive. */
  to: string | undefined;
}

function bound(field: 'from' | 'to', value: string): string {
  const isDate = value.length === 10;
  if (isDate && !isCalendarDate(value)) throw validationFailed([{ field, message: `'${value}' is not a calendar date` }]);
  const ms = Date.parse(isDate ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(ms) || (!isDate && !isCalendarDate(value.slice(0, 10))))
    throw validationFailed([{ field, message: `'${value}' is not an ISO 8601 instant` }]);
  return new Date(isDate && field === 'to' ? ms + 86_400_000 : ms).toISOString();
}

/** Normalises the filters to UTC instants comparable with the stored created_at strings. */
export function timeRange(query: { from?: string | undefined; to?: string | undefined }): TimeRange {
  return { from: query.from === undefined ? undefined : bound('from', query.from), to: query.to === undefined ? undefined : bound('to', query.to) };
}
