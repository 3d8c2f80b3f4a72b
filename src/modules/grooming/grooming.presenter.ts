import type { Static } from '@sinclair/typebox';
import type { PetSize } from '../pets/index.js';
import type { GroomingRecord, MembershipRecord, PackageCreditRecord } from './grooming.repository.js';
import type { GroomingAppointmentSchema, GroomingStatus, MembershipSchema, PackageCreditSchema, PackageOut, PayWith } from './grooming.schema.js';
import type { GroomingPackagesTable } from './grooming.table.js';

const sizes = (pkg: GroomingPackagesTable, column: 'duration' | 'price') => ({
  small: pkg[`${column}_small`],
  medium: pkg[`${column}_medium`],
  large: pkg[`${column}_large`],
  xlarge: pkg[`${column}_xlarge`],
});

export const presentPackage = (pkg: GroomingPackagesTable): PackageOut => ({
  id: pkg.id,
  name: pkg.name,
  locationId: pkg.location_id,
  services: JSON.parse(pkg.services) as string[],
  durationMinutes: sizes(pkg, 'duration'),
  price: sizes(pkg, 'price'),
  currency: pkg.currency,
  sessions: pkg.sessions,
  validDays: pkg.valid_days,
  active: pkg.active === 1,
  createdAt: pkg.created_at,
  updatedAt: pkg.updated_at,
});

export const presentGroomingAppointment = (row: GroomingRecord): Static<typeof GroomingAppointmentSchema> => ({
  id: row.id,
  kind: 'grooming',
  status: row.status as GroomingStatus,
  petId: row.pet_id,
  parentId: row.parent_id,
  packageId: row.package_id,
  stylistId: row.provider_id ?? '',
  locationId: row.location_id,
  startsAt: row.starts_at,
  endsAt: row.ends_at,
  size: row.size as PetSize,
  durationMinutes: row.duration_minutes,
  amount: row.amount,
  currency: row.currency,
  payWith: row.pay_with as PayWith,
  membershipId: row.membership_id,
  invoiceId: row.invoice_id,
  notes: row.notes,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** A membership whose subscription was canceled (here or through /v1/subscriptions) is cancelled. */
export const membershipStatus = (row: MembershipRecord): 'active' | 'cancelled' =>
  row.status === 'cancelled' || row.subscription_status === 'canceled' ? 'cancelled' : 'active';

export const presentMembership = (row: MembershipRecord): Static<typeof MembershipSchema> => ({
  id: row.id,
  status: membershipStatus(row),
  parentId: row.parent_id,
  petId: row.pet_id,
  packageId: row.package_id,
  locationId: row.location_id,
  subscriptionId: row.subscription_id,
  sessionsPerPeriod: row.sessions_per_period,
  creditsRemaining: Math.max(0, Number(row.credits_remaining)),
  currentPeriodEnd: row.current_period_end,
  createdAt: row.created_at,
});

export const presentPackageCredit = (row: PackageCreditRecord): Static<typeof PackageCreditSchema> => ({
  id: row.id,
  parentId: row.parent_id,
  packageId: row.package_id,
  locationId: row.location_id,
  invoiceId: row.invoice_id,
  sessions: row.sessions,
  creditsRemaining: Math.max(0, Number(row.credits_remaining)),
  expiresAt: row.expires_at,
  createdAt: row.created_at,
});
