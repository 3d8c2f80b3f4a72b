import { acrossTenants } from '../../db/access-policy.js';
import { type Executor, selectRows } from '../../db/database.js';
import { idFloor } from '../../db/ids.js';
import type { WindowRow } from './metric-windows.js';

/**
 * Analytics' hand-written statements (the records pages, the tallies by window, the caller's
 * locations): each carries the tenant in its text (`tenant_id = ?`) or reads only the locations of
 * its windows, which `scopeLocations` took from the caller's tenant and locations. Named so each
 * such use is visible to the access-policy check.
 */
export const handWritten = (db: Executor): Executor =>
  acrossTenants(db, "hand-written: tenant_id in its text, or only its windows' locations (the caller's, from scopeLocations)");

/**
 * The newest records of appointments in a window, without walking every id newer than them (issue
 * 27.2). Walked by id from the newest, a window ending today stepped over every booking of the next
 * 60 days before reaching its own rows (13× the small database on the scale bench's 0.1 file, and
 * growing with bookings per day).
 *
 * An appointment's id carries the instant it was made (src/db/ids.ts). One made through the API
 * starts after it is made; the others (imports of past visits) are in appointments_backdated_idx
 * (migration 2026_11_27_0020). So, for any instant t, the window's rows with id ≥ idFloor(t) are
 * exactly: those starting at or after t (a range of appointments_location_starts_idx per window,
 * then sorted: the window's last days only) and those of the backdated index starting before t
 * (walked by id). When they are at least a page, they are the page: every other row of the window
 * has a smaller id. t starts a day before the window's end (or the cursor's instant, or the newest
 * appointment's) and moves back fourfold until a page is found; past 64 days the caller reads the
 * window as before. So does a window reaching more than two days past the newest appointment's
 * making: its rows since any t would be all of its future bookings, which the walk reads in order.
 */

const alphabet = '0123456789abcdefghjkmnpqrstvwxyz';

/** The condition of appointments_backdated_idx, character for character as its migration has it, on `a`. */
export const backdatedSql = `${Array.from({ length: 10 }, (_, i) => `(instr('${alphabet}', substr(a.id, ${5 + i}, 1)) - 1) * ${2 ** (5 * (9 - i))}`).join(' + ')} >= unixepoch(a.starts_at) * 1000`;

/** The millisecond inside an id (its 10 characters after the prefix); 0 for what is not one. */
function timeOfId(id: string): number {
  const at = id.indexOf('_') + 1;
  let value = 0;
  for (let i = 0; i < 10; i++) value = value * 32 + Math.max(0, alphabet.indexOf(id[at + i] ?? '0'));
  return value;
}

/**
 * The two reads of a window's appointments made at or after t (the source's columns from `a`, its
 * extra condition `where` with a leading ` and `, or ''). Each takes t, the tenant id, idFloor(t),
 * then the cursor's parameters (`more`).
 */
export const recentAppointments =
  (columns: string, where = '') =>
  (more: string): string[] => [
    `${columns} from w cross join appointments a indexed by appointments_location_starts_idx
        on a.location_id = w.loc and a.starts_at >= max(w.s, ?) and a.starts_at < w.e
      where a.tenant_id = ? and a.id >= ?${more}${where}`,
    `${columns} from appointments a indexed by appointments_backdated_idx
        cross join w on w.loc = a.location_id and a.starts_at >= w.s and a.starts_at < w.e and a.starts_at < ?
      where a.tenant_id = ? and ${backdatedSql} and a.id >= ?${more}${where}`,
  ];

const dayMs = 86_400_000;
const spansDays = [1, 4, 16, 64];

/**
 * A page (`wanted` rows, the page and one more) of the windows' appointments by id, newest first,
 * read by `read(t, idFloor(t))` for instants t moving back from the windows' end (or the cursor's
 * instant); null when even 64 days back hold fewer, or the window reaches into the future (the
 * caller then reads the window as before).
 */
export async function recentPage<Row>(
  db: Executor,
  tenantId: string,
  rows: readonly WindowRow[],
  afterId: string | undefined,
  wanted: number,
  read: (t: string, floor: string) => Promise<Row[]>,
): Promise<Row[] | null> {
  if (rows.length === 0) return null;
  const end = Date.parse(rows.reduce((max, r) => (r[3] > max ? r[3] : max), rows[0]![3]));
  const [newest] = await selectRows<{ id: string | null }>(handWritten(db), 'select max(id) as id from appointments where tenant_id = ?', [tenantId]);
  if (!newest?.id) return null;
  const made = timeOfId(newest.id) + 1;
  if (end > made + 2 * dayMs) return null;
  const anchor = Math.min(end, made, afterId === undefined ? end : timeOfId(afterId) + 1);
  for (const days of spansDays) {
    const t = Math.max(0, anchor - days * dayMs);
    const found = await read(new Date(t).toISOString(), idFloor('apt', t));
    if (found.length >= wanted) return found;
    if (t === 0) break;
  }
  return null;
}
