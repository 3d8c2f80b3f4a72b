import { sql } from 'kysely';
import { acrossTenants, scoped } from '../../db/access-policy.js';
import type { SecretBox } from '../../db/secret-box.js';
import type { Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { AppointmentsTable } from './appointments.table.js';

/** An appointment with its provider's name (both forms of the seed's object need it). */
export interface AppointmentRecord extends AppointmentsTable {
  provider_name: string;
}

/** Appointments the caller may see (the policy: tenant always, the appointment's location when the caller is location-scoped). */
function visible(db: Executor, actor: AccessFilter) {
  return scoped(db, actor)
    .selectFrom('appointments as a')
    .innerJoin('providers as p', 'p.id', 'a.provider_id')
    .selectAll('a')
    .select('p.name as provider_name');
}

export async function findAppointment(db: Executor, actor: AccessFilter, id: string): Promise<AppointmentRecord | null> {
  return (await visible(db, actor).where('a.id', '=', id).executeTakeFirst()) ?? null;
}

export interface AppointmentFilters {
  from?: string | undefined;
  to?: string | undefined;
  providerId?: string | undefined;
  petId?: string | undefined;
  locationId?: string | undefined;
  status?: string | undefined;
  externalId?: string | undefined;
}

export async function listAppointments(db: Executor, actor: AccessFilter, page: PageRequest, filters: AppointmentFilters): Promise<AppointmentRecord[]> {
  let query = visible(db, actor);
  if (filters.from !== undefined) query = query.where('a.starts_at', '>=', filters.from);
  if (filters.to !== undefined) query = query.where('a.starts_at', '<', filters.to);
  if (filters.providerId !== undefined) query = query.where('a.provider_id', '=', filters.providerId);
  if (filters.petId !== undefined) query = query.where('a.pet_id', '=', filters.petId);
  if (filters.locationId !== undefined) query = query.where('a.location_id', '=', filters.locationId);
  if (filters.status !== undefined) query = query.where('a.status', '=', filters.status);
  if (filters.externalId !== undefined) query = query.where('a.external_id', '=', filters.externalId);
  return pageQuery(query, page, 'a.id').execute();
}

export async function insertAppointment(db: Executor, access: AccessFilter, row: AppointmentsTable): Promise<void> {
  await scoped(db, access).insert('appointments', row);
}

export async function updateAppointment(db: Executor, access: AccessFilter, id: string, patch: Partial<AppointmentsTable>): Promise<void> {
  await scoped(db, access).updateTable('appointments').set(patch).where('id', '=', id).execute();
}

/** The calendar link's lookup: by id alone, no caller (the service compares the token, the link's credential). */
export async function findCalendarEntry(db: Executor, id: string) {
  return (
    (await acrossTenants(db, 'the calendar link is its own credential: found by id in any tenant, then its token is compared')
      .selectFrom('appointments as a')
      .innerJoin('providers as p', 'p.id', 'a.provider_id')
      .innerJoin('pets', 'pets.id', 'a.pet_id')
      .innerJoin('locations as l', 'l.id', 'a.location_id')
      .leftJoin('appointment_types as t', (join) => join.onRef('t.tenant_id', '=', 'a.tenant_id').onRef('t.code', '=', 'a.type'))
      .selectAll('a')
      .select(['p.name as provider_name', 'pets.name as pet_name', 'l.name as location_name', 'l.timezone', 't.name as type_name'])
      .where('a.id', '=', id)
      .executeTakeFirst()) ?? null
  );
}

/** Seals the calendar tokens an older release stored in clear; returns how many. */
export async function sealClearCalendarTokens(db: Executor, box: Pick<SecretBox, 'seal'>): Promise<number> {
  const rows = await acrossTenants(db, 'a housekeeping repair of the rows of every tenant')
    .selectFrom('appointments')
    .select(['id', 'tenant_id', 'calendar_token'])
    // Written literally: SQLite uses the partial index appointments_clear_token_idx only for a
    // condition that is its WHERE word for word, not a bound parameter (a scan of every appointment).
    .where(sql<boolean>`calendar_token not like 'sealed:%'`)
    .execute();
  for (const row of rows)
    await scoped(db, { tenantId: row.tenant_id, locationIds: null })
      .updateTable('appointments')
      .set({ calendar_token: box.seal(row.calendar_token) })
      .where('id', '=', row.id)
      .execute();
  return rows.length;
}
