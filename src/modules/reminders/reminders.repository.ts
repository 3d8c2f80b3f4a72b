import { sql } from 'kysely';
import { acrossTenants, scoped } from '../../db/access-policy.js';
import type { Executor, LocationsTable, PetParentsTable, PetsTable } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import type { ReminderLedgerTable } from '../notifications/index.js';
import { latestDoseRank } from '../pets/index.js';

export type ReminderKind = 'vaccination' | 'appointment';

export interface DueVaccination {
  id: string;
  tenant_id: string;
  pet_id: string;
  vaccine: string;
  vaccine_key: string;
  due_on: string;
}

export const vaccinationReminderKey = (v: Pick<DueVaccination, 'pet_id' | 'vaccine_key' | 'due_on'>): string => `${v.pet_id}|${v.vaccine_key}|${v.due_on}`;
export const appointmentReminderKey = (a: { id: string; starts_at: string }): string => `${a.id}|${a.starts_at}`;

/**
 * Each pet's latest record per vaccine (a newer dose supersedes the older one's due date, the
 * same rule as vaccinationStatus) whose due date falls in [from, to] and has not been reminded.
 */
export async function findDueVaccinations(db: Executor, from: string, to: string): Promise<DueVaccination[]> {
  const everyTenant = acrossTenants(db, 'the daily reminders job finds the vaccinations due in every tenant (each row keeps its tenant_id)');
  const latest = everyTenant
    .selectFrom('vaccinations')
    .select(['id', 'tenant_id', 'pet_id', 'vaccine', 'vaccine_key', 'due_on', latestDoseRank('tenant_id, pet_id, vaccine_key').as('rank')]);
  return everyTenant
    .selectFrom(latest.as('latest'))
    .select(['id', 'tenant_id', 'pet_id', 'vaccine', 'vaccine_key', 'due_on'])
    .where('rank', '=', 1)
    .where('due_on', '>=', from)
    .where('due_on', '<=', to)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('reminder_ledger as r')
            .select(sql`1`.as('one'))
            .whereRef('r.tenant_id', '=', 'latest.tenant_id')
            .where('r.kind', '=', 'vaccination')
            .where('r.reminder_key', '=', sql<string>`latest.pet_id || '|' || latest.vaccine_key || '|' || latest.due_on`),
        ),
      ),
    )
    .orderBy('due_on')
    .orderBy('id')
    .execute();
}

export interface UpcomingAppointment {
  id: string;
  tenant_id: string;
  location_id: string;
  pet_id: string;
  type: string;
  /** The type's display name from the tenant's catalogue, when it has one. */
  type_name: string | null;
  starts_at: string;
}

/** Confirmed appointments starting in (after, until] that have not been reminded at this start time. */
export async function findUpcomingAppointments(db: Executor, after: string, until: string): Promise<UpcomingAppointment[]> {
  return acrossTenants(db, 'the hourly reminders job finds the upcoming appointments of every tenant (each row keeps its tenant_id)')
    .selectFrom('appointments as a')
    .leftJoin('appointment_types as t', (join) => join.onRef('t.tenant_id', '=', 'a.tenant_id').onRef('t.code', '=', 'a.type'))
    .select(['a.id', 'a.tenant_id', 'a.location_id', 'a.pet_id', 'a.type', 't.name as type_name', 'a.starts_at'])
    .where('a.status', '=', 'confirmed')
    .where('a.starts_at', '>', after)
    .where('a.starts_at', '<=', until)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('reminder_ledger as r')
            .select(sql`1`.as('one'))
            .whereRef('r.tenant_id', '=', 'a.tenant_id')
            .where('r.kind', '=', 'appointment')
            .where('r.reminder_key', '=', sql<string>`a.id || '|' || a.starts_at`),
        ),
      ),
    )
    .orderBy('a.starts_at')
    .orderBy('a.id')
    .execute();
}

export interface ReminderAudience {
  pet: PetsTable;
  parent: PetParentsTable | null;
  location: LocationsTable | null;
}

/** The pet, its parent and a location (the pet's, unless the reminder names another). */
export async function findAudience(db: Executor, access: AccessFilter, petId: string, locationId?: string): Promise<ReminderAudience | null> {
  const tenant = scoped(db, access);
  const pet = await tenant.selectFrom('pets').selectAll().where('id', '=', petId).executeTakeFirst();
  if (!pet) return null;
  const parent = await tenant.selectFrom('pet_parents').selectAll().where('id', '=', pet.owner_id).executeTakeFirst();
  const location = await tenant
    .selectFrom('locations')
    .selectAll()
    .where('id', '=', locationId ?? pet.location_id)
    .executeTakeFirst();
  return { pet, parent: parent ?? null, location: location ?? null };
}

export async function isReminded(db: Executor, access: AccessFilter, kind: ReminderKind, key: string): Promise<boolean> {
  const row = await scoped(db, access).selectFrom('reminder_ledger').select('kind').where('kind', '=', kind).where('reminder_key', '=', key).executeTakeFirst();
  return row !== undefined;
}

export async function insertLedgerEntry(db: Executor, access: AccessFilter, row: ReminderLedgerTable): Promise<void> {
  await scoped(db, access).insert('reminder_ledger', row);
}
