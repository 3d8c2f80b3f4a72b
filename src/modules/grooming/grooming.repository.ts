import { sql } from 'kysely';
import { scoped } from '../../db/access-policy.js';
import type { Executor } from '../../db/database.js';
import { type AccessFilter, wholeTenant } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { BookingsTable } from '../bookings/index.js';
import type {
  GroomingAppointmentsTable,
  GroomingCreditUsesTable,
  GroomingMembershipsTable,
  GroomingPackageCreditsTable,
  GroomingPackagesTable,
} from './grooming.table.js';

// ---------------------------------------------------------------- packages

/** Tenant always; a location-scoped caller sees its locations' packages and the group-wide ones (the manifest's policy). */
function visiblePackages(db: Executor, actor: AccessFilter) {
  return scoped(db, actor).selectFrom('grooming_packages').selectAll();
}

export async function findPackage(db: Executor, actor: AccessFilter, id: string): Promise<GroomingPackagesTable | null> {
  return (await visiblePackages(db, actor).where('id', '=', id).executeTakeFirst()) ?? null;
}

export async function listPackages(
  db: Executor,
  actor: AccessFilter,
  page: PageRequest,
  filters: { locationId?: string | undefined; active?: boolean | undefined },
) {
  let query = visiblePackages(db, actor);
  if (filters.locationId !== undefined) {
    const locationId = filters.locationId;
    query = query.where((eb) => eb.or([eb('location_id', 'is', null), eb('location_id', '=', locationId)]));
  }
  if (filters.active !== undefined) query = query.where('active', '=', filters.active ? 1 : 0);
  return pageQuery(query, page).execute();
}

export async function insertPackage(db: Executor, access: AccessFilter, row: GroomingPackagesTable): Promise<void> {
  await scoped(db, access).insert('grooming_packages', row);
}

export async function updatePackage(db: Executor, access: AccessFilter, id: string, patch: Partial<GroomingPackagesTable>): Promise<void> {
  await scoped(db, access).updateTable('grooming_packages').set(patch).where('id', '=', id).execute();
}

// ---------------------------------------------------------------- appointments

/** A grooming booking: the shared facts and the grooming details. */
export type GroomingRecord = BookingsTable & Omit<GroomingAppointmentsTable, 'booking_id' | 'tenant_id'>;

/** Through the booking's visibility (tenant, and its location when the caller is location-scoped). */
function visibleAppointments(db: Executor, actor: AccessFilter) {
  return (
    scoped(db, actor)
      .selectFrom('bookings as b')
      .innerJoin('grooming_appointments as g', 'g.booking_id', 'b.id')
      .selectAll('b')
      .select(['g.package_id', 'g.size', 'g.duration_minutes', 'g.pay_with', 'g.notes'])
      // The membership named on create, else (once completed) the one whose credit paid it.
      .select(sql<string | null>`coalesce(g.membership_id, (select u.membership_id from grooming_credit_uses u where u.booking_id = b.id))`.as('membership_id'))
      .where('b.kind', '=', 'grooming')
  );
}

export async function findGroomingAppointment(db: Executor, actor: AccessFilter, id: string): Promise<GroomingRecord | null> {
  return (await visibleAppointments(db, actor).where('b.id', '=', id).executeTakeFirst()) ?? null;
}

export interface GroomingFilters {
  locationId?: string | undefined;
  stylistId?: string | undefined;
  petId?: string | undefined;
  status?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

export async function listGroomingAppointments(db: Executor, actor: AccessFilter, page: PageRequest, filters: GroomingFilters): Promise<GroomingRecord[]> {
  let query = visibleAppointments(db, actor);
  if (filters.locationId !== undefined) query = query.where('b.location_id', '=', filters.locationId);
  if (filters.stylistId !== undefined) query = query.where('b.provider_id', '=', filters.stylistId);
  if (filters.petId !== undefined) query = query.where('b.pet_id', '=', filters.petId);
  if (filters.status !== undefined) query = query.where('b.status', '=', filters.status);
  if (filters.from !== undefined) query = query.where('b.starts_at', '>=', filters.from);
  if (filters.to !== undefined) query = query.where('b.starts_at', '<', filters.to);
  return pageQuery(query, page, 'b.id').execute();
}

export async function insertGroomingDetails(db: Executor, access: AccessFilter, row: GroomingAppointmentsTable): Promise<void> {
  await scoped(db, access).insert('grooming_appointments', row);
}

/** The stylist of the pet's latest groom that still held its time (the assignment rule's first choice), at any location of the group. */
export async function lastStylistOf(db: Executor, access: AccessFilter, petId: string, exceptId: string): Promise<string | null> {
  const row = await scoped(db, wholeTenant(access))
    .selectFrom('bookings')
    .select('provider_id')
    .where('pet_id', '=', petId)
    .where('kind', '=', 'grooming')
    .where('id', '!=', exceptId)
    .where('provider_id', 'is not', null)
    .where('status', 'not in', ['cancelled', 'no_show'])
    .orderBy('starts_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.provider_id ?? null;
}

/** Grooming bookings per stylist in [from, to) that hold time, at any location of the group (the least-booked rule). */
export async function groomsPerStylist(
  db: Executor,
  access: AccessFilter,
  stylistIds: readonly string[],
  from: string,
  to: string,
): Promise<Map<string, number>> {
  const out = new Map<string, number>(stylistIds.map((id) => [id, 0]));
  if (stylistIds.length === 0) return out;
  const rows = await scoped(db, wholeTenant(access))
    .selectFrom('bookings')
    .select(['provider_id', (eb) => eb.fn.countAll<number>().as('count')])
    .where('provider_id', 'in', [...stylistIds])
    .where('starts_at', '>=', from)
    .where('starts_at', '<', to)
    .where('kind', '=', 'grooming')
    .where('status', 'not in', ['cancelled', 'no_show'])
    .groupBy('provider_id')
    .execute();
  for (const row of rows) if (row.provider_id !== null) out.set(row.provider_id, Number(row.count));
  return out;
}

// ---------------------------------------------------------------- memberships

/** A membership with what the API shows of it: its subscription's period end and its credits left. */
export interface MembershipRecord extends GroomingMembershipsTable {
  current_period_end: string | null;
  subscription_status: string;
  credits_remaining: number;
}

/**
 * Credits are derived, never stored: sessionsPerPeriod × the subscription's PAID period invoices
 * − the credits spent. A period paid by the billing job, a wallet or a front-desk payment grants
 * its credits the moment its invoice is paid, and a spend reads this inside its write transaction.
 */
function membershipsWithCredits(db: Executor, access: AccessFilter) {
  return scoped(db, access)
    .selectFrom('grooming_memberships as m')
    .innerJoin('subscriptions as s', 's.id', 'm.subscription_id')
    .selectAll('m')
    .select([
      sql<string | null>`nullif(s.current_period_end, '')`.as('current_period_end'),
      's.status as subscription_status',
      sql<number>`m.sessions_per_period * (select count(*) from subscription_invoices si join invoices i on i.id = si.invoice_id where si.subscription_id = m.subscription_id and i.status = 'paid')
        - (select count(*) from grooming_credit_uses u where u.membership_id = m.id)`.as('credits_remaining'),
    ]);
}

/** Memberships are the parent's, good at every location: a location-scoped caller sees those billed at its locations. */
function visibleMemberships(db: Executor, actor: AccessFilter) {
  return membershipsWithCredits(db, actor);
}

export async function findMembership(db: Executor, actor: AccessFilter, id: string): Promise<MembershipRecord | null> {
  return (await visibleMemberships(db, actor).where('m.id', '=', id).executeTakeFirst()) ?? null;
}

export async function listMemberships(
  db: Executor,
  actor: AccessFilter,
  page: PageRequest,
  filters: { parentId?: string | undefined; packageId?: string | undefined; status?: string | undefined },
) {
  let query = visibleMemberships(db, actor);
  if (filters.parentId !== undefined) query = query.where('m.parent_id', '=', filters.parentId);
  if (filters.packageId !== undefined) query = query.where('m.package_id', '=', filters.packageId);
  if (filters.status !== undefined) query = query.where('m.status', '=', filters.status);
  return pageQuery(query, page, 'm.id').execute();
}

/** The parent's active memberships of a package that the pet may use, oldest first, with their credits (any location of the group). */
export async function spendableMemberships(
  db: Executor,
  access: AccessFilter,
  parentId: string,
  packageId: string,
  petId: string,
): Promise<MembershipRecord[]> {
  return membershipsWithCredits(db, wholeTenant(access))
    .where('m.parent_id', '=', parentId)
    .where('m.package_id', '=', packageId)
    .where('m.status', '=', 'active')
    .where('s.status', '!=', 'canceled')
    .where((eb) => eb.or([eb('m.pet_id', 'is', null), eb('m.pet_id', '=', petId)]))
    .orderBy('m.id')
    .execute();
}

/** One membership by id within the tenant (a named membership at completion, whichever location bills it). */
export async function membershipById(db: Executor, access: AccessFilter, id: string): Promise<MembershipRecord | null> {
  return (await membershipsWithCredits(db, wholeTenant(access)).where('m.id', '=', id).executeTakeFirst()) ?? null;
}

export async function insertMembership(db: Executor, access: AccessFilter, row: GroomingMembershipsTable): Promise<void> {
  await scoped(db, access).insert('grooming_memberships', row);
}

export async function updateMembership(db: Executor, access: AccessFilter, id: string, patch: Partial<GroomingMembershipsTable>): Promise<void> {
  await scoped(db, access).updateTable('grooming_memberships').set(patch).where('id', '=', id).execute();
}

// ---------------------------------------------------------------- prepaid bundles

export interface PackageCreditRecord extends GroomingPackageCreditsTable {
  credits_remaining: number;
}

function bundlesWithCredits(db: Executor, access: AccessFilter) {
  return scoped(db, access)
    .selectFrom('grooming_package_credits as c')
    .selectAll('c')
    .select(sql<number>`c.sessions - (select count(*) from grooming_credit_uses u where u.package_credit_id = c.id)`.as('credits_remaining'));
}

export async function findPackageCredit(db: Executor, actor: AccessFilter, id: string): Promise<PackageCreditRecord | null> {
  return (await bundlesWithCredits(db, actor).where('c.id', '=', id).executeTakeFirst()) ?? null;
}

export async function listPackageCredits(
  db: Executor,
  actor: AccessFilter,
  page: PageRequest,
  filters: { parentId?: string | undefined; packageId?: string | undefined },
) {
  let query = bundlesWithCredits(db, actor);
  if (filters.parentId !== undefined) query = query.where('c.parent_id', '=', filters.parentId);
  if (filters.packageId !== undefined) query = query.where('c.package_id', '=', filters.packageId);
  return pageQuery(query, page, 'c.id').execute();
}

/** The parent's unexpired bundles of a package with credits left (any location of the group), the one expiring first first (then the oldest). */
export async function spendableBundles(db: Executor, access: AccessFilter, parentId: string, packageId: string, at: string): Promise<PackageCreditRecord[]> {
  const rows = await bundlesWithCredits(db, wholeTenant(access))
    .where('c.parent_id', '=', parentId)
    .where('c.package_id', '=', packageId)
    .where((eb) => eb.or([eb('c.expires_at', 'is', null), eb('c.expires_at', '>', at)]))
    .orderBy(sql`coalesce(c.expires_at, '9999')`)
    .orderBy('c.id')
    .execute();
  return rows.filter((r) => r.credits_remaining > 0);
}

export async function insertPackageCredit(db: Executor, access: AccessFilter, row: GroomingPackageCreditsTable): Promise<void> {
  await scoped(db, access).insert('grooming_package_credits', row);
}

export async function insertCreditUse(db: Executor, access: AccessFilter, row: GroomingCreditUsesTable): Promise<void> {
  await scoped(db, access).insert('grooming_credit_uses', row);
}

// ---------------------------------------------------------------- sandbox reset

/** Every grooming row of a tenant (the bookings facts go after, by the caller). */
export async function deleteGroomingRows(db: Executor, tenantId: string): Promise<void> {
  const tenant = scoped(db, { tenantId, locationIds: null });
  for (const table of ['grooming_credit_uses', 'grooming_appointments', 'grooming_package_credits', 'grooming_memberships', 'grooming_packages'] as const) {
    await tenant.deleteFrom(table).execute();
  }
}
