import { api, type Page, type Session } from './api.js';
import type { Location } from './api-types.js';

/**
 * The locations the client may name, with their names where it may read them: an admin lists them
 * (GET /v1/locations, admin only); any other client knows only the ids its token carries (none
 * when it spans the whole tenant).
 */
export async function knownLocations(session: Session): Promise<Map<string, string>> {
  const known = new Map<string, string>();
  if (session.role === 'admin' && session.scopes.has('admin.read')) {
    const list = await api<Page<Location>>('GET', '/v1/locations', { query: { limit: '100' } });
    for (const l of list.data) if (!session.locations || session.locations.includes(l.id)) known.set(l.id, l.name);
  } else {
    for (const id of session.locations ?? []) known.set(id, id);
  }
  return known;
}
