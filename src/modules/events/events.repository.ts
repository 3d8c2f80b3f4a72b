import type { Selectable } from 'kysely';
import { scoped } from '../../db/access-policy.js';
import type { EventsTable, Executor } from '../../db/database.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';

type EventRow = Selectable<EventsTable>;

/**
 * Events are tenant-wide (their data spans locations): their routes are `tenantWide` (the router
 * refuses a confined client), and the queries run for the whole tenant. The live stream filters by
 * location itself (event-stream.ts).
 */
const tenantEvents = (db: Executor, tenantId: string) => scoped(db, { tenantId, locationIds: null }).selectFrom('events').selectAll();

export async function findEvent(db: Executor, tenantId: string, id: string): Promise<EventRow | null> {
  return (await tenantEvents(db, tenantId).where('id', '=', id).executeTakeFirst()) ?? null;
}

export async function listEvents(db: Executor, tenantId: string, page: PageRequest, filters: { type?: string; since?: string }): Promise<EventRow[]> {
  let query = tenantEvents(db, tenantId);
  if (filters.type !== undefined) query = query.where('type', '=', filters.type);
  if (filters.since !== undefined) query = query.where('created_at', '>=', filters.since);
  return pageQuery(query, page).execute();
}

/** Events created in [from, to), oldest first, at most `limit` (replay of a time range). */
export async function eventsBetween(
  db: Executor,
  tenantId: string,
  from: string,
  to: string,
  types: readonly string[] | null,
  limit: number,
): Promise<EventRow[]> {
  let query = tenantEvents(db, tenantId).where('created_at', '>=', from).where('created_at', '<', to);
  if (types !== null) query = query.where('type', 'in', types.length ? [...types] : ['']);
  return query.orderBy('created_at').orderBy('id').limit(limit).execute();
}
