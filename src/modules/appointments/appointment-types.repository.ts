import { acrossTenants, scoped } from '../../db/access-policy.js';
import type { Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import type { AppointmentTypesTable } from './appointments.table.js';

/**
 * The catalogue every tenant starts with (durations and buffers in minutes; admins can change
 * them with PATCH /v1/appointment-types/:code). Buffers keep the provider free for preparation
 * before and cleaning or notes after the visit.
 */
export const defaultAppointmentTypes = [
  { code: 'vaccination', name: 'Vaccination', duration_minutes: 15, buffer_before_minutes: 0, buffer_after_minutes: 5 },
  { code: 'vet_consultation', name: 'Vet consultation', duration_minutes: 30, buffer_before_minutes: 0, buffer_after_minutes: 10 },
  { code: 'checkup', name: 'Check-up', duration_minutes: 30, buffer_before_minutes: 0, buffer_after_minutes: 5 },
  { code: 'dental', name: 'Dental cleaning', duration_minutes: 60, buffer_before_minutes: 15, buffer_after_minutes: 15 },
  { code: 'surgery', name: 'Surgery', duration_minutes: 120, buffer_before_minutes: 30, buffer_after_minutes: 30 },
  { code: 'grooming', name: 'Grooming', duration_minutes: 60, buffer_before_minutes: 0, buffer_after_minutes: 15 },
] as const;

/** Inserts the default types a tenant lacks; existing rows (possibly edited) are left alone. */
export async function seedDefaultAppointmentTypes(db: Executor, tenantId: string, now: number): Promise<void> {
  const at = new Date(now).toISOString();
  // ON CONFLICT DO NOTHING (two processes may seed at once), which scoped().insert does not take; every row is this tenant's.
  await acrossTenants(db, "hand-written: the tenant's own rows, tenant_id in each; an insert that skips the types it has")
    .insertInto('appointment_types')
    .values(defaultAppointmentTypes.map((t) => ({ ...t, tenant_id: tenantId, active: 1, created_at: at, updated_at: at })))
    .onConflict((oc) => oc.columns(['tenant_id', 'code']).doNothing())
    .execute();
}

export async function listAppointmentTypes(db: Executor, access: AccessFilter, includeInactive: boolean): Promise<AppointmentTypesTable[]> {
  let query = scoped(db, access).selectFrom('appointment_types').selectAll();
  if (!includeInactive) query = query.where('active', '=', 1);
  return query.orderBy('code').execute();
}

export async function findAppointmentType(db: Executor, access: AccessFilter, code: string): Promise<AppointmentTypesTable | null> {
  return (await scoped(db, access).selectFrom('appointment_types').selectAll().where('code', '=', code).executeTakeFirst()) ?? null;
}

export async function insertAppointmentType(db: Executor, access: AccessFilter, row: AppointmentTypesTable): Promise<void> {
  await scoped(db, access).insert('appointment_types', row);
}

export async function updateAppointmentType(db: Executor, access: AccessFilter, code: string, patch: Partial<AppointmentTypesTable>): Promise<void> {
  await scoped(db, access).updateTable('appointment_types').set(patch).where('code', '=', code).execute();
}
