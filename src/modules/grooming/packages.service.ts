import type { Executor } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import { isoAt } from '../../clock.js';
import type { AccessFilter } from '../../http/actor.js';
import { foundOr404, missingReference, validationFailed } from '../../http/errors.js';
import { findLocation } from '../locations/index.js';
import { isCurrency } from '../payments/index.js';
import type { PetSize } from '../pets/index.js';
import type { CreatePackageInput, UpdatePackageInput } from './grooming.schema.js';
import { findPackage, insertPackage, updatePackage } from './grooming.repository.js';
import type { GroomingPackagesTable } from './grooming.table.js';

/** Currency of a group-wide package when none is given (a location's package takes the location's). */
const groupCurrency = 'USD';

export const packageDuration = (pkg: GroomingPackagesTable, size: PetSize): number => pkg[`duration_${size}`];
export const packagePrice = (pkg: GroomingPackagesTable, size: PetSize): number => pkg[`price_${size}`];
export const packageServices = (pkg: Pick<GroomingPackagesTable, 'services'>): string[] => JSON.parse(pkg.services) as string[];

export async function getPackage(db: Executor, actor: AccessFilter, id: string): Promise<GroomingPackagesTable> {
  return foundOr404(await findPackage(db, actor, id), 'package', id);
}

export async function createPackage(db: Executor, actor: AccessFilter, input: CreatePackageInput, now: number): Promise<GroomingPackagesTable> {
  let currency = input.currency;
  if (input.locationId !== undefined) {
    const location = await findLocation(db, actor, input.locationId);
    if (!location) throw missingReference('locationId', 'location', input.locationId);
    currency ??= location.currency;
  } else if (actor.locationIds !== null) {
    throw validationFailed([
      { field: 'locationId', message: 'a location-scoped client names one of its locations; group-wide packages need a tenant-wide client' },
    ]);
  }
  currency ??= groupCurrency;
  if (!isCurrency(currency)) throw validationFailed([{ field: 'currency', message: `'${currency}' is not an ISO 4217 currency code` }]);
  const at = isoAt(now);
  const row: GroomingPackagesTable = {
    id: newId('pkg'),
    tenant_id: actor.tenantId,
    location_id: input.locationId ?? null,
    name: input.name.trim(),
    services: JSON.stringify(input.services),
    duration_small: input.durationMinutes.small,
    duration_medium: input.durationMinutes.medium,
    duration_large: input.durationMinutes.large,
    duration_xlarge: input.durationMinutes.xlarge,
    price_small: input.price.small,
    price_medium: input.price.medium,
    price_large: input.price.large,
    price_xlarge: input.price.xlarge,
    currency,
    sessions: input.sessions ?? 1,
    valid_days: input.validDays ?? null,
    active: 1,
    created_at: at,
    updated_at: at,
  };
  await insertPackage(db, actor, row);
  return row;
}

/** Renames, re-prices, re-times or (de)activates; booked grooms keep what they were booked with. */
export async function patchPackage(db: Executor, actor: AccessFilter, id: string, input: UpdatePackageInput, now: number): Promise<GroomingPackagesTable> {
  const existing = await getPackage(db, actor, id);
  const patch: Partial<GroomingPackagesTable> = { updated_at: isoAt(now) };
  if (input.name !== undefined) patch.name = input.name.trim();
  if (input.services !== undefined) patch.services = JSON.stringify(input.services);
  if (input.durationMinutes !== undefined) {
    patch.duration_small = input.durationMinutes.small;
    patch.duration_medium = input.durationMinutes.medium;
    patch.duration_large = input.durationMinutes.large;
    patch.duration_xlarge = input.durationMinutes.xlarge;
  }
  if (input.price !== undefined) {
    patch.price_small = input.price.small;
    patch.price_medium = input.price.medium;
    patch.price_large = input.price.large;
    patch.price_xlarge = input.price.xlarge;
  }
  if (input.sessions !== undefined) patch.sessions = input.sessions;
  if (input.validDays !== undefined) patch.valid_days = input.validDays;
  if (input.active !== undefined) patch.active = input.active ? 1 : 0;
  await updatePackage(db, actor, id, patch);
  return { ...existing, ...patch };
}
