import { scoped } from '../../db/access-policy.js';
import type { Executor, LocationsTable } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import { findVisibleById, visibleById } from '../../db/find-visible.js';

const locationById = visibleById('locations', 'id');

export async function findLocation(db: Executor, actor: AccessFilter, id: string): Promise<LocationsTable | null> {
  // A location is its own location: a location-scoped caller sees the ones it is confined to.
  return findVisibleById<LocationsTable>(db, locationById, actor, id);
}

export async function listLocations(db: Executor, actor: AccessFilter, page: PageRequest): Promise<LocationsTable[]> {
  return pageQuery(scoped(db, actor).selectFrom('locations').selectAll(), page).execute();
}

/** Of `ids`, those that do not exist in the actor's view. */
export async function missingLocations(db: Executor, actor: AccessFilter, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const found = await scoped(db, actor)
    .selectFrom('locations')
    .where('id', 'in', [...ids])
    .select('id')
    .execute();
  const known = new Set(found.map((r) => r.id));
  return ids.filter((id) => !known.has(id));
}

export async function insertLocation(db: Executor, actor: AccessFilter, row: LocationsTable): Promise<void> {
  await scoped(db, actor).insert('locations', row);
}

export async function updateLocation(db: Executor, actor: AccessFilter, id: string, patch: Partial<LocationsTable>): Promise<void> {
  await scoped(db, actor).updateTable('locations').set(patch).where('id', '=', id).execute();
}
