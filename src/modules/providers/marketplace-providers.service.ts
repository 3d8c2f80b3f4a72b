import { isoAt } from '../../clock.js';
import type { Executor } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import { wholeTenant, type AccessFilter, type Actor } from '../../http/actor.js';
import { AppError, foundOr404, notFound, validationFailed } from '../../http/errors.js';
import { assertTransition, type StateMachine } from '../bookings/index.js';
import { emit } from '../events/index.js';
import { findLocation } from '../locations/index.js';
import { isCurrency } from '../payments/index.js';
import { schedulesOf } from '../scheduling/index.js';
import {
  countActiveListings,
  findListing,
  findProfile,
  insertListings,
  insertProfile,
  listingsOf,
  profilesOf,
  updateListing,
  updateProfile,
} from './listings.repository.js';
import { allLocationsOf, findProvider, updateProvider, type ProviderRecord } from './providers.repository.js';
import type { CreateProviderInput, ListingInput, ProviderStatus, UpdateListingInput } from './providers.schema.js';
import type { ListingCategory, MarketplaceListingsTable, ProvidersTable } from './providers.table.js';

/**
 * Marketplace providers move pending → approved ⇄ suspended (`/approve` is also the way back from
 * suspended). Staff providers (active | inactive) have no marketplace moves.
 */
const lifecycle: StateMachine<ProviderStatus> = {
  pending: ['approved'],
  approved: ['suspended'],
  suspended: ['approved'],
  active: [],
  inactive: [],
};

export const isMarketplaceStatus = (status: string): boolean => status === 'pending' || status === 'approved' || status === 'suspended';

/** True when the provider takes new bookings: approved (marketplace) or active (staff). */
export const isBookable = (status: string): boolean => status === 'approved' || status === 'active';

/** Writing marketplace data needs the `marketplace` scope on top of the route's own. */
export function requireMarketplaceScope(actor: Actor, what: string): void {
  if (!actor.scopes.has('marketplace')) throw new AppError('insufficient_scope', `${what} needs the marketplace scope.`);
}

/** Attaches profile and listings to the marketplace providers among `rows` (two queries for a whole page). */
export async function withMarketplace(db: Executor, actor: AccessFilter, rows: ProviderRecord[], activeListingsOnly = false): Promise<ProviderRecord[]> {
  const profiles = await profilesOf(
    db,
    actor,
    rows.filter((r) => isMarketplaceStatus(r.status)).map((r) => r.id),
  );
  if (profiles.size === 0) return rows;
  const listings = await listingsOf(db, actor, [...profiles.keys()], activeListingsOnly);
  return rows.map((row) => {
    const profile = profiles.get(row.id);
    return profile ? { ...row, marketplace: { profile, listings: listings.get(row.id) ?? [] } } : row;
  });
}

/** The currency of a provider's first location (listings priced without one). */
async function defaultCurrency(db: Executor, actor: AccessFilter, providerId: string, locationIds?: readonly string[]): Promise<string> {
  const first = [...(locationIds ?? (await allLocationsOf(db, wholeTenant(actor), providerId)))].sort()[0];
  const location = first === undefined ? null : await findLocation(db, wholeTenant(actor), first);
  return location?.currency ?? 'USD';
}

/** A new listing row; `field` is where the listing sits in the request body ('' for the whole body), for the currency error. */
function listingRow(actor: AccessFilter, providerId: string, input: ListingInput, currency: string, now: number, field: string): MarketplaceListingsTable {
  const chosen = input.currency ?? currency;
  if (!isCurrency(chosen))
    throw validationFailed([{ field: field ? `${field}.currency` : 'currency', message: `'${chosen}' is not an ISO 4217 currency code` }]);
  const at = isoAt(now);
  return {
    id: newId('lst'),
    tenant_id: actor.tenantId,
    provider_id: providerId,
    name: input.name.trim(),
    category: input.category as ListingCategory,
    amount: input.amount,
    currency: chosen,
    duration_minutes: input.durationMinutes,
    status: 'active',
    created_at: at,
    updated_at: at,
  };
}

/** The marketplace part of `POST /v1/providers`: profile and listings of a new, pending provider. */
export async function onboardMarketplace(
  db: Executor,
  actor: Actor,
  provider: ProvidersTable,
  locationIds: readonly string[],
  input: NonNullable<CreateProviderInput['marketplace']>,
  now: number,
): Promise<NonNullable<ProviderRecord['marketplace']>> {
  const at = isoAt(now);
  const profile = {
    provider_id: provider.id,
    tenant_id: actor.tenantId,
    bio: input.bio ?? null,
    service_area: input.serviceArea ?? null,
    commission_bps: input.commissionBps ?? null,
    approved_at: null,
    suspended_at: null,
    created_at: at,
    updated_at: at,
  };
  await insertProfile(db, actor, profile);
  const currency = await defaultCurrency(db, actor, provider.id, locationIds);
  const listings = input.listings.map((l, i) => listingRow(actor, provider.id, l, currency, now, `marketplace.listings[${i}]`));
  await insertListings(db, actor, listings);
  return { profile, listings };
}

async function marketplaceProvider(db: Executor, actor: Actor, id: string): Promise<ProviderRecord> {
  const provider = foundOr404(await findProvider(db, actor, id), 'provider', id);
  return (await withMarketplace(db, actor, [provider]))[0]!;
}

/**
 * Approves a pending or suspended marketplace provider (admin). Refuses 422 `onboarding_incomplete`
 * without an active listing or a weekly schedule (§5) at one of its locations. Emits `provider.approved`.
 */
export async function approveProvider(db: Executor, actor: Actor, id: string, now: number): Promise<ProviderRecord> {
  const provider = await marketplaceProvider(db, actor, id);
  assertTransition(lifecycle, 'Provider', id, provider.status as ProviderStatus, 'approved', 'be approved');
  const missing: string[] = [];
  if ((await countActiveListings(db, actor, id)) === 0) missing.push('an active listing');
  const schedules = await schedulesOf(db, wholeTenant(actor), id);
  if (!schedules.some((s) => s.weekly !== '[]')) missing.push('a weekly schedule at one of its locations (PUT /v1/appointments/schedules/{providerId})');
  if (missing.length > 0) {
    throw new AppError('onboarding_incomplete', `Provider ${id} cannot be approved yet: it needs ${missing.join(' and ')}.`, { extensions: { missing } });
  }
  const at = isoAt(now);
  await updateProvider(db, wholeTenant(actor), id, { status: 'approved', updated_at: at });
  await updateProfile(db, actor, id, { approved_at: at, suspended_at: null, updated_at: at });
  await emit(db, 'provider.approved', { providerId: id, name: provider.name, approvedAt: at }, actor.tenantId, now);
  return marketplaceProvider(db, actor, id);
}

/** Suspends an approved marketplace provider: it leaves the directory and availability; its bookings stay. */
export async function suspendProvider(db: Executor, actor: Actor, id: string, now: number): Promise<ProviderRecord> {
  const provider = await marketplaceProvider(db, actor, id);
  assertTransition(lifecycle, 'Provider', id, provider.status as ProviderStatus, 'suspended', 'be suspended');
  const at = isoAt(now);
  await updateProvider(db, wholeTenant(actor), id, { status: 'suspended', updated_at: at });
  await updateProfile(db, actor, id, { suspended_at: at, updated_at: at });
  return marketplaceProvider(db, actor, id);
}

/** The marketplace fields of a PATCH (bio, serviceArea, commissionBps): marketplace providers only. */
export async function patchMarketplaceProfile(
  db: Executor,
  actor: Actor,
  provider: ProviderRecord,
  input: { bio?: string | null | undefined; serviceArea?: string | null | undefined; commissionBps?: number | null | undefined },
  now: number,
): Promise<void> {
  const fields = (['bio', 'serviceArea', 'commissionBps'] as const).filter((f) => input[f] !== undefined);
  if (fields.length === 0) return;
  if (!isMarketplaceStatus(provider.status)) {
    throw validationFailed(fields.map((field) => ({ field, message: 'only marketplace providers have this field' })));
  }
  requireMarketplaceScope(actor, 'Changing the marketplace profile');
  const patch: Parameters<typeof updateProfile>[3] = { updated_at: isoAt(now) };
  if (input.bio !== undefined) patch.bio = input.bio;
  if (input.serviceArea !== undefined) patch.service_area = input.serviceArea;
  if (input.commissionBps !== undefined) patch.commission_bps = input.commissionBps;
  await updateProfile(db, actor, provider.id, patch);
}

export async function addListing(db: Executor, actor: Actor, providerId: string, input: ListingInput, now: number): Promise<MarketplaceListingsTable> {
  const provider = foundOr404(await findProvider(db, actor, providerId), 'provider', providerId);
  if (!(await findProfile(db, actor, providerId))) {
    throw new AppError('conflict', `Provider ${providerId} is a clinic staff provider; only marketplace providers have listings.`);
  }
  const row = listingRow(actor, provider.id, input, await defaultCurrency(db, actor, provider.id), now, '');
  await insertListings(db, actor, [row]);
  return row;
}

export async function changeListing(
  db: Executor,
  actor: Actor,
  providerId: string,
  listingId: string,
  input: UpdateListingInput,
  now: number,
): Promise<MarketplaceListingsTable> {
  foundOr404(await findProvider(db, actor, providerId), 'provider', providerId);
  const listing = foundOr404(await findListing(db, actor, providerId, listingId), 'listing', listingId);
  const patch: Partial<MarketplaceListingsTable> = { updated_at: isoAt(now) };
  if (input.name !== undefined) patch.name = input.name.trim();
  if (input.category !== undefined) patch.category = input.category as ListingCategory;
  if (input.amount !== undefined) patch.amount = input.amount;
  if (input.durationMinutes !== undefined) patch.duration_minutes = input.durationMinutes;
  if (input.status !== undefined) patch.status = input.status;
  await updateListing(db, actor, listingId, patch);
  return { ...listing, ...patch };
}

/** What an order line needs of a provider and one of its listings (DESIGN §12). */
export interface BookableListing {
  provider: {
    id: string;
    name: string;
    kind: string;
    status: string;
    /** Per-provider override in basis points; null = the tenant default. */
    commissionBps: number | null;
    /** Locations the provider works at that the caller can see. */
    locationIds: string[];
  };
  listing: { id: string; name: string; category: ListingCategory; amount: number; currency: string; durationMinutes: number };
}

/**
 * The 404 of findBookableListing: `missing` says which of the pair was not found, so a caller can
 * name the field of its own body (orders: lines[i].providerId or lines[i].listingId) without
 * reading the message.
 */
export class BookableNotFound extends AppError {
  readonly missing: 'provider' | 'listing';

  constructor(missing: 'provider' | 'listing', id: string) {
    super('not_found', notFound(missing, id).message);
    this.missing = missing;
  }
}

/**
 * A provider and listing an order may book: 404 (BookableNotFound) for a provider or listing unknown or out of the
 * caller's sight (a listing of another provider included); 422 `provider_not_bookable` when the
 * provider is not approved (marketplace) or not active (staff), or the listing is deactivated.
 */
export async function findBookableListing(db: Executor, actor: AccessFilter, providerId: string, listingId: string): Promise<BookableListing> {
  const provider = await findProvider(db, actor, providerId);
  if (!provider) throw new BookableNotFound('provider', providerId);
  const listing = await findListing(db, actor, providerId, listingId);
  if (!listing) throw new BookableNotFound('listing', listingId);
  if (!isBookable(provider.status)) {
    throw new AppError('provider_not_bookable', `Provider ${providerId} is ${provider.status} and takes no new bookings.`, {
      extensions: { currentStatus: provider.status },
    });
  }
  if (listing.status !== 'active') throw new AppError('provider_not_bookable', `Listing ${listingId} is deactivated and takes no new bookings.`);
  const profile = await findProfile(db, actor, providerId);
  return {
    provider: {
      id: provider.id,
      name: provider.name,
      kind: provider.kind,
      status: provider.status,
      commissionBps: profile?.commission_bps ?? null,
      locationIds: provider.locationIds,
    },
    listing: {
      id: listing.id,
      name: listing.name,
      category: listing.category,
      amount: listing.amount,
      currency: listing.currency,
      durationMinutes: listing.duration_minutes,
    },
  };
}
