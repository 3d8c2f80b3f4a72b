import { selectRows, type Executor } from '../../db/database.js';
import { VersionedCache } from '../../db/versioned-cache.js';
import type { AccessFilter } from '../../http/actor.js';
import type { PageRequest } from '../../http/paging.js';
import type { MetricName } from './analytics.schema.js';
import { aggregateTallySql, aggregateWindowsText, earliestDueAt } from './analytics-daily.repository.js';
import type { ScopeLocation, WindowRow } from './metric-windows.js';

/**
 * SQL of the metrics (DESIGN §14). Every statement starts from the windows `w` (one row per
 * location and bucket: its local dates sd..ed and their UTC instants [s, e)), built only from
 * locations the caller's access filter let through (`scopeLocations`), and joins each metric's
 * rows to them by location_id: the tenant and location filter is that join. `cross join` keeps
 * `w` the outer loop, so each window is one range read of an index leading with location_id.
 */
const windows = `with w(loc, bucket, s, e, sd, ed) as materialized (
  select value->>0, value->>1, value->>2, value->>3, value->>4, value->>5 from json_each(?))`;

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
  const rows = await selectRows<ScopeLocation>(db, `${text} order by id`, parameters);
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

/** The windows as the SQL's JSON parameter, serialised once per windows array (a summary reads the same ones for every metric). */
const windowTexts = new WeakMap<readonly WindowRow[], string>();
function windowsText(rows: readonly WindowRow[]): string {
  let text = windowTexts.get(rows);
  if (text === undefined) {
    text = JSON.stringify(rows);
    windowTexts.set(rows, text);
  }
  return text;
}

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

/** The figures of a metric per bucket (and key) over the windows. */
export async function tallies(db: Executor, name: MetricName, tenantId: string, windowRows: readonly WindowRow[]): Promise<TallyRow[]> {
  const windowsJson = aggregateWindowsText(windowRows);
  const [counter] = await selectRows<{ version: number }>(db, versionSql, [readsKind[name]]);
  if (counter === undefined) throw new Error(`analytics_versions has no counter '${readsKind[name]}'`);
  const version = counter.version;
  const key = `${name}|${tenantId}|${windowsJson}`;
  const hit = figures.get(db, key, version);
  if (hit) return hit;
  const aggregate = aggregateTallySql[name];
  const rows =
    aggregate === undefined
      ? await referenceTallies(db, name, tenantId, windowRows)
      : await selectRows<TallyRow>(db, aggregate.text, [windowsJson, ...Array.from({ length: aggregate.tenantParameters }, () => tenantId)]);
  figures.set(db, key, version, rows);
  return rows;
}

/** A metric's figures from the records themselves (the definition; uncached). */
export async function referenceTallies(db: Executor, name: MetricName, tenantId: string, windowRows: readonly WindowRow[]): Promise<TallyRow[]> {
  const parameters: unknown[] = [windowsText(windowRows)];
  if (takesTenant.has(name)) parameters.push(tenantId);
  return selectRows<TallyRow>(db, referenceTallySql[name], parameters);
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

/** The rows behind each metric over one window per location (same joins as the tallies). */
const recordSql: Record<MetricName, string> = {
  revenue_net: `${recordColumns('payment', 'p.id', 'p.created_at', 'p.location_id', 'p.amount', 'p.currency', 'p.status', "'numerator'")}
      from w cross join payments p on p.location_id = w.loc and p.created_at >= w.s and p.created_at < w.e
    union all
    ${recordColumns('refund', 'r.id', 'r.created_at', 'r.location_id', '-r.amount', 'r.currency', 'r.status', "'numerator'")}
      from w cross join refunds r on r.location_id = w.loc and r.created_at >= w.s and r.created_at < w.e`,
  invoices_open: `${recordColumns('invoice', 'i.id', 'i.finalized_at', 'i.location_id', 'null', 'null', "'open'", "'numerator'")}
      from w cross join invoices i on i.location_id = w.loc and i.finalized_at < w.e
      where (i.paid_at is null or i.paid_at >= w.e) and (i.voided_at is null or i.voided_at >= w.e)
        and (i.uncollectible_at is null or i.uncollectible_at >= w.e)`,
  appointments_by_status: `${recordColumns('appointment', 'a.id', 'a.starts_at', 'a.location_id', 'null', 'null', 'a.status', "'numerator'")}
      from w cross join appointments a on a.location_id = w.loc and a.starts_at >= w.s and a.starts_at < w.e`,
  no_show_rate: `${recordColumns('appointment', 'a.id', 'a.starts_at', 'a.location_id', 'null', 'null', 'a.status', "case a.status when 'no_show' then 'both' else 'denominator' end")}
      from w cross join appointments a on a.location_id = w.loc and a.starts_at >= w.s and a.starts_at < w.e
      where a.status in ('completed', 'no_show')`,
  boarding_occupancy_rate: `${recordColumns('booking', 'b.id', 'b.starts_at', 'b.location_id', 'null', 'null', 'b.status', "'numerator'")}
      from w cross join boarding_stays s on s.location_id = w.loc and s.check_in_on <= w.ed
      join bookings b on b.id = s.booking_id
      where s.check_out_on > w.sd and b.status in ('reserved', 'checked_in', 'checked_out')
    union all
    ${recordColumns('boarding_room', 'r.id', 'r.created_at', 'r.location_id', 'null', 'null', "'active'", "'denominator'")}
      from w cross join boarding_rooms r on r.location_id = w.loc and r.active = 1`,
  grooming_completed: `${recordColumns('booking', 'b.id', 'b.starts_at', 'b.location_id', 'null', 'null', 'b.status', "'numerator'")}
      from w cross join bookings b on b.tenant_id = ? and b.location_id = w.loc and b.kind = 'grooming' and b.starts_at >= w.s and b.starts_at < w.e
      where b.status = 'completed'`,
  vaccination_compliance_rate: `select * from (
      select 'pet' as source_type, p.id as id, p.created_at as occurred_at, p.location_id as location_id, null as amount, null as currency,
        case when x.earliest >= x.ed then 'compliant' else 'overdue' end as status,
        case when x.earliest >= x.ed then 'both' else 'denominator' end as counted
      from (select w.ed as ed, p.id as pet_id, (${earliestDueAt('p.id', 'w.ed')}) as earliest
              from w cross join pets p on p.location_id = w.loc and p.created_at < w.e) x
      join pets p on p.id = x.pet_id
      where x.earliest is not null)`,
  new_pets: `${recordColumns('pet', 'p.id', 'p.created_at', 'p.location_id', 'null', 'null', 'null', "'numerator'")}
      from w cross join pets p on p.location_id = w.loc and p.created_at >= w.s and p.created_at < w.e`,
  active_pets: `${recordColumns('pet', 'p.id', 'p.created_at', 'p.location_id', 'null', 'null', 'null', "'numerator'")}
      from w cross join pets p on p.location_id = w.loc and p.created_at < w.e`,
  marketplace_gmv: `${recordColumns('order_line', 'l.id', 'o.paid_at', 'o.location_id', 'l.amount', 'l.currency', 'o.status', "'numerator'")}
      from w cross join marketplace_orders o on o.location_id = w.loc and o.paid_at >= w.s and o.paid_at < w.e
      join marketplace_order_lines l on l.order_id = o.id`,
  commission_earned: `${recordColumns('commission_line', 'c.id', 'c.created_at', 'o.location_id', 'c.commission', 'c.currency', 'c.kind', "'numerator'")}
      from w cross join marketplace_orders o on o.location_id = w.loc
      join marketplace_commission_lines c on c.order_id = o.id and c.created_at >= w.s and c.created_at < w.e`,
};

/** One page of the rows behind a metric, by source id, newest first (ids are time-ordered). */
export async function recordRows(
  db: Executor,
  name: MetricName,
  tenantId: string,
  rows: readonly WindowRow[],
  page: PageRequest,
  currency: string | undefined,
): Promise<RecordRow[]> {
  const parameters: unknown[] = [JSON.stringify(rows)];
  if (takesTenant.has(name)) parameters.push(tenantId);
  const conditions: string[] = [];
  if (currency !== undefined) {
    conditions.push('currency = ?');
    parameters.push(currency);
  }
  if (page.afterId !== undefined) {
    conditions.push('id < ?');
    parameters.push(page.afterId);
  }
  parameters.push(page.limit + 1);
  const where = conditions.length > 0 ? `where ${conditions.join(' and ')}` : '';
  return selectRows<RecordRow>(db, `${windows} select * from (${recordSql[name]}) ${where} order by id desc limit ?`, parameters);
}
