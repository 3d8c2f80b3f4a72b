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
}

export interface AppointmentsTables {
  appointments: AppointmentsTable;
}
