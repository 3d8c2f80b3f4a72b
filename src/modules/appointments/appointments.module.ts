import type { ModuleManifest } from '../../module-manifest.js';
import type { AppointmentsTables } from './appointments.table.js';
import { appointmentTypeRoutes } from './appointment-types.routes.js';
import { appointmentHousekeeping } from './appointments.jobs.js';
import { appointmentRoutes, type AppointmentDeps } from './appointments.routes.js';
import { scheduleRoutes } from './schedules.routes.js';
import { appointmentsEvents } from './appointments.events.js';

// The module's tables join the `Database` type here, so src/db imports no module.
declare module '../../db/database.js' {
  interface Database extends AppointmentsTables {}
}

/** Appointment types, provider schedules, availability, bookings, calendar links and provider matching. */
export const appointmentsModule: ModuleManifest<AppointmentDeps & Parameters<typeof appointmentHousekeeping>[0]> = {
  name: 'appointments',
  events: appointmentsEvents,
  sdk: {
    appointmentTypes: {
      create: 'createAppointmentType',
      list: 'listAppointmentTypes',
      get: 'getAppointmentType',
      update: 'updateAppointmentType',
    },
    appointments: {
      create: 'createAppointment',
      list: 'listAppointments',
      get: 'getAppointment',
      update: 'updateAppointment',
      availability: 'getAvailability',
      schedules: {
        list: 'listSchedules',
        put: 'putSchedule',
      },
    },
  },
  // Schedules first: GET /v1/appointments/schedules must win over GET /v1/appointments/:id.
  routes: (deps) => [...appointmentTypeRoutes(deps), ...scheduleRoutes(deps), ...appointmentRoutes(deps)],
  housekeeping: (deps) => appointmentHousekeeping(deps),
  tags: {
    'Appointment types': 'The catalogue of bookable services with durations and buffers (vaccination, vet_consultation, …).',
    Schedules: "Providers' weekly working hours and time off per location, in the location's time zone.",
    Appointments: 'Bookings with a provider (apt_ ids): availability, booking without double-booking, state changes, calendar links.',
  },
  tables: ['appointments', 'appointment_types', 'provider_schedules', 'scheduling_versions'],
  access: {
    appointments: { location: 'location_id' },
    appointment_types: { location: null, why: "appointment types are the group's catalogue" },
    provider_schedules: { location: 'location_id' },
    scheduling_versions: { system: 'counters of writes that invalidate cached availability' },
  },
  reset: { rows: ['appointments', 'provider_schedules', 'appointment_types'] },
};
