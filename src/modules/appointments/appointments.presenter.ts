import type { AppointmentRecord } from './appointments.repository.js';
import type { AppointmentOut, AppointmentStatus } from './appointments.schema.js';

/** The calendar link of an appointment: `<base>/v1/calendar/<id>.ics?token=<ct_live_…|ct_test_…>`. */
export const calendarUrl = (base: string, row: Pick<AppointmentRecord, 'id' | 'calendar_token'>): string =>
  `${base}/v1/calendar/${row.id}.ics?token=${row.calendar_token}`;

/** The seed's object in both of its forms at once: providerId and provider {id, name}, createdAt and calendarUrl. */
export const presentAppointment = (row: AppointmentRecord, base: string): AppointmentOut => ({
  id: row.id,
  status: row.status as AppointmentStatus,
  petId: row.pet_id,
  providerId: row.provider_id,
  provider: { id: row.provider_id, name: row.provider_name },
  type: row.type,
  startsAt: row.starts_at,
  endsAt: row.ends_at,
  locationId: row.location_id,
  notes: row.notes,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  calendarUrl: calendarUrl(base, row),
});
