import type { Executor } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import type { Actor } from '../../http/actor.js';
import { type FieldError, foundOr404, missingReference, validationFailed } from '../../http/errors.js';
import { findLocation } from '../locations/index.js';
import { findProvider } from '../providers/index.js';
import {
  parseClock,
  toIso,
  upsertSchedule,
  zoneClock,
  type ScheduleRecord,
  type StoredTimeOff,
  type StoredWindow,
  type ZoneClock,
} from '../scheduling/index.js';
import type { PutScheduleInput } from './schedules.schema.js';

function checkWeekly(weekly: PutScheduleInput['weekly']): StoredWindow[] {
  const errors: FieldError[] = [];
  const parsed = weekly.map((w, index) => ({ index, weekday: w.weekday, start: parseClock(w.start) ?? -1, end: parseClock(w.end) ?? -1, raw: w }));
  for (const w of parsed) {
    if (w.start === 1440) errors.push({ field: `weekly[${w.index}].start`, message: '24:00 can only end a window' });
    else if (w.end <= w.start) errors.push({ field: `weekly[${w.index}].end`, message: `must be after start (${w.raw.start})` });
  }
  if (errors.length === 0) {
    const sorted = [...parsed].sort((a, b) => a.weekday - b.weekday || a.start - b.start);
    for (let i = 1; i < sorted.length; i++) {
      const prev = sorted[i - 1]!;
      const cur = sorted[i]!;
      if (prev.weekday === cur.weekday && cur.start < prev.end) {
        errors.push({
          field: `weekly[${Math.max(prev.index, cur.index)}]`,
          message: `overlaps weekly[${Math.min(prev.index, cur.index)}] on weekday ${cur.weekday}`,
        });
      }
    }
  }
  if (errors.length > 0) throw validationFailed(errors);
  return parsed.sort((a, b) => a.weekday - b.weekday || a.start - b.start).map((w) => ({ weekday: w.weekday, start: w.raw.start, end: w.raw.end }));
}

function checkTimeOff(timeOff: NonNullable<PutScheduleInput['timeOff']>, clock: ZoneClock): StoredTimeOff[] {
  const errors: FieldError[] = [];
  const out: StoredTimeOff[] = [];
  timeOff.forEach((entry, index) => {
    const from = clock.parseBoundary(entry.from);
    const to = clock.parseBoundary(entry.to, true);
    if (from === null) errors.push({ field: `timeOff[${index}].from`, message: `'${entry.from}' is not a date or date-time` });
    if (to === null) errors.push({ field: `timeOff[${index}].to`, message: `'${entry.to}' is not a date or date-time` });
    if (from === null || to === null) return;
    if (to <= from) errors.push({ field: `timeOff[${index}].to`, message: 'must be after from' });
    else out.push({ from: toIso(from), to: toIso(to), reason: entry.reason ?? null });
  });
  if (errors.length > 0) throw validationFailed(errors);
  return out.sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
}

/** Replaces the provider's working hours and time off at one location. */
export async function putSchedule(db: Executor, actor: Actor, providerId: string, input: PutScheduleInput, now: number): Promise<ScheduleRecord> {
  const provider = foundOr404(await findProvider(db, actor, providerId), 'provider', providerId);
  const location = await findLocation(db, actor, input.locationId);
  if (!location) throw missingReference('locationId', 'location', input.locationId);
  if (!provider.locationIds.includes(location.id)) {
    throw validationFailed([
      { field: 'locationId', message: `provider ${provider.id} does not work at ${location.id}; add the location to the provider first` },
    ]);
  }
  const weekly = checkWeekly(input.weekly);
  const timeOff = checkTimeOff(input.timeOff ?? [], zoneClock(location.timezone));
  const at = new Date(now).toISOString();
  const row = await upsertSchedule(db, actor, {
    id: newId('sch'),
    tenant_id: actor.tenantId,
    provider_id: provider.id,
    location_id: location.id,
    weekly: JSON.stringify(weekly),
    time_off: JSON.stringify(timeOff),
    created_at: at,
    updated_at: at,
  });
  return { ...row, timezone: location.timezone };
}
