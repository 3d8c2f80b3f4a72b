/**
 * The scheduling kernel: local time in a location's zone, providers' working hours, busy time and
 * the slot engine. Appointments, providers, grooming and the marketplace book a provider's time
 * through it; it imports none of them (DESIGN §11).
 */
export { maxBufferMinutes, maxDurationMinutes, unknownAppointmentTypes } from './appointment-types.js';
export { appointmentsVersion, cachedBusyIntervals } from './busy-cache.js';
export { busyIntervals, holdingStatuses, maxProviderBookingMinutes } from './busy-intervals.js';
export { dayMs, formatClock, isoMsAt, minuteMs, parseClock, parseInstant, toIso, zoneClock, type ZoneClock } from './local-time.js';
export {
  bookableSchedulesAt,
  findSchedule,
  listSchedules,
  schedulesAt,
  schedulesOf,
  upsertSchedule,
  type BookableSchedule,
  type ScheduleRecord,
} from './schedules.repository.js';
export { covers, freeSlots, mergeIntervals, overlapsAny, workingIntervals, type Interval, type SlotQuery, type WeeklyWindow } from './slot-engine.js';
export { maxWindowDays, readWindow, searchSlots, type SlotSearch, type SlotShape, type Window } from './slot-search.js';
export { timeOffIntervals, timeOffOf, weeklyOf, type StoredTimeOff, type StoredWindow } from './working-hours.js';
