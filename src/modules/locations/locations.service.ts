import type { Executor, LocationsTable } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import type { Actor } from '../../http/actor.js';
import { AppError, notFound, validationFailed } from '../../http/errors.js';
import { findLocation, insertLocation, updateLocation } from './locations.repository.js';
import type { CreateLocationInput, UpdateLocationInput } from './locations.schema.js';

/** An IANA zone name Node's ICU knows (its canonical spelling is kept as given). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone.includes('/') || zone === 'UTC';
  } catch {
    return false;
  }
}

function checkTimeZone(zone: string | undefined): void {
  if (zone !== undefined && !isTimeZone(zone)) {
    throw validationFailed([{ field: 'timezone', message: `'${zone}' is not an IANA time zone such as Europe/London` }]);
  }
}

export async function createLocation(db: Executor, actor: Actor, input: CreateLocationInput, now: number): Promise<LocationsTable> {
  if (actor.locationIds !== null) {
    throw new AppError('forbidden_role', 'A location-scoped client cannot create locations; use an unscoped admin client.');
  }
  checkTimeZone(input.timezone);
  const at = new Date(now).toISOString();
  const row: LocationsTable = { id: newId('loc', now), tenant_id: actor.tenantId, name: input.name, timezone: input.timezone, created_at: at, updated_at: at };
  await insertLocation(db, row);
  return row;
}

export async function getLocation(db: Executor, actor: Actor, id: string): Promise<LocationsTable> {
  const row = await findLocation(db, actor, id);
  if (!row) throw notFound('location', id);
  return row;
}

export async function patchLocation(db: Executor, actor: Actor, id: string, input: UpdateLocationInput, now: number): Promise<LocationsTable> {
  const existing = await getLocation(db, actor, id);
  checkTimeZone(input.timezone);
  const patch: Partial<LocationsTable> = { updated_at: new Date(now).toISOString() };
  if (input.name !== undefined) patch.name = input.name;
  if (input.timezone !== undefined) patch.timezone = input.timezone;
  await updateLocation(db, actor.tenantId, id, patch);
  return { ...existing, ...patch };
}
