import type { AnyRoute } from '../../http/route.js';
import { appointmentTypeRoutes } from './appointment-types.routes.js';
import { appointmentRoutes as bookingRoutes, type AppointmentDeps } from './appointments.routes.js';
import { scheduleRoutes } from './schedules.routes.js';

/** Appointment types, provider schedules, availability, bookings, calendar links and provider matching. */
export function appointmentRoutes(deps: AppointmentDeps): AnyRoute[] {
  // Schedules first: GET /v1/appointments/schedules must win over GET /v1/appointments/:id.
  return [...appointmentTypeRoutes(deps), ...scheduleRoutes(deps), ...bookingRoutes(deps)];
}

export { seedDefaultAppointmentTypes, defaultAppointmentTypes } from './appointment-types.repository.js';
export { findAppointment, type AppointmentRecord } from './appointments.repository.js';
export { appointmentHousekeeping } from './appointments.jobs.js';

// The one slot engine and busy time every module that books a provider's time goes through (grooming, DESIGN §11).
export { covers, freeSlots, mergeIntervals, overlapsAny, workingIntervals, type Interval } from './appointment-slots.js';
export { busyIntervals, maxProviderBookingMinutes } from './appointments.repository.js';
export { cachedBusyIntervals } from './busy-cache.js';
export { maxWindowDays, readWindow, searchSlots, type SlotShape, type Window } from './availability.service.js';
export { dayMs, minuteMs, parseInstant, toIso, zoneClock, type ZoneClock } from './local-time.js';
export { bookableSchedulesAt, findSchedule, schedulesAt, type BookableSchedule, type ScheduleRecord } from './schedules.repository.js';
export { timeOffIntervals, weeklyOf } from './schedules.service.js';
export { appointmentsModule } from './appointments.module.js';
