import type { AppointmentTypeOut } from './appointment-types.schema.js';
import type { AppointmentTypesTable } from './appointments.table.js';

export const presentAppointmentType = (row: AppointmentTypesTable): AppointmentTypeOut => ({
  code: row.code,
  name: row.name,
  durationMinutes: row.duration_minutes,
  bufferBeforeMinutes: row.buffer_before_minutes,
  bufferAfterMinutes: row.buffer_after_minutes,
  active: row.active === 1,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});
