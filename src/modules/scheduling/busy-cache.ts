import { acrossTenants } from '../../db/access-policy.js';
import { selectRows, type Executor } from '../../db/database.js';
import { mergeIntervals, type Interval } from './slot-engine.js';
import { busyIntervals } from './busy-intervals.js';

interface Entry {
  version: number;
  from: number;
  to: number;
  /** Merged blocked intervals covering at least [from, to). */
  busy: Interval[];
}

const maxEntries = 10_000;
/** Per database handle (live and sandbox each have theirs). */
const caches = new WeakMap<object, Map<string, Entry>>();

/** The scheduling change counter (kept by triggers on appointments and on grooming bookings, so it also sees writes of other modules and processes). */
export async function appointmentsVersion(db: Executor): Promise<number> {
  // Read on every availability call (a reused answer's version): prepared text, not the builder.
  const [row] = await selectRows<{ version: number }>(
    acrossTenants(db, 'the scheduling change counter is one row for the whole appliance'),
    "select version from scheduling_versions where name = 'appointments'",
    [],
  );
  return row?.version ?? -1;
}

/**
 * Merged busy intervals of providers over [from, to) for availability and matching (reads only;
 * booking checks read the table inside their transaction). Results are reused while the
 * appointments counter stands still: a clinic's calendar is read far more often than it changes.
 * The counter is read before the rows, so a cached entry is never older than the counter it is filed under.
 */
export async function cachedBusyIntervals(db: Executor, providerIds: readonly string[], from: number, to: number): Promise<Map<string, Interval[]>> {
  const out = new Map<string, Interval[]>();
  if (providerIds.length === 0) return out;
  const version = await appointmentsVersion(db);
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  const stale = providerIds.filter((id) => {
    const entry = cache.get(id);
    return !entry || entry.version !== version || entry.from > from || entry.to < to;
  });
  if (stale.length > 0) {
    const fresh = await busyIntervals(db, stale, from, to);
    if (cache.size + stale.length > maxEntries) cache.clear();
    for (const id of stale) cache.set(id, { version, from, to, busy: mergeIntervals(fresh.get(id) ?? []) });
  }
  for (const id of providerIds) out.set(id, cache.get(id)?.busy ?? []);
  return out;
}
