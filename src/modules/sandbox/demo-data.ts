import { scoped, type ScopedTable } from '../../db/access-policy.js';
import type { Executor } from '../../db/database.js';
import { resetSteps, type ModuleManifest } from '../../module-manifest.js';
import { seedDefaultAppointmentTypes } from '../appointments/index.js';
import { dayMs, utcDate } from '../../calendar-dates.js';

/**
 * Demo data of the sandbox. Ids are fixed so a sandbox client scoped to a demo location keeps
 * working across resets, and so docs and tutorials can name them.
 */
export const demoLocations = [
  { id: 'loc_demo_downtown', name: 'Downtown Veterinary Clinic', timezone: 'America/New_York', currency: 'USD', tax_rate_bps: 825 },
  { id: 'loc_demo_riverside', name: 'Riverside Grooming & Boarding', timezone: 'Europe/London', currency: 'GBP', tax_rate_bps: 2000 },
] as const;

export const demoParents = [
  { id: 'usr_demo_alex', name: 'Alex Morgan', email: 'alex@example.com', phone: '+1 555 0100', location_id: 'loc_demo_downtown', reminder_consent: 1 },
  { id: 'usr_demo_sam', name: 'Sam Patel', email: 'sam@example.com', phone: '+1 555 0101', location_id: 'loc_demo_downtown', reminder_consent: 0 },
  { id: 'usr_demo_jo', name: 'Jo Williams', email: 'jo@example.org', phone: '+44 20 7946 0000', location_id: 'loc_demo_riverside', reminder_consent: 1 },
] as const;

export const demoPets = [
  {
    id: 'pet_demo_bella',
    name: 'Bella',
    breed: 'Labrador Retriever',
    species: 'dog',
    owner_id: 'usr_demo_alex',
    location_id: 'loc_demo_downtown',
    birth_date: '2020-03-14',
    last_visit: '2026-10-02',
  },
  {
    id: 'pet_demo_milo',
    name: 'Milo',
    breed: 'Maine Coon',
    species: 'cat',
    owner_id: 'usr_demo_alex',
    location_id: 'loc_demo_downtown',
    birth_date: '2019-07-01',
    last_visit: null,
  },
  {
    id: 'pet_demo_luna',
    name: 'Luna',
    breed: 'Border Collie',
    species: 'dog',
    owner_id: 'usr_demo_sam',
    location_id: 'loc_demo_downtown',
    birth_date: '2022-01-20',
    last_visit: '2026-09-15',
  },
  {
    id: 'pet_demo_oscar',
    name: 'Oscar',
    breed: 'Holland Lop',
    species: 'rabbit',
    owner_id: 'usr_demo_jo',
    location_id: 'loc_demo_riverside',
    birth_date: null,
    last_visit: null,
  },
  {
    id: 'pet_demo_daisy',
    name: 'Daisy',
    breed: 'Cavalier King Charles Spaniel',
    species: 'dog',
    owner_id: 'usr_demo_jo',
    location_id: 'loc_demo_riverside',
    birth_date: '2018-11-05',
    last_visit: '2026-11-01',
  },
] as const;

/** Providers with working hours (in each location's zone), so availability shows slots at once. */
export const demoProviders = [
  { id: 'prv_demo_chen', name: 'Dr. Maya Chen', kind: 'vet', services: [], location_ids: ['loc_demo_downtown'] },
  {
    id: 'prv_demo_okafor',
    name: 'Dr. Samuel Okafor',
    kind: 'vet',
    services: ['checkup', 'vaccination', 'vet_consultation'],
    location_ids: ['loc_demo_downtown', 'loc_demo_riverside'],
  },
  { id: 'prv_demo_rosa', name: 'Rosa Lindqvist', kind: 'groomer', services: ['grooming'], location_ids: ['loc_demo_riverside'] },
] as const;

const weekdays = (days: readonly number[], start: string, end: string) => days.map((weekday) => ({ weekday, start, end }));

export const demoSchedules = [
  {
    id: 'sch_demo_chen_downtown',
    provider_id: 'prv_demo_chen',
    location_id: 'loc_demo_downtown',
    weekly: [...weekdays([1, 2, 3, 4, 5], '09:00', '12:30'), ...weekdays([1, 2, 3, 4, 5], '13:30', '17:00')],
  },
  { id: 'sch_demo_okafor_downtown', provider_id: 'prv_demo_okafor', location_id: 'loc_demo_downtown', weekly: weekdays([1, 3, 5], '10:00', '18:00') },
  {
    id: 'sch_demo_okafor_riverside',
    provider_id: 'prv_demo_okafor',
    location_id: 'loc_demo_riverside',
    weekly: [...weekdays([2, 4], '09:00', '17:00'), ...weekdays([6], '09:00', '13:00')],
  },
  { id: 'sch_demo_rosa_riverside', provider_id: 'prv_demo_rosa', location_id: 'loc_demo_riverside', weekly: weekdays([2, 3, 4, 5, 6], '08:30', '16:30') },
] as const;

/**
 * Vaccinations relative to the day of seeding, so the demo shows every vaccinationStatus:
 * Bella is due soon, Milo up to date, Luna overdue, Oscar has no records, Daisy is up to date.
 */
export function demoVaccinations(now: number) {
  const rows = [
    {
      id: 'vac_demo_bella_rabies',
      pet_id: 'pet_demo_bella',
      location_id: 'loc_demo_downtown',
      vaccine: 'Rabies',
      given: -345,
      due: 20,
      provider_id: 'prv_demo_chen',
    },
    {
      id: 'vac_demo_bella_dhpp',
      pet_id: 'pet_demo_bella',
      location_id: 'loc_demo_downtown',
      vaccine: 'DHPP',
      given: -100,
      due: 265,
      provider_id: 'prv_demo_chen',
    },
    {
      id: 'vac_demo_milo_fvrcp',
      pet_id: 'pet_demo_milo',
      location_id: 'loc_demo_downtown',
      vaccine: 'FVRCP',
      given: -60,
      due: 305,
      provider_id: 'prv_demo_okafor',
    },
    { id: 'vac_demo_luna_dhpp', pet_id: 'pet_demo_luna', location_id: 'loc_demo_downtown', vaccine: 'DHPP', given: -375, due: -10, provider_id: null },
    {
      id: 'vac_demo_daisy_rabies',
      pet_id: 'pet_demo_daisy',
      location_id: 'loc_demo_riverside',
      vaccine: 'Rabies',
      given: -30,
      due: 700,
      provider_id: 'prv_demo_okafor',
    },
  ];
  return rows.map(({ given, due, ...row }) => ({
    ...row,
    vaccine_key: row.vaccine.toLowerCase(),
    administered_on: utcDate(now + given * dayMs),
    due_on: utcDate(now + due * dayMs),
    lot_number: `DEMO-${row.vaccine.toUpperCase()}-1`,
    recorded_by_client_id: 'demo-data',
    recorded_by_role: 'admin',
  }));
}

/** Seeds the demo rows of one sandbox tenant (its whole tenant: the rows sit at both demo locations). */
export async function insertDemoData(db: Executor, tenantId: string, now: number): Promise<void> {
  const at = new Date(now).toISOString();
  const tenant = scoped(db, { tenantId, locationIds: null });
  await tenant.insert(
    'locations',
    demoLocations.map((l) => ({ ...l, tenant_id: tenantId, created_at: at, updated_at: at })),
  );
  await tenant.insert(
    'pet_parents',
    demoParents.map((p) => ({ ...p, tenant_id: tenantId, created_at: at, updated_at: at })),
  );
  await tenant.insert(
    'pets',
    demoPets.map((p) => ({ ...p, tenant_id: tenantId, created_at: at, updated_at: at })),
  );
  await seedDefaultAppointmentTypes(db, tenantId, now);
  await tenant.insert(
    'providers',
    demoProviders.map(({ location_ids: _, services, ...p }) => ({
      ...p,
      tenant_id: tenantId,
      status: 'active',
      services: JSON.stringify(services),
      rating: null,
      rating_count: 0,
      created_at: at,
      updated_at: at,
    })),
  );
  await tenant.insert(
    'provider_locations',
    demoProviders.flatMap((p) => p.location_ids.map((location_id) => ({ provider_id: p.id, location_id, tenant_id: tenantId }))),
  );
  await tenant.insert(
    'provider_schedules',
    demoSchedules.map(({ weekly, ...s }) => ({ ...s, tenant_id: tenantId, weekly: JSON.stringify(weekly), time_off: '[]', created_at: at, updated_at: at })),
  );
  await tenant.insert(
    'vaccinations',
    demoVaccinations(now).map((v) => ({ ...v, tenant_id: tenantId, created_at: at })),
  );
}

/**
 * Erases the tenant's rows of every module (the manifests' `reset`, see `ModuleReset`): each
 * module's own erasure, latest module first, then the plain rows. Clients, tenants, webhook
 * endpoints and the audit trail stay (the manifests' `keeps`).
 */
export async function clearSandboxData(db: Executor, tenantId: string, modules: readonly ModuleManifest[]): Promise<void> {
  const tenant = scoped(db, { tenantId, locationIds: null });
  for (const step of resetSteps(modules)) {
    if (step.kind === 'erase') await step.run(db, tenantId);
    else for (const table of step.tables) await tenant.deleteFrom(table as ScopedTable).execute();
  }
}
