/** Tables of the appointments module: appointment types, schedules and appointments. */

/** Other modules (reminders, analytics) rely on these columns; add more, never rename them. */
export interface AppointmentsTable {
  id: string;
  tenant_id: string;
  location_id: string;
  pet_id: string;
  provider_id: string;
  /** Lower-case appointment type code, e.g. vet_consultation. */
  type: string;
  /** confirmed | checked_in | in_progress | completed | cancelled | no_show */
  status: string;
  /** ISO 8601 UTC. */
  starts_at: string;
  /** starts_at + the type's duration, ISO 8601 UTC. */
  ends_at: string;
  notes: string | null;
  created_at: string;
  updated_at: string;
  /** starts_at minus the type's buffer before, when booked: the provider is busy from here (ISO UTC). */
  blocked_from: string;
  /** ends_at plus the type's buffer after, when booked (ISO UTC). */
  blocked_until: string;
  /** Secret of the calendar link (`ct_live_…` / `ct_test_…`): the link works without a bearer token. */
  calendar_token: string;
  /** ICS SEQUENCE: bumped on every change a calendar shows (time, provider, status). */
  sequence: number;
  /** The source system's id of an imported row (imports module), null otherwise; unique per tenant. */
  external_id?: string | null;
}

/** The tenant's catalogue of appointment types (durations and buffers in minutes). */
export interface AppointmentTypesTable {
  tenant_id: string;
  /** Lower-case code, e.g. vet_consultation. */
  code: string;
  name: string;
  duration_minutes: number;
  buffer_before_minutes: number;
  buffer_after_minutes: number;
  /** 0 hides the type from new bookings; existing appointments keep it. */
  active: number;
  created_at: string;
  updated_at: string;
}

/** A provider's working hours at one location, in the location's time zone. */
export interface ProviderSchedulesTable {
  id: string;
  tenant_id: string;
  provider_id: string;
  location_id: string;
  /** JSON [{weekday 1–7, start "HH:MM", end "HH:MM"}]. */
  weekly: string;
  /** JSON [{from, to (ISO UTC), reason}]. */
  time_off: string;
  created_at: string;
  updated_at: string;
}

/** Change counters kept by triggers (`appointments`: bumped by every insert, update or delete of an appointment). */
export interface SchedulingVersionsTable {
  name: string;
  version: number;
}

export interface AppointmentsTables {
  appointments: AppointmentsTable;
  scheduling_versions: SchedulingVersionsTable;
  appointment_types: AppointmentTypesTable;
  provider_schedules: ProviderSchedulesTable;
}
