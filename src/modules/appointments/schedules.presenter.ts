import { timeOffOf, type ScheduleRecord } from '../scheduling/index.js';
import type { ScheduleOut } from './schedules.schema.js';

export const presentSchedule = (row: ScheduleRecord): ScheduleOut => ({
  id: row.id,
  providerId: row.provider_id,
  locationId: row.location_id,
  timezone: row.timezone,
  weekly: (JSON.parse(row.weekly) as ScheduleOut['weekly']).map((w) => ({ weekday: w.weekday, start: w.start, end: w.end })),
  timeOff: timeOffOf(row).map((t) => ({ from: t.from, to: t.to, reason: t.reason })),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});
