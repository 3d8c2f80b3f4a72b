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
export { appointmentsModule } from './appointments.module.js';
export { calendarTokenPrefix } from './appointments.service.js';
export { appointmentStatuses } from './appointments.schema.js';
