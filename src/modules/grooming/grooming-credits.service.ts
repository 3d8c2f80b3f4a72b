import type { Executor } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import { type AccessFilter, wholeTenant } from '../../http/actor.js';
import { foundOr404, missingReference, validationFailed } from '../../http/errors.js';
import { dayMs, toIso } from '../scheduling/index.js';
import { assertTransition, type StateMachine } from '../bookings/index.js';
import { findLocation } from '../locations/index.js';
import { cancelSubscription, createInvoice, createSubscription } from '../payments/index.js';
import { findPetParent } from '../pet-parents/index.js';
import { findPet } from '../pets/index.js';
import { membershipStatus } from './grooming.presenter.js';
import {
  findMembership,
  findPackageCredit,
  insertMembership,
  insertPackageCredit,
  updateMembership,
  type MembershipRecord,
  type PackageCreditRecord,
} from './grooming.repository.js';
import type { CreateMembershipInput, CreatePackageCreditInput } from './grooming.schema.js';
import { checkPackageAt } from './grooming-appointments.service.js';
import { getPackage, packagePrice } from './packages.service.js';

const membershipMachine: StateMachine<'active' | 'cancelled'> = { active: ['cancelled'], cancelled: [] };

async function packageFor(db: Executor, actor: AccessFilter, id: string) {
  try {
    return await getPackage(db, actor, id);
  } catch {
    throw missingReference('packageId', 'package', id);
  }
}

/** Who buys what where, for a membership or a bundle: each named record the caller can see (else 400 on its field), the package offered there. */
async function purchase(db: Executor, actor: AccessFilter, input: { parentId: string; packageId: string; locationId: string }) {
  const parent = await findPetParent(db, actor, input.parentId);
  if (!parent) throw missingReference('parentId', 'pet parent', input.parentId);
  const pkg = await packageFor(db, actor, input.packageId);
  const location = await findLocation(db, actor, input.locationId);
  if (!location) throw missingReference('locationId', 'location', input.locationId);
  checkPackageAt(pkg, location.id);
  return { parent, pkg, location };
}

export async function getMembership(db: Executor, actor: AccessFilter, id: string): Promise<MembershipRecord> {
  return foundOr404(await findMembership(db, actor, id), 'membership', id);
}

/**
 * A membership is a §9 subscription (one billing engine) plus what it grants: each PAID period
 * invoice gives sessionsPerPeriod credits of the package (derived, see the repository), good at
 * every location of the group. The subscription bills the first period at once (and the wallet,
 * with collection wallet, pays it when it holds the whole amount).
 */
export async function createMembership(db: Executor, actor: AccessFilter, input: CreateMembershipInput, now: number): Promise<MembershipRecord> {
  const { parent, pkg, location } = await purchase(db, actor, input);
  if (input.petId !== undefined) {
    const pet = await findPet(db, actor, input.petId);
    if (!pet) throw missingReference('petId', 'pet', input.petId);
    if (pet.owner_id !== parent.id) throw validationFailed([{ field: 'petId', message: `pet ${pet.id} belongs to another pet parent` }]);
  }
  const subscription = await createSubscription(
    db,
    actor,
    {
      parentId: parent.id,
      locationId: location.id,
      description: `Grooming membership: ${pkg.name} (${input.sessionsPerPeriod} per ${input.interval})`,
      amount: input.price,
      currency: pkg.currency,
      interval: input.interval,
      collection: input.collection,
      ...(input.petId !== undefined ? { petId: input.petId } : {}),
    },
    now,
  );
  const at = toIso(now);
  const id = newId('mbr');
  await insertMembership(db, actor, {
    id,
    tenant_id: actor.tenantId,
    parent_id: parent.id,
    pet_id: input.petId ?? null,
    package_id: pkg.id,
    location_id: location.id,
    subscription_id: subscription.id,
    sessions_per_period: input.sessionsPerPeriod,
    status: 'active',
    created_at: at,
    updated_at: at,
    cancelled_at: null,
  });
  return getMembership(db, actor, id);
}

/** Cancels now: the subscription is canceled (subscription.canceled) and no credit is spent after; paid periods are not refunded here. */
export async function cancelMembership(db: Executor, actor: AccessFilter, id: string, now: number): Promise<MembershipRecord> {
  const membership = await getMembership(db, actor, id);
  assertTransition(membershipMachine, 'Membership', id, membershipStatus(membership), 'cancelled', 'be cancelled');
  if (membership.subscription_status !== 'canceled') await cancelSubscription(db, wholeTenant(actor), membership.subscription_id, false, now);
  const at = toIso(now);
  await updateMembership(db, actor, id, { status: 'cancelled', cancelled_at: at, updated_at: at });
  return getMembership(db, actor, id);
}

export async function getPackageCredit(db: Executor, actor: AccessFilter, id: string): Promise<PackageCreditRecord> {
  return foundOr404(await findPackageCredit(db, actor, id), 'package credit', id);
}

/**
 * Buys a prepaid bundle: a finalized invoice of sessions × the package price for the size (its
 * line's sourceId = the bundle id) and `sessions` credits at once, valid validDays (none: no expiry).
 */
export async function buyPackageCredits(db: Executor, actor: AccessFilter, input: CreatePackageCreditInput, now: number): Promise<PackageCreditRecord> {
  const { parent, pkg, location } = await purchase(db, actor, input);
  if (pkg.sessions < 2) throw validationFailed([{ field: 'packageId', message: `package ${pkg.id} is a single session, not a prepaid bundle (sessions > 1)` }]);
  const id = newId('pcr');
  const invoice = await createInvoice(
    db,
    actor,
    {
      parentId: parent.id,
      locationId: location.id,
      currency: pkg.currency,
      lines: [
        {
          description: `Grooming bundle: ${pkg.name} (${input.size}), ${pkg.sessions} sessions`,
          quantity: pkg.sessions,
          unitAmount: packagePrice(pkg, input.size),
          sourceId: id,
        },
      ],
      finalize: true,
    },
    now,
  );
  await insertPackageCredit(db, actor, {
    id,
    tenant_id: actor.tenantId,
    parent_id: parent.id,
    package_id: pkg.id,
    location_id: location.id,
    invoice_id: invoice.id,
    sessions: pkg.sessions,
    expires_at: pkg.valid_days === null ? null : toIso(now + pkg.valid_days * dayMs),
    created_at: toIso(now),
  });
  return getPackageCredit(db, actor, id);
}
