import type { Executor } from '../../db/database.js';
import type { AccessFilter, Actor } from '../../http/actor.js';
import { AppError, conflict, foundOr404, validationFailed } from '../../http/errors.js';
import { findAppointmentType, insertAppointmentType, updateAppointmentType } from './appointment-types.repository.js';
import type { CreateAppointmentTypeInput, UpdateAppointmentTypeInput } from './appointment-types.schema.js';
import type { AppointmentTypesTable } from './appointments.table.js';

/** The catalogue is tenant-wide configuration: a location-scoped admin may not change it for everyone. */
function checkTenantWide(actor: Actor): void {
  if (actor.locationIds !== null) {
    throw new AppError('forbidden_role', 'Appointment types are shared by every location; use an unscoped admin client.');
  }
}

/** An active type of the tenant by its code in any letter case, or 400 on `field`. */
export async function bookableType(db: Executor, access: AccessFilter, code: string, field = 'type'): Promise<AppointmentTypesTable> {
  const row = await findAppointmentType(db, access, code.toLowerCase());
  if (!row || row.active !== 1) throw validationFailed([{ field, message: `unknown appointment type '${code}'; see GET /v1/appointment-types` }]);
  return row;
}

export async function createAppointmentType(db: Executor, actor: Actor, input: CreateAppointmentTypeInput, now: number): Promise<AppointmentTypesTable> {
  checkTenantWide(actor);
  const code = input.code.toLowerCase();
  if (await findAppointmentType(db, actor, code)) throw conflict(`An appointment type with code '${code}' exists already; PATCH it instead.`);
  const at = new Date(now).toISOString();
  const row: AppointmentTypesTable = {
    tenant_id: actor.tenantId,
    code,
    name: input.name,
    duration_minutes: input.durationMinutes,
    buffer_before_minutes: input.bufferBeforeMinutes ?? 0,
    buffer_after_minutes: input.bufferAfterMinutes ?? 0,
    active: 1,
    created_at: at,
    updated_at: at,
  };
  await insertAppointmentType(db, actor, row);
  return row;
}

/** Changes apply to new bookings; booked appointments keep the times and buffers they were booked with. */
export async function patchAppointmentType(
  db: Executor,
  actor: Actor,
  code: string,
  input: UpdateAppointmentTypeInput,
  now: number,
): Promise<AppointmentTypesTable> {
  checkTenantWide(actor);
  const existing = foundOr404(await findAppointmentType(db, actor, code.toLowerCase()), 'appointment type', code);
  const patch: Partial<AppointmentTypesTable> = { updated_at: new Date(now).toISOString() };
  if (input.name !== undefined) patch.name = input.name;
  if (input.durationMinutes !== undefined) patch.duration_minutes = input.durationMinutes;
  if (input.bufferBeforeMinutes !== undefined) patch.buffer_before_minutes = input.bufferBeforeMinutes;
  if (input.bufferAfterMinutes !== undefined) patch.buffer_after_minutes = input.bufferAfterMinutes;
  if (input.active !== undefined) patch.active = input.active ? 1 : 0;
  await updateAppointmentType(db, actor, existing.code, patch);
  return { ...existing, ...patch };
}
