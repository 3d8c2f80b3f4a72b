import type { Executor, LocationsTable } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import { findVisibleById, visibleById } from '../../db/find-visible.js';

/** Locations the actor may see: its tenant, and only its own locations when it is location-scoped. */
function visible(db: Executor, actor: AccessFilter) {
  let query = db.selectFrom('locations').selectAll().where('tenant_id', '=', actor.tenantId);
  if (actor.locationIds !== null) query = query.where('id', 'in', actor.locationIds.length ? actor.locationIds : ['']);
  return query;
}

const locationById = visibleById('locations', 'id');

export async function findLocation(db: Executor, actor: AccessFilter, id: string): Promise<LocationsTable | null> {
  // A location is its own location: a location-scoped caller sees the ones it is confined to.
  return findVisibleById<LocationsTable>(db, locationById, actor, id);
}

export async function listLocations(db: Executor, actor: AccessFilter, page: PageRequest): Promise<LocationsTable[]> {
  return pageQuery(visible(db, actor), page).execute();
}

/** Of `ids`, those that do not exist in the actor's view. */
export async function missingLocations(db: Executor, actor: AccessFilter, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const found = await visible(db, actor)
    .where('id', 'in', [...ids])
    .select('id')
    .execute();
  const known = new Set(found.map((r) => r.id));
  return ids.filter((id) => !known.has(id));
}

export async function insertLocation(db: Executor, row: LocationsTable): Promise<void> {
  await db.insertInto('locations').values(row).execute();
}

export async function updateLocation(db: Executor, tenantId: string, id: string, patch: Partial<LocationsTable>): Promise<void> {
  await db.updateTable('locations').set(patch).where('id', '=', id).where('tenant_id', '=', tenantId).execute();
}
