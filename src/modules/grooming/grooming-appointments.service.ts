import type { Config } from '../../config.js';
import type { Executor } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import { type Actor, type AccessFilter, wholeTenant } from '../../http/actor.js';
import { AppError, foundOr404, missingReference, validationFailed } from '../../http/errors.js';
import { dayMs, minuteMs, parseInstant, toIso } from '../scheduling/index.js';
import {
  assertTransition,
  emitBookingCancelled,
  emitBookingCreated,
  insertBooking,
  updateBooking,
  type BookingsTable,
  type StateMachine,
} from '../bookings/index.js';
import { findLocation } from '../locations/index.js';
import { createInvoice } from '../payments/index.js';
import { findPet, type PetSize } from '../pets/index.js';
import { findProvider } from '../providers/index.js';
import type { CreateGroomingAppointmentInput, GroomingStatus, PayWith, UpdateGroomingAppointmentInput } from './grooming.schema.js';
import {
  findGroomingAppointment,
  insertCreditUse,
  insertGroomingDetails,
  membershipById,
  spendableBundles,
  spendableMemberships,
  type GroomingRecord,
} from './grooming.repository.js';
import type { GroomingAppointmentsTable, GroomingPackagesTable } from './grooming.table.js';
import { membershipStatus } from './grooming.presenter.js';
import { getPackage, packageDuration, packagePrice } from './packages.service.js';
import { pickStylist, stylistProblem, type GroomSlot } from './stylists.service.js';

/** DESIGN §11: the moves of a groom; anything else is 409 invalid_state_transition with the current state. */
export const groomingMachine: StateMachine<GroomingStatus> = {
  confirmed: ['checked_in', 'cancelled', 'no_show'],
  checked_in: ['in_progress'],
  in_progress: ['completed'],
  completed: [],
  cancelled: [],
  no_show: [],
};

/** Grooms further ahead than this are refused (as appointments are). */
export const maxLeadDays = 730;

export type GroomingSettings = Pick<Config, 'bookingMinNoticeMinutes'>;

/** The whole tenant: billing and credits of a booking the caller already sees (the parent may be registered at another location). */

export async function getGroomingAppointment(db: Executor, actor: AccessFilter, id: string): Promise<GroomingRecord> {
  return foundOr404(await findGroomingAppointment(db, actor, id), 'grooming appointment', id);
}

/** A package bookable at a location: active, and of that location or group-wide. */
export function checkPackageAt(pkg: GroomingPackagesTable, locationId: string, field = 'packageId'): void {
  if (pkg.active !== 1) throw validationFailed([{ field, message: `package ${pkg.id} is inactive` }]);
  if (pkg.location_id !== null && pkg.location_id !== locationId)
    throw validationFailed([{ field, message: `package ${pkg.id} is offered at ${pkg.location_id} only` }]);
}

function checkStart(start: number, now: number, settings: GroomingSettings): void {
  if (start < now) throw validationFailed([{ field: 'startsAt', message: 'is in the past' }]);
  if (start > now + maxLeadDays * dayMs) throw validationFailed([{ field: 'startsAt', message: `is more than ${maxLeadDays} days ahead` }]);
  if (start < now + settings.bookingMinNoticeMinutes * minuteMs) {
    throw new AppError(
      'slot_unavailable',
      `Grooms need at least ${settings.bookingMinNoticeMinutes} minutes' notice; the first bookable start is ${toIso(now + settings.bookingMinNoticeMinutes * minuteMs)}.`,
    );
  }
}

/**
 * Books a groom in the route's write transaction: the stylist check (or the automatic pick) and the
 * insert see one calendar, so two parallel bookings of one stylist and slot cannot both win.
 * Emits booking.created (service grooming).
 */
export async function createGroomingAppointment(
  db: Executor,
  actor: Actor,
  input: CreateGroomingAppointmentInput,
  now: number,
  settings: GroomingSettings,
): Promise<GroomingRecord> {
  const start = parseInstant(input.startsAt);
  if (start === null) throw validationFailed([{ field: 'startsAt', message: 'is not a date-time with Z or an offset' }]);
  const pet = await findPet(db, actor, input.petId);
  if (!pet) throw missingReference('petId', 'pet', input.petId);
  const location = await findLocation(db, actor, input.locationId);
  if (!location) throw missingReference('locationId', 'location', input.locationId);
  const pkg = await findPackageOr400(db, actor, input.packageId);
  checkPackageAt(pkg, location.id);
  const size = (input.size ?? pet.size ?? null) as PetSize | null;
  if (size === null)
    throw validationFailed([{ field: 'size', message: `pet ${pet.id} has no size recorded; send size (small, medium, large, xlarge) or set the pet's size` }]);
  const payWith: PayWith = input.payWith ?? 'invoice';
  if (input.membershipId !== undefined) {
    if (payWith !== 'membership') throw validationFailed([{ field: 'membershipId', message: 'only with payWith membership' }]);
    const membership = await membershipById(db, actor, input.membershipId);
    if (!membership || membership.parent_id !== pet.owner_id) throw missingReference('membershipId', 'membership of the pet’s parent', input.membershipId);
    if (membership.package_id !== pkg.id)
      throw validationFailed([{ field: 'membershipId', message: `membership ${membership.id} is for package ${membership.package_id}` }]);
  }
  checkStart(start, now, settings);
  const duration = packageDuration(pkg, size);
  const slot: GroomSlot = { location, pkg, start, end: start + duration * minuteMs };

  let stylistId: string;
  if (input.stylistId !== undefined) {
    const stylist = await findProvider(db, actor, input.stylistId);
    if (!stylist) throw missingReference('stylistId', 'stylist', input.stylistId);
    const problem = await stylistProblem(db, actor, stylist, slot);
    if (problem?.kind === 'input') throw validationFailed([{ field: 'stylistId', message: problem.detail }]);
    if (problem) throw new AppError('slot_unavailable', `${problem.detail}; see GET /v1/grooming/availability.`);
    stylistId = stylist.id;
  } else {
    const picked = await pickStylist(db, actor, pet.id, slot);
    if (!picked)
      throw new AppError(
        'no_stylist_available',
        `No stylist at ${location.name} offering package ${pkg.id} is free at ${toIso(slot.start)}–${toIso(slot.end)}; see GET /v1/grooming/availability.`,
      );
    stylistId = picked.id;
  }

  const at = toIso(now);
  const booking: BookingsTable = {
    id: newId('bkg'),
    tenant_id: actor.tenantId,
    kind: 'grooming',
    status: 'confirmed',
    pet_id: pet.id,
    parent_id: pet.owner_id,
    location_id: location.id,
    provider_id: stylistId,
    starts_at: toIso(slot.start),
    ends_at: toIso(slot.end),
    amount: packagePrice(pkg, size),
    currency: pkg.currency,
    invoice_id: null,
    created_at: at,
    updated_at: at,
  };
  const details: GroomingAppointmentsTable = {
    booking_id: booking.id,
    tenant_id: actor.tenantId,
    package_id: pkg.id,
    size,
    duration_minutes: duration,
    pay_with: payWith,
    membership_id: input.membershipId ?? null,
    notes: input.notes ?? null,
  };
  await insertBooking(db, actor, booking);
  await insertGroomingDetails(db, actor, details);
  await emitBookingCreated(db, booking, 'grooming', now);
  return { ...booking, ...details };
}

async function findPackageOr400(db: Executor, actor: AccessFilter, id: string): Promise<GroomingPackagesTable> {
  try {
    return await getPackage(db, actor, id);
  } catch {
    throw missingReference('packageId', 'package', id);
  }
}

/**
 * A state move (PATCH {status}). Cancelled and no_show emit booking.cancelled; completed bills, and
 * only from the groom's start on (a groom is done once it has happened: completing one days ahead
 * billed a service not given). Marketplace bookings differ on purpose (§12: the provider's word).
 */
export async function moveGroomingAppointment(
  db: Executor,
  actor: Actor,
  id: string,
  input: UpdateGroomingAppointmentInput,
  now: number,
): Promise<GroomingRecord> {
  const existing = await getGroomingAppointment(db, actor, id);
  const current = existing.status as GroomingStatus;
  assertTransition(groomingMachine, 'Grooming appointment', id, current, input.status);
  const at = toIso(now);
  if (input.status === 'completed' && now < Date.parse(existing.starts_at)) {
    throw new AppError(
      'invalid_state_transition',
      `Grooming appointment ${id} starts at ${existing.starts_at}: it can be completed from then on (now ${at}); it stays ${current}.`,
      {
        extensions: { currentStatus: current, startsAt: existing.starts_at },
      },
    );
  }
  const updated: GroomingRecord = { ...existing, status: input.status, updated_at: at };
  if (input.status === 'completed') {
    const paid = await bill(db, actor, existing, now);
    updated.invoice_id = paid.invoiceId;
    updated.membership_id = paid.membershipId ?? existing.membership_id;
  }
  await updateBooking(db, actor, id, { status: input.status, invoice_id: updated.invoice_id }, at);
  if (input.status === 'cancelled' || input.status === 'no_show') {
    await emitBookingCancelled(db, updated, 'grooming', input.status, input.reason ?? null, now);
  }
  return updated;
}

/**
 * Completion bills the groom its way: a finalized invoice (one line, sourceId = the booking id),
 * one membership credit, or one prepaid bundle credit. Credits are counted and spent inside the
 * write transaction (and grooming_credit_uses holds one row per booking), so one credit is never
 * spent twice; none left → 422 and the transaction, status move included, rolls back.
 */
async function bill(db: Executor, actor: Actor, booking: GroomingRecord, now: number): Promise<{ invoiceId: string | null; membershipId: string | null }> {
  const access = wholeTenant(actor);
  const pkg = await getPackage(db, access, booking.package_id);
  const at = toIso(now);
  if (booking.pay_with === 'invoice') {
    const pet = await findPet(db, access, booking.pet_id);
    const invoice = await createInvoice(
      db,
      access,
      {
        parentId: booking.parent_id,
        locationId: booking.location_id,
        ...(pet?.owner_id === booking.parent_id ? { petId: booking.pet_id } : {}),
        currency: booking.currency,
        lines: [{ description: `Grooming: ${pkg.name} (${booking.size})`, quantity: 1, unitAmount: booking.amount, sourceId: booking.id }],
        finalize: true,
      },
      now,
    );
    return { invoiceId: invoice.id, membershipId: null };
  }
  if (booking.pay_with === 'membership') {
    const candidates = booking.membership_id
      ? [await membershipById(db, access, booking.membership_id)].filter((m) => m !== null && membershipStatus(m) === 'active')
      : await spendableMemberships(db, access, booking.parent_id, booking.package_id, booking.pet_id);
    const membership = candidates.find((m) => m !== null && Number(m.credits_remaining) > 0);
    if (!membership) {
      throw new AppError(
        'no_membership_credit',
        `Parent ${booking.parent_id} has no active membership of package ${booking.package_id} with a credit left${booking.membership_id ? ` (membership ${booking.membership_id})` : ''}; the groom stays ${booking.status}.`,
      );
    }
    await insertCreditUse(db, access, {
      booking_id: booking.id,
      tenant_id: actor.tenantId,
      membership_id: membership.id,
      package_credit_id: null,
      created_at: at,
    });
    return { invoiceId: null, membershipId: membership.id };
  }
  const [bundle] = await spendableBundles(db, access, booking.parent_id, booking.package_id, at);
  if (!bundle)
    throw new AppError(
      'no_package_credit',
      `Parent ${booking.parent_id} has no unexpired prepaid credit of package ${booking.package_id}; the groom stays ${booking.status}.`,
    );
  await insertCreditUse(db, access, { booking_id: booking.id, tenant_id: actor.tenantId, membership_id: null, package_credit_id: bundle.id, created_at: at });
  return { invoiceId: null, membershipId: null };
}

/** POST /v1/grooming/stylists/assign: a named stylist is checked (409 stylist_unavailable), else the rule picks one (409 no_stylist_available). */
export async function assignStylist(
  db: Executor,
  actor: Actor,
  input: { bookingId: string; stylistId?: string | undefined },
  now: number,
): Promise<GroomingRecord> {
  const booking = await getGroomingAppointment(db, actor, input.bookingId);
  if (booking.status !== 'confirmed' && booking.status !== 'checked_in') {
    throw new AppError(
      'invalid_state_transition',
      `Grooming appointment ${booking.id} is ${booking.status}: only a confirmed or checked-in groom takes another stylist.`,
      {
        extensions: { currentStatus: booking.status },
      },
    );
  }
  const location = await findLocation(db, actor, booking.location_id);
  if (!location) throw missingReference('bookingId', 'booking', booking.id);
  const pkg = await getPackage(db, wholeTenant(actor), booking.package_id);
  const slot: GroomSlot = { location, pkg, start: Date.parse(booking.starts_at), end: Date.parse(booking.ends_at), exceptId: booking.id };
  let stylistId: string;
  if (input.stylistId !== undefined) {
    const stylist = await findProvider(db, actor, input.stylistId);
    if (!stylist) throw missingReference('stylistId', 'stylist', input.stylistId);
    const problem = await stylistProblem(db, actor, stylist, slot);
    if (problem) throw new AppError('stylist_unavailable', `Stylist ${stylist.id} cannot take ${booking.id}: ${problem.detail}.`);
    stylistId = stylist.id;
  } else {
    const picked = await pickStylist(db, actor, booking.pet_id, slot);
    if (!picked)
      throw new AppError(
        'no_stylist_available',
        `No stylist at ${location.name} offering package ${pkg.id} is free at ${booking.starts_at}–${booking.ends_at}.`,
      );
    stylistId = picked.id;
  }
  if (stylistId === booking.provider_id) return booking;
  const at = toIso(now);
  await updateBooking(db, actor, booking.id, { provider_id: stylistId }, at);
  return { ...booking, provider_id: stylistId, updated_at: at };
}
