import type { Executor, LocationsTable } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import type { Actor } from '../../http/actor.js';
import { AppError, foundOr404, validationFailed } from '../../http/errors.js';
import { findLocation, insertLocation, updateLocation } from './locations.repository.js';
import type { CreateLocationInput, UpdateLocationInput } from './locations.schema.js';
import { storedRequiredVaccines } from './boarding-vaccines.js';

/** The zone as ICU resolves it, or null when Node's ICU does not know the name. */
function resolveTimeZone(zone: string): string | null {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** An IANA zone name Node's ICU knows (Area/City or UTC; abbreviations such as EST are refused). */
export function isTimeZone(zone: string): boolean {
  return resolveTimeZone(zone) !== null && (zone.includes('/') || zone.toUpperCase() === 'UTC');
}

/**
 * The spelling to store. ICU matches names case-insensitively, so `europe/london` is fixed to
 * `Europe/London`; a legacy link (US/Eastern) is kept as given rather than swapped for its target.
 */
function canonicalTimeZone(zone: string): string {
  const resolved = resolveTimeZone(zone);
  return resolved !== null && resolved.toLowerCase() === zone.toLowerCase() ? resolved : zone;
}

/** The tenant's default invoicing currency for a location that names none (DESIGN §7). */
export const defaultLocationCurrency = 'USD';

const knownCurrencies = new Set<string>(Intl.supportedValuesOf('currency'));

/** An ISO 4217 code ICU knows, or a 400 on the currency field (XYZ matches the pattern but is no currency). */
function checkCurrency(code: string): string {
  if (!knownCurrencies.has(code)) throw validationFailed([{ field: 'currency', message: `'${code}' is not an ISO 4217 currency code` }]);
  return code;
}

/** The zone to store, or a 400 on the timezone field. */
function checkTimeZone(zone: string): string {
  if (!isTimeZone(zone)) {
    throw validationFailed([{ field: 'timezone', message: `'${zone}' is not an IANA time zone such as Europe/London` }]);
  }
  return canonicalTimeZone(zone);
}

export async function createLocation(db: Executor, actor: Actor, input: CreateLocationInput, now: number): Promise<LocationsTable> {
  if (actor.locationIds !== null) {
    throw new AppError('forbidden_role', 'A location-scoped client cannot create locations; use an unscoped admin client.');
  }
  const timezone = checkTimeZone(input.timezone);
  const currency = checkCurrency(input.currency ?? defaultLocationCurrency);
  const at = new Date(now).toISOString();
  const row: LocationsTable = {
    id: newId('loc'),
    tenant_id: actor.tenantId,
    name: input.name,
    timezone,
    currency,
    tax_rate_bps: input.taxRateBps ?? 0,
    boarding_required_vaccines: storedRequiredVaccines(input.boardingRequiredVaccines ?? {}),
    created_at: at,
    updated_at: at,
  };
  await insertLocation(db, actor, row);
  return row;
}

export async function getLocation(db: Executor, actor: Actor, id: string): Promise<LocationsTable> {
  return foundOr404(await findLocation(db, actor, id), 'location', id);
}

export async function patchLocation(db: Executor, actor: Actor, id: string, input: UpdateLocationInput, now: number): Promise<LocationsTable> {
  const existing = await getLocation(db, actor, id);
  const timezone = input.timezone === undefined ? undefined : checkTimeZone(input.timezone);
  const patch: Partial<LocationsTable> = { updated_at: new Date(now).toISOString() };
  if (input.name !== undefined) patch.name = input.name;
  if (timezone !== undefined) patch.timezone = timezone;
  // Existing invoices keep the currency and rates they were written with; only new ones change.
  if (input.currency !== undefined) patch.currency = checkCurrency(input.currency);
  if (input.taxRateBps !== undefined) patch.tax_rate_bps = input.taxRateBps;
  // Checked at each check-in from then on; pets already in house are not re-checked.
  if (input.boardingRequiredVaccines !== undefined) patch.boarding_required_vaccines = storedRequiredVaccines(input.boardingRequiredVaccines);
  await updateLocation(db, actor, id, patch);
  return { ...existing, ...patch };
}
