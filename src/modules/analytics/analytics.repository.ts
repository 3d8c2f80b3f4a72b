import { acrossTenants } from '../../db/access-policy.js';
import { selectRows, type Executor } from '../../db/database.js';
import { onReadPool, type Reads, type ReadTask } from '../../db/read-pool.js';
import { workerScript } from '../../jobs/worker-pool.js';
import { VersionedCache } from '../../db/versioned-cache.js';
import type { AccessFilter } from '../../http/actor.js';
import type { PageRequest } from '../../http/paging.js';
import type { Interval, MetricName } from './analytics.schema.js';
import { aggregateTallySql, aggregateWindowsText, closedAtOf, earliestDueAt, stateMetrics, stateTallies } from './analytics-daily.repository.js';
import { handWritten, recentAppointments, recentPage } from './analytics-records.repository.js';
import { bucketsOf, windowRows as windowRowsOf, type ScopeLocation, type WindowRow } from './metric-windows.js';

/**
 * SQL of the metrics (DESIGN §14). Every statement starts from the windows `w` (one row per
 * location and bucket: its local dates sd..ed and their UTC instants [s, e)), built only from
 * locations the caller's access filter let through (`scopeLocations`), and joins each metric's
 * rows to them by location_id: the tenant and location filter is that join. `cross join` keeps
 * `w` the outer loop, so each window is one range read of an index leading with location_id.
 */
const windows = `with w(loc, bucket, s, e, sd, ed) as materialized (
  select value->>0, value->>1, value->>2, value->>3, value->>4, value->>5 from jsonb_each(?))`;

/** The locations a metric covers: the caller's (one when `locationId` is given); null when that one is not visible. */
export async function scopeLocations(db: Executor, access: AccessFilter, locationId: string | undefined): Promise<ScopeLocation[] | null> {
  const parameters: unknown[] = [access.tenantId];
  let text = 'select id, timezone, currency from locations where tenant_id = ?';
  if (access.locationIds !== null) {
    text += access.locationIds.length === 0 ? ' and 0' : ` and id in (${access.locationIds.map(() => '?').join(', ')})`;
    parameters.push(...access.locationIds);
  }
  if (locationId !== undefined) {
    text += ' and id = ?';
    parameters.push(locationId);
  }
  const rows = await selectRows<ScopeLocation>(handWritten(db), `${text} order by id`, parameters);
  return locationId !== undefined && rows.length === 0 ? null : rows;
}

/** One bucket's figures: key is the currency (money), the status (appointments_by_status) or ''. */
export interface TallyRow {
  bucket: string;
  key: string;
  num: number;
  den: number;
}

/**
 * What each metric adds up (num) and divides by (den) per bucket and key, read from the records
 * themselves: the definitions. The metrics read `aggregateTallySql` where it has one; these stay as
 * the reference it is tested against (test/analytics/aggregates.test.ts) and answer the others.
 */
const referenceTallySql: Record<MetricName, string> = {
  revenue_net: `${windows}
    select bucket, key, sum(num) as num, 0 as den from (
      select w.bucket as bucket, p.currency as key, sum(p.amount) as num
        from w cross join payments p on p.location_id = w.loc and p.created_at >= w.s and p.created_at < w.e
        group by w.bucket, p.currency
      union all
      select w.bucket, r.currency, -sum(r.amount)
        from w cross join refunds r on r.location_id = w.loc and r.created_at >= w.s and r.created_at < w.e
        group by w.bucket, r.currency)
    group by bucket, key`,
  invoices_open: `${windows}
    select w.bucket as bucket, '' as key, count(*) as num, 0 as den
      from w cross join invoices i on i.location_id = w.loc and i.finalized_at < w.e
      where (i.paid_at is null or i.paid_at >= w.e) and (i.voided_at is null or i.voided_at >= w.e)
        and (i.uncollectible_at is null or i.uncollectible_at >= w.e)
      group by w.bucket`,
  appointments_by_status: `${windows}
    select w.bucket as bucket, a.status as key, count(*) as num, 0 as den
      from w cross join appointments a on a.location_id = w.loc and a.starts_at >= w.s and a.starts_at < w.e
      group by w.bucket, a.status`,
  no_show_rate: `${windows}
    select w.bucket as bucket, '' as key, sum(a.status = 'no_show') as num, count(*) as den
      from w cross join appointments a on a.location_id = w.loc and a.starts_at >= w.s and a.starts_at < w.e
      where a.status in ('completed', 'no_show')
      group by w.bucket`,
  boarding_occupancy_rate: `${windows}
    select bucket, '' as key, sum(booked) as num, sum(capacity * nights) as den from (
      select w.bucket as bucket,
        (select coalesce(sum(n.reserved + n.checked_in), 0) from boarding_night_totals n
          where n.location_id = w.loc and n.night >= w.sd and n.night <= w.ed) as booked,
        (select coalesce(sum(r.capacity), 0) from boarding_rooms r where r.location_id = w.loc and r.active = 1) as capacity,
        cast(julianday(w.ed) - julianday(w.sd) + 1 as integer) as nights
      from w)
    group by bucket`,
  grooming_completed: `${windows}
    select w.bucket as bucket, '' as key, count(*) as num, 0 as den
      from w cross join bookings b on b.tenant_id = ? and b.location_id = w.loc and b.kind = 'grooming' and b.starts_at >= w.s and b.starts_at < w.e
      where b.status = 'completed'
      group by w.bucket`,
  vaccination_compliance_rate: `${windows}
    select bucket, '' as key, sum(earliest >= ed) as num, count(*) as den from (
      select w.bucket as bucket, w.ed as ed, (${earliestDueAt('p.id', 'w.ed')}) as earliest
        from w cross join pets p on p.location_id = w.loc and p.created_at < w.e)
    where earliest is not null
    group by bucket`,
  new_pets: `${windows}
    select w.bucket as bucket, '' as key, count(*) as num, 0 as den
      from w cross join pets p on p.location_id = w.loc and p.created_at >= w.s and p.created_at < w.e
      group by w.bucket`,
  active_pets: `${windows}
    select w.bucket as bucket, '' as key, count(*) as num, 0 as den
      from w cross join pets p on p.location_id = w.loc and p.created_at < w.e
      group by w.bucket`,
  marketplace_gmv: `${windows}
    select w.bucket as bucket, l.currency as key, sum(l.amount) as num, 0 as den
      from w cross join marketplace_orders o on o.location_id = w.loc and o.paid_at >= w.s and o.paid_at < w.e
      join marketplace_order_lines l on l.order_id = o.id
      group by w.bucket, l.currency`,
  commission_earned: `${windows}
    select w.bucket as bucket, c.currency as key, sum(c.commission) as num, 0 as den
      from w cross join marketplace_orders o on o.location_id = w.loc
      join marketplace_commission_lines c on c.order_id = o.id and c.created_at >= w.s and c.created_at < w.e
      group by w.bucket, c.currency`,
};

/** Statements that take the tenant id after the windows (bookings is indexed by tenant first). */
const takesTenant = new Set<MetricName>(['grooming_completed']);

/** The kind of records (change counter, migration 2026_11_24_1303) each metric reads. */
const readsKind: Record<MetricName, string> = {
  revenue_net: 'money',
  invoices_open: 'invoices',
  appointments_by_status: 'appointments',
  no_show_rate: 'appointments',
  boarding_occupancy_rate: 'boarding',
  grooming_completed: 'bookings',
  vaccination_compliance_rate: 'pets',
  new_pets: 'pets',
  active_pets: 'pets',
  marketplace_gmv: 'marketplace',
  commission_earned: 'marketplace',
};

/**
 * Figures computed under each value of their kind's change counter, per database (live, sandbox,
 * or an open transaction), by metric and windows: reused while that counter stands still, which the
 * triggers make exact (any write a metric reads moves it, in the same transaction).
 */
const figures = new VersionedCache<TallyRow[]>(1000);
const versionSql = 'select version from analytics_versions where name = ?';

/**
 * A call's windows, built only when the figures are computed (a cached answer needs none: building a
 * year by day over 12 locations, 4,380 windows, took tens of ms of the event loop), with the key that
 * identifies them: what they are a function of (dates, interval, each location's id and time zone),
 * and those (`of`), from which a read worker builds them itself.
 */
export interface LazyWindows {
  key: string;
  rows(): readonly WindowRow[];
  of: { locations: readonly ScopeLocation[]; from: string; to: string; interval: Interval | null };
}

/** What a metric's figures are computed from: its windows, built or as what builds them. */
export interface TallyInput {
  names: readonly MetricName[];
  tenantId: string;
  windows: readonly WindowRow[] | LazyWindows['of'];
}

/**
 * The read-pool task that computes metrics' figures (analytics-tasks.ts exports computeTallies):
 * the windows, the statements over them and the sums all on a worker, so that of a year by day over
 * 12 locations (4,380 windows, their aggregates' rows summed in memory) only the few hundred
 * figures cross to the API's thread. A summary sends its metrics in one task.
 */
const tallyTask: ReadTask<TallyInput, TallyRow[][]> = { module: workerScript(import.meta.url, 'analytics-tasks'), name: 'computeTallies' };

/** The figures of a metric per bucket (and key) over the windows (built or lazy). */
export async function tallies(db: Executor, name: MetricName, tenantId: string, windows: readonly WindowRow[] | LazyWindows): Promise<TallyRow[]> {
  return (await talliesOf(db, [name], tenantId, windows))[0]!;
}

/** The figures of each metric named (in that order) over the same windows: those not reused, computed in one read-pool task. */
export async function talliesOf(
  db: Executor,
  names: readonly MetricName[],
  tenantId: string,
  windows: readonly WindowRow[] | LazyWindows,
): Promise<TallyRow[][]> {
  const versions = new Map<string, number>();
  for (const kind of new Set(names.map((name) => readsKind[name]))) {
    const [counter] = await selectRows<{ version: number }>(
      acrossTenants(db, 'analytics_versions: one change counter per kind for the whole file'),
      versionSql,
      [kind],
    );
    if (counter === undefined) throw new Error(`analytics_versions has no counter '${kind}'`);
    versions.set(kind, counter.version);
  }
  // A lazy key never starts with '[' as a windows text does.
  const windowsKey = isBuilt(windows) ? aggregateWindowsText(windows) : windows.key;
  const keyOf = (name: MetricName) => `${name}|${tenantId}|${windowsKey}`;
  const out = names.map((name) => figures.get(db, keyOf(name), versions.get(readsKind[name])!));
  const missing = names.filter((_, i) => out[i] === undefined);
  if (missing.length === 0) return out as TallyRow[][];
  // Computed on the read pool (a year of a group's rows takes long enough to stall every client):
  // its reads start after the counters were read, so they see at least what they count.
  const computed = await onReadPool(db, tallyTask, { names: missing, tenantId, windows: isBuilt(windows) ? windows : windows.of }, (reads) =>
    computeTallies(reads, { names: missing, tenantId, windows: isBuilt(windows) ? windows : windows.rows() }),
  );
  missing.forEach((name, i) => figures.set(db, keyOf(name), versions.get(readsKind[name])!, computed[i]!));
  return names.map((name, i) => out[i] ?? computed[missing.indexOf(name)]!);
}

/** Each metric's figures over the windows, in the order named, each statement through `reads` (on a read worker: see tallyTask). */
export async function computeTallies(reads: Reads, input: TallyInput): Promise<TallyRow[][]> {
  const { tenantId } = input;
  const of = input.windows;
  const windowRows = isBuilt(of) ? of : windowRowsOf(of.locations, bucketsOf(of.from, of.to, of.interval));
  const out: TallyRow[][] = [];
  for (const name of input.names) {
    const aggregate = aggregateTallySql[name];
    const state = stateMetrics[name];
    if (state !== undefined) out.push(await stateTallies(reads, state, windowRows));
    else if (aggregate === undefined) out.push(await referenceTalliesBy(reads, name, tenantId, windowRows));
    else
      out.push(
        (await reads(aggregate.text, [aggregateWindowsText(windowRows), ...Array.from({ length: aggregate.tenantParameters }, () => tenantId)])) as TallyRow[],
      );
  }
  return out;
}

const isBuilt = (windows: readonly WindowRow[] | LazyWindows | LazyWindows['of']): windows is readonly WindowRow[] => Array.isArray(windows);

/** A metric's figures from the records themselves (the definition; uncached). */
export async function referenceTallies(db: Executor, name: MetricName, tenantId: string, windowRows: readonly WindowRow[]): Promise<TallyRow[]> {
  return referenceTalliesBy((sql, parameters) => selectRows<TallyRow>(handWritten(db), sql, parameters), name, tenantId, windowRows);
}

async function referenceTalliesBy(reads: Reads, name: MetricName, tenantId: string, windowRows: readonly WindowRow[]): Promise<TallyRow[]> {
  const parameters: unknown[] = [aggregateWindowsText(windowRows)];
  if (takesTenant.has(name)) parameters.push(tenantId);
  return (await reads(referenceTallySql[name], parameters)) as TallyRow[];
}

/** A row behind a value, as the records list shows it. */
export interface RecordRow {
  source_type: string;
  /** Named `id` so the shared keyset paging (by id, newest first) applies. */
  id: string;
  occurred_at: string;
  location_id: string;
  amount: number | null;
  currency: string | null;
  status: string | null;
  counted: 'numerator' | 'denominator' | 'both';
}

const recordColumns = (type: string, id: string, at: string, location: string, amount: string, currency: string, status: string, counted: string): string =>
  `select '${type}' as source_type, ${id} as id, ${at} as occurred_at, ${location} as location_id, ${amount} as amount, ${currency} as currency, ${status} as status, ${counted} as counted`;

/**
 * One source of a metric's records, walked newest first by an index that starts with the tenant and
 * ends in `id` (the page's order): `sql(more)` is the select with `more` (the cursor and currency
 * conditions, already prefixed with ` and `) added to its walk; it takes the tenant id once, then
 * those conditions' parameters. The window (`w`, one per location) is the inner side of the join,
 * so it only filters the walk.
 */
interface RecordSource {
  sql: (more: string) => string;
  /** The same rows read window by window through the source's time index (then sorted): for a window far in the past. */
  byWindow?: (more: string) => string;
  /** The column compared with the cursor, and the one with `currency` (money metrics). */
  id: string;
  currency?: string;
  /** Appointments: the reads of the rows made since an instant (analytics-records.repository.ts), tried before the walk. */
  recent?: (more: string) => string[];
}

/**
 * A source walked by `walk` (the tenant and, maybe, the kind) joined to the windows. `from` is either
 * the table and the window's join condition (then `byWindow` reads the same rows the other way
 * round, windows outside) or a whole FROM clause (walked only).
 */
const walked = (columns: string, from: string | [table: string, on: string], walk: string, id: string, currency?: string, where = ''): RecordSource => {
  const select = (clause: string) => (more: string) => `${columns} from ${clause} where ${walk}${more}${where ? ` and ${where}` : ''}`;
  return {
    sql: select(typeof from === 'string' ? from : `${from[0]} cross join w on ${from[1]}`),
    ...(typeof from === 'string' ? {} : { byWindow: select(`w cross join ${from[0]} on ${from[1]}`) }),
    id,
    ...(currency ? { currency } : {}),
  };
};

/**
 * The rows behind each metric over one window per location (the same conditions as the tallies),
 * source by source. Each source is read by id, newest first, through an index; the page merges them
 * (SQLite's MERGE of a compound select, which stops after `limit` rows), so a page reads about its
 * own rows and never sorts the window's (the records of a year of payments were a sort of every
 * payment of the year: 228 ms a page on the scale bench's 0.1 file). A walk skips the rows between
 * two of the window's that lie outside it: few for windows ending near now, which the console asks.
 * Open invoices are the exception: they are few among all, so their read is a range of
 * invoices_location_closed_idx (those still open at the window's end, or finalized since), sorted.
 */
const openAtEnd =
  'i.finalized_at < w.e and (i.paid_at is null or i.paid_at >= w.e) and (i.voided_at is null or i.voided_at >= w.e) and (i.uncollectible_at is null or i.uncollectible_at >= w.e)';

const noShowColumns = recordColumns(
  'appointment',
  'a.id',
  'a.starts_at',
  'a.location_id',
  'null',
  'null',
  'a.status',
  "case a.status when 'no_show' then 'both' else 'denominator' end",
);
const noShowStatuses = "a.status in ('completed', 'no_show')";

const recordSources: Record<MetricName, RecordSource[]> = {
  revenue_net: [
    walked(
      recordColumns('payment', 'p.id', 'p.created_at', 'p.location_id', 'p.amount', 'p.currency', 'p.status', "'numerator'"),
      ['payments p', 'w.loc = p.location_id and p.created_at >= w.s and p.created_at < w.e'],
      'p.tenant_id = ?',
      'p.id',
      'p.currency',
    ),
    walked(
      recordColumns('refund', 'r.id', 'r.created_at', 'r.location_id', '-r.amount', 'r.currency', 'r.status', "'numerator'"),
      ['refunds r', 'w.loc = r.location_id and r.created_at >= w.s and r.created_at < w.e'],
      'r.tenant_id = ?',
      'r.id',
      'r.currency',
    ),
  ],
  invoices_open: [
    {
      // Not a walk: those still open at the window's end (or finalized since), from their closing
      // instant's index, sorted; for an old window, those finalized before it from the covering
      // invoices_location_finalized_idx (every invoice then, but no table read for the closed ones).
      ...walked(
        recordColumns('invoice', 'i.id', 'i.finalized_at', 'i.location_id', 'null', 'null', "'open'", "'numerator'"),
        `w cross join invoices i indexed by invoices_location_closed_idx on i.location_id = w.loc and i.finalized_at is not null and ${closedAtOf('i')} >= w.e`,
        'i.tenant_id = ?',
        'i.id',
        undefined,
        openAtEnd,
      ),
      byWindow: (more) =>
        `${recordColumns('invoice', 'i.id', 'i.finalized_at', 'i.location_id', 'null', 'null', "'open'", "'numerator'")}
          from w cross join invoices i indexed by invoices_location_finalized_idx on i.location_id = w.loc and i.finalized_at < w.e
          where ${openAtEnd} and i.tenant_id = ?${more}`,
    },
  ],
  appointments_by_status: [
    {
      ...walked(
        recordColumns('appointment', 'a.id', 'a.starts_at', 'a.location_id', 'null', 'null', 'a.status', "'numerator'"),
        ['appointments a', 'w.loc = a.location_id and a.starts_at >= w.s and a.starts_at < w.e'],
        'a.tenant_id = ?',
        'a.id',
      ),
      recent: recentAppointments(recordColumns('appointment', 'a.id', 'a.starts_at', 'a.location_id', 'null', 'null', 'a.status', "'numerator'")),
    },
  ],
  no_show_rate: [
    {
      ...walked(
        noShowColumns,
        ['appointments a', 'w.loc = a.location_id and a.starts_at >= w.s and a.starts_at < w.e'],
        'a.tenant_id = ?',
        'a.id',
        undefined,
        noShowStatuses,
      ),
      recent: recentAppointments(noShowColumns, ` and ${noShowStatuses}`),
    },
  ],
  boarding_occupancy_rate: [
    // Stays are made only with boarding bookings (boarding's stays.service).
    walked(
      recordColumns('booking', 'b.id', 'b.starts_at', 'b.location_id', 'null', 'null', 'b.status', "'numerator'"),
      'bookings b cross join boarding_stays s on s.booking_id = b.id cross join w on w.loc = s.location_id and s.check_in_on <= w.ed and s.check_out_on > w.sd',
      "b.tenant_id = ? and b.kind = 'boarding'",
      'b.id',
      undefined,
      "b.status in ('reserved', 'checked_in', 'checked_out')",
    ),
    walked(
      recordColumns('boarding_room', 'r.id', 'r.created_at', 'r.location_id', 'null', 'null', "'active'", "'denominator'"),
      ['boarding_rooms r', 'w.loc = r.location_id'],
      'r.tenant_id = ?',
      'r.id',
      undefined,
      'r.active = 1',
    ),
  ],
  grooming_completed: [
    walked(
      recordColumns('booking', 'b.id', 'b.starts_at', 'b.location_id', 'null', 'null', 'b.status', "'numerator'"),
      ['bookings b', 'w.loc = b.location_id and b.starts_at >= w.s and b.starts_at < w.e'],
      "b.tenant_id = ? and b.kind = 'grooming'",
      'b.id',
      undefined,
      "b.status = 'completed'",
    ),
  ],
  vaccination_compliance_rate: [
    {
      // The earliest due date is computed once per pet the walk reaches (LIMIT -1 keeps it from being copied into each use).
      sql: (more) => `select 'pet' as source_type, id, occurred_at, location_id, null as amount, null as currency,
          case when earliest >= ed then 'compliant' else 'overdue' end as status,
          case when earliest >= ed then 'both' else 'denominator' end as counted
        from (select p.id as id, p.created_at as occurred_at, p.location_id as location_id, w.ed as ed, (${earliestDueAt('p.id', 'w.ed')}) as earliest
              from pets p cross join w on w.loc = p.location_id and p.created_at < w.e
              where p.tenant_id = ?${more} order by p.id desc limit -1)
        where earliest is not null`,
      id: 'p.id',
    },
  ],
  new_pets: [
    walked(
      recordColumns('pet', 'p.id', 'p.created_at', 'p.location_id', 'null', 'null', 'null', "'numerator'"),
      ['pets p', 'w.loc = p.location_id and p.created_at >= w.s and p.created_at < w.e'],
      'p.tenant_id = ?',
      'p.id',
    ),
  ],
  active_pets: [
    walked(
      recordColumns('pet', 'p.id', 'p.created_at', 'p.location_id', 'null', 'null', 'null', "'numerator'"),
      ['pets p', 'w.loc = p.location_id and p.created_at < w.e'],
      'p.tenant_id = ?',
      'p.id',
    ),
  ],
  marketplace_gmv: [
    walked(
      recordColumns('order_line', 'l.id', 'o.paid_at', 'o.location_id', 'l.amount', 'l.currency', 'o.status', "'numerator'"),
      'marketplace_order_lines l cross join marketplace_orders o on o.id = l.order_id cross join w on w.loc = o.location_id and o.paid_at >= w.s and o.paid_at < w.e',
      'l.tenant_id = ?',
      'l.id',
      'l.currency',
    ),
  ],
  commission_earned: [
    walked(
      recordColumns('commission_line', 'c.id', 'c.created_at', 'o.location_id', 'c.commission', 'c.currency', 'c.kind', "'numerator'"),
      'marketplace_commission_lines c cross join marketplace_orders o on o.id = c.order_id cross join w on w.loc = o.location_id and c.created_at >= w.s and c.created_at < w.e',
      'c.tenant_id = ?',
      'c.id',
      'c.currency',
    ),
  ],
};

/**
 * How to tell whether a first page should walk: the daily aggregate (analytics_daily) that counts a
 * metric's records, or stands in for them, by the date its window reads; how many lie after the
 * window (each a step the walk takes before it reaches the window) and how many inside it (each read
 * and sorted by the other plan; from the first day of history for a state at the window's end).
 * `cost` is what a step of the walk costs against a row of the other plan, as measured on the scale
 * bench's 0.1 file (a walk looks each row up in the table; open invoices' other plan reads a
 * covering index).
 */
const recordCounts: Partial<Record<MetricName, { measure: string; count: 'num' | 'den'; cost: number; state?: true }>> = {
  revenue_net: { measure: 'revenue', count: 'den', cost: 1.5 },
  invoices_open: { measure: 'revenue', count: 'den', cost: 10, state: true },
  appointments_by_status: { measure: 'appointments', count: 'num', cost: 3 },
  no_show_rate: { measure: 'appointments', count: 'num', cost: 3 },
  new_pets: { measure: 'pets', count: 'num', cost: 2 },
  grooming_completed: { measure: 'grooming', count: 'num', cost: 2 },
};

/**
 * How a first page is read: by the walk, unless the window lies so far in the past that the steps
 * over rows after it cost more than reading the window's rows and sorting them; then window by
 * window and sorted, as before the walks (O(window), not O(page): the price of an old window). A
 * page after a cursor walks (the cursor is inside the window: the seek skips what is newer); open
 * invoices, which are not walked, choose on every page.
 * Both give the same rows, in the same order.
 */
async function firstPageWalks(db: Executor, name: MetricName, rows: readonly WindowRow[]): Promise<boolean> {
  const counts = recordCounts[name];
  if (counts === undefined || rows.length === 0) return true;
  const locations = [...new Set(rows.map((r) => r[0]))];
  const firstDay = counts.state ? '0' : rows.reduce((min, r) => (r[2] < min ? r[2] : min), rows[0]![2]).slice(0, 10);
  const lastDay = rows.reduce((max, r) => (r[3] > max ? r[3] : max), rows[0]![3]).slice(0, 10);
  const [row] = await selectRows<{ later: number; inside: number }>(
    handWritten(db),
    `select coalesce(sum(case when day >= ? then ${counts.count} end), 0) as later, coalesce(sum(case when day < ? then ${counts.count} end), 0) as inside
      from analytics_daily where location_id in (${locations.map(() => '?').join(', ')}) and measure = ? and day >= ?`,
    [lastDay, lastDay, ...locations, counts.measure, firstDay],
  );
  return row === undefined || row.later * counts.cost <= Math.max(row.inside, 1);
}

/**
 * One page of the rows behind a metric, by source id, newest first (ids are time-ordered). `how`
 * forces a read (tests compare both); by default the first page picks one (firstPageWalks).
 */
export async function recordRows(
  db: Executor,
  name: MetricName,
  tenantId: string,
  rows: readonly WindowRow[],
  page: PageRequest,
  currency: string | undefined,
  how: 'walk' | 'byWindow' | 'auto' = 'auto',
): Promise<RecordRow[]> {
  const recent = recordSources[name][0]?.recent;
  if (recent !== undefined && how === 'auto') {
    const found = await recentPage(db, tenantId, rows, page.afterId, page.limit + 1, (t, floor) => {
      const parameters: unknown[] = [JSON.stringify(rows)];
      for (let arm = 0; arm < 2; arm++) parameters.push(t, tenantId, floor, ...(page.afterId === undefined ? [] : [page.afterId]));
      parameters.push(page.limit + 1);
      const arms = recent(page.afterId === undefined ? '' : ' and a.id < ?');
      return selectRows<RecordRow>(handWritten(db), `${windows}\n${arms.join('\n    union all\n    ')}\n    order by id desc limit ?`, parameters);
    });
    if (found !== null) return found;
  }
  // Open invoices are no walk: every page of theirs chooses.
  const choose = page.afterId === undefined || name === 'invoices_open';
  const walk = how === 'walk' || (how === 'auto' && (!choose || (await firstPageWalks(db, name, rows))));
  const parameters: unknown[] = [JSON.stringify(rows)];
  const arms = recordSources[name].map((source) => {
    parameters.push(tenantId);
    let more = '';
    if (page.afterId !== undefined) {
      more += ` and ${source.id} < ?`;
      parameters.push(page.afterId);
    }
    if (currency !== undefined && source.currency !== undefined) {
      more += ` and ${source.currency} = ?`;
      parameters.push(currency);
    }
    return (walk ? source.sql : (source.byWindow ?? source.sql))(more);
  });
  parameters.push(page.limit + 1);
  return selectRows<RecordRow>(handWritten(db), `${windows}\n${arms.join('\n    union all\n    ')}\n    order by id desc limit ?`, parameters);
}
