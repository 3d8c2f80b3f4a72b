import { addDays } from '../../calendar-dates.js';
import { acrossTenants, scoped } from '../../db/access-policy.js';
import { runStatement, type Executor } from '../../db/database.js';
import type { Reads } from '../../db/read-pool.js';
import type { AccessFilter } from '../../http/actor.js';
import type { MetricName } from './analytics.schema.js';
import type { WindowRow } from './metric-windows.js';

/**
 * The metrics over `analytics_daily` (migrations 2026_11_26_1910, commission 2026_11_27_0010): per location, measure, UTC day and
 * key, what the records add up, kept by triggers in the writing transaction. A window of local dates
 * is the instants [s, e): the whole UTC days inside it [a, b) come from the aggregates, the partial
 * days [s, a) and [b, e) from the records (an index range of less than a day each). A state at e
 * (open invoices, pets, compliance) is the running total (day '') minus what happens at or after e:
 * the UTC days from c (the first UTC midnight at or after e) from the aggregates, [e, c) from the
 * records. Each statement answers exactly what its definition in analytics.repository.ts answers
 * (test/analytics/aggregates.test.ts compares them on random records).
 */

/**
 * The earliest due date of a pet's vaccinations as of a date: per vaccine only the latest dose
 * given on or before it counts (the rule of the pet's vaccinationStatus); null without any. SQLite
 * takes a bare column (due_on) from the row holding the group's max(), so this is one walk of
 * vaccinations_pet_vaccine_idx per pet; the id breaks a tie between doses given the same day.
 */
export function earliestDueAt(petId: string, date: string): string {
  return `select min(due_on) from (
      select v.due_on as due_on, max(v.administered_on || v.id) from vaccinations v
      where v.pet_id = ${petId} and v.administered_on <= ${date} group by v.vaccine_key)`;
}

const midnight = 'T00:00:00.000Z';
/** The UTC date after each date asked (a year by day asks the same few hundred again and again). */
const nextDates = new Map<string, string>();
function nextDate(date: string): string {
  let next = nextDates.get(date);
  if (next === undefined) {
    next = addDays(date, 1);
    if (nextDates.size >= 50_000) nextDates.clear();
    nextDates.set(date, next);
  }
  return next;
}
/** The UTC date of the first UTC midnight at or after an instant (ISO, ms): a window's dc. */
const ceilDate = (instant: string): string => (instant.endsWith(midnight) ? instant.slice(0, 10) : nextDate(instant.slice(0, 10)));

const windowTexts = new WeakMap<readonly WindowRow[], string>();
/** The windows as the aggregate statements' JSON parameter, serialised once per windows array. */
export function aggregateWindowsText(rows: readonly WindowRow[]): string {
  let text = windowTexts.get(rows);
  if (text === undefined) {
    text = JSON.stringify(rows);
    windowTexts.set(rows, text);
  }
  return text;
}

/** The first UTC midnight at or after an instant, in SQL. */
const ceilDay = (instant: string) =>
  `case when substr(${instant}, 11) = '${midnight}' then ${instant} else date(substr(${instant}, 1, 10), '+1 day') || '${midnight}' end`;

/**
 * The windows as the aggregate statements read them: each WindowRow, then a (the first UTC midnight at
 * or after s) and b (the last at or before e), or e and e when no whole UTC day lies between; their
 * UTC dates da, db; c, the first UTC midnight at or after e, and its date dc. Derived here, in the
 * statement (on the read pool), not in JavaScript: the parameter stays the windows' own JSON.
 * jsonb_each: each row's value is then a JSONB array, read by ->> without parsing text again (a year by
 * day over 12 locations is 4,380 windows: 3× faster than json_each's text values).
 */
const windows = `with w(loc, bucket, s, e, sd, ed, a, b, da, db, c, dc) as materialized (
  select loc, bucket, s, e, sd, ed, a, b, substr(a, 1, 10), substr(b, 1, 10), c, substr(c, 1, 10) from (
    select loc, bucket, s, e, sd, ed, case when a0 < b0 then a0 else e end as a, case when a0 < b0 then b0 else e end as b, c from (
      select loc, bucket, s, e, sd, ed, ${ceilDay('s')} as a0, substr(e, 1, 10) || '${midnight}' as b0, ${ceilDay('e')} as c from (
        select value->>0 as loc, value->>1 as bucket, value->>2 as s, value->>3 as e, value->>4 as sd, value->>5 as ed from jsonb_each(?)))))`;

/** Whole days of a measure inside each window, as (bucket, key, num, den). */
const days = (measure: string) =>
  `select w.bucket as bucket, d.key as key, d.num as num, d.den as den
    from w cross join analytics_daily d on d.location_id = w.loc and d.measure = '${measure}' and d.day >= w.da and d.day < w.db`;

/** A flow's records in the partial days [s, a) and [b, e) of each window: `select` names the columns, `source` the table and its join on (at, bounds). */
const edges = (select: string, table: string, at: string, extra = '', where = '') =>
  [
    ['w.s', 'w.a'],
    ['w.b', 'w.e'],
  ]
    .map(
      ([from, to]) =>
        `select ${select} from w cross join ${table} on ${extra}${at.split('.')[0]}.location_id = w.loc and ${at} >= ${from} and ${at} < ${to}${where ? ` where ${where}` : ''}`,
    )
    .join('\n      union all ');

/** The first closing instant of an invoice, not before it was finalized (the expression of invoices_location_closed_idx). */
const closedAt = `max(finalized_at, min(coalesce(paid_at, '~'), coalesce(voided_at, '~'), coalesce(uncollectible_at, '~')))`;
/** The same of an invoice referred to as `i`. */
export const closedAtOf = (i: string) => closedAt.replaceAll(/\b(finalized_at|paid_at|voided_at|uncollectible_at)\b/g, `${i}.$1`);

const appointmentsByStatus = `${days('appointments')}
      union all ${edges('w.bucket, a.status, 1, 0', 'appointments a', 'a.starts_at')}`;

/** The metrics the aggregates answer, with how many times each takes the tenant id after the windows. */
export const aggregateTallySql: Partial<Record<MetricName, { text: string; tenantParameters: number }>> = {
  revenue_net: {
    text: `${windows}
    select bucket, key, sum(num) as num, 0 as den from (
      ${days('revenue')}
      union all ${edges('w.bucket, p.currency, p.amount, 1', 'payments p', 'p.created_at')}
      union all ${edges('w.bucket, r.currency, -r.amount, 1', 'refunds r', 'r.created_at')})
    group by bucket, key having sum(den) > 0`,
    tenantParameters: 0,
  },
  appointments_by_status: {
    text: `${windows}
    select bucket, key, sum(num) as num, 0 as den from (${appointmentsByStatus})
    group by bucket, key having sum(num) > 0`,
    tenantParameters: 0,
  },
  no_show_rate: {
    text: `${windows}
    select bucket, '' as key, sum(case when key = 'no_show' then num else 0 end) as num, sum(case when key in ('completed', 'no_show') then num else 0 end) as den
      from (${appointmentsByStatus})
    group by bucket having sum(case when key in ('completed', 'no_show') then num else 0 end) > 0`,
    tenantParameters: 0,
  },
  grooming_completed: {
    text: `${windows}
    select bucket, '' as key, sum(num) as num, 0 as den from (
      ${days('grooming')}
      union all ${edges('w.bucket, b.kind, 1, 0', 'bookings b', 'b.starts_at', "b.tenant_id = ? and b.kind = 'grooming' and ", "b.status = 'completed'")})
    group by bucket having sum(num) > 0`,
    tenantParameters: 2,
  },
  new_pets: {
    text: `${windows}
    select bucket, '' as key, sum(num) as num, 0 as den from (
      ${days('pets')} and d.key = ''
      union all ${edges("w.bucket, '', 1, 0", 'pets p', 'p.created_at')})
    group by bucket having sum(num) > 0`,
    tenantParameters: 0,
  },
  commission_earned: {
    // A line's location is its order's: the partial days read the tenant's lines by created_at
    // (marketplace_commission_lines_created_idx), then their orders by id.
    text: `${windows}
    select bucket, key, sum(num) as num, 0 as den from (
      ${days('commission')}
      union all ${[
        ['w.s', 'w.a'],
        ['w.b', 'w.e'],
      ]
        .map(
          ([from, to]) => `select w.bucket, c.currency, c.commission, 1
        from w cross join marketplace_commission_lines c on c.tenant_id = ? and c.created_at >= ${from} and c.created_at < ${to}
        cross join marketplace_orders o on o.id = c.order_id and o.location_id = w.loc`,
        )
        .join('\n      union all ')})
    group by bucket, key having sum(den) > 0`,
    tenantParameters: 2,
  },
};

/**
 * A state at the end of each window (open invoices, pets, vaccination compliance): the running total
 * (day '') minus what the aggregates hold from a window's threshold day on, plus `edges` (the records
 * of the hours between the window's end and that day). The aggregates are read once for all windows
 * (from the earliest threshold on) and subtracted as suffix sums, so a series by day over a year is
 * one read of the days it spans, not one per bucket (a year of vaccination_compliance_rate by day,
 * tenant-wide, was 3-7 s on the scale bench's 0.1 file). Equal to the statements this replaced, kept
 * as `stateSql` (test/analytics/aggregates.test.ts compares them).
 */
interface StateMetric {
  measure: string;
  /** Which later days are subtracted: from dc (the first UTC midnight at or after e) or from ed (rows of key 'ge' on ed itself are kept). */
  from: 'dc' | 'ed';
  /** Only rows of this key are subtracted (the totals keep every key). */
  key?: string;
  /** `havingNum`: a bucket is answered when its num is positive; otherwise when its den is. */
  havingNum: boolean;
  /** (bucket, num, den) of the records between e and the threshold, per window. */
  edges: string;
}

export const stateMetrics: Partial<Record<MetricName, StateMetric>> = {
  active_pets: {
    measure: 'pets',
    from: 'dc',
    key: '',
    havingNum: true,
    edges: 'select w.bucket as bucket, -1 as num, 0 as den from w cross join pets p on p.location_id = w.loc and p.created_at >= w.e and p.created_at < w.c',
  },
  invoices_open: {
    measure: 'invoices_open',
    from: 'dc',
    havingNum: true,
    edges: `select w.bucket as bucket, -1 as num, 0 as den from w cross join invoices i on i.location_id = w.loc and i.finalized_at >= w.e and i.finalized_at < w.c
      union all select w.bucket, 1, 0 from w cross join invoices i on i.location_id = w.loc and i.finalized_at is not null
        and ${closedAtOf('i')} >= w.e and ${closedAtOf('i')} < w.c`,
  },
  vaccination_compliance_rate: {
    // Events that do not yet apply at ed: key ge from the day after, gt from ed itself. Pets created
    // on UTC day ed or the next are read from their records (the aggregates count a pet from the day
    // after its UTC creation day, which is counted in every time zone only from then).
    measure: 'compliance',
    from: 'ed',
    havingNum: false,
    edges: `select bucket, earliest >= ed as num, 1 as den from (
        select w.bucket as bucket, w.ed as ed, (${earliestDueAt('p.id', 'w.ed')}) as earliest
          from w cross join pets p on p.location_id = w.loc and p.created_at >= w.ed and p.created_at < w.e)
        where earliest is not null`,
  },
};

/** The statements stateTallies replaced (one read of the later days per window): the reference the test compares it with. */
export const stateSql: Partial<Record<MetricName, string>> = {
  active_pets: `${windows}
    select bucket, '' as key, sum(num) as num, 0 as den from (
      select w.bucket as bucket, d.num as num from w cross join analytics_daily d on d.location_id = w.loc and d.measure = 'pets' and d.day = ''
      union all select w.bucket, -d.num from w cross join analytics_daily d on d.location_id = w.loc and d.measure = 'pets' and d.day >= w.dc and d.key = ''
      union all select w.bucket, -1 from w cross join pets p on p.location_id = w.loc and p.created_at >= w.e and p.created_at < w.c)
    group by bucket having sum(num) > 0`,
  invoices_open: `${windows}
    select bucket, '' as key, sum(num) as num, 0 as den from (
      select w.bucket as bucket, d.num as num from w cross join analytics_daily d on d.location_id = w.loc and d.measure = 'invoices_open' and d.day = ''
      union all select w.bucket, -d.num from w cross join analytics_daily d on d.location_id = w.loc and d.measure = 'invoices_open' and d.day >= w.dc
      union all select w.bucket, -1 from w cross join invoices i on i.location_id = w.loc and i.finalized_at >= w.e and i.finalized_at < w.c
      union all select w.bucket, 1 from w cross join invoices i on i.location_id = w.loc and i.finalized_at is not null
        and ${closedAtOf('i')} >= w.e and ${closedAtOf('i')} < w.c)
    group by bucket having sum(num) > 0`,
  vaccination_compliance_rate: `${windows}
    select bucket, '' as key, sum(num) as num, sum(den) as den from (
      select w.bucket as bucket, d.num as num, d.den as den
        from w cross join analytics_daily d on d.location_id = w.loc and d.measure = 'compliance' and d.day = ''
      union all select w.bucket, -d.num, -d.den
        from w cross join analytics_daily d on d.location_id = w.loc and d.measure = 'compliance' and d.day >= w.ed
        where not (d.key = 'ge' and d.day = w.ed)
      union all select bucket, earliest >= ed, 1 from (
        select w.bucket as bucket, w.ed as ed, (${earliestDueAt('p.id', 'w.ed')}) as earliest
          from w cross join pets p on p.location_id = w.loc and p.created_at >= w.ed and p.created_at < w.e)
        where earliest is not null)
    group by bucket having sum(den) > 0`,
};

interface DayRow {
  location_id: string;
  day: string;
  key: string;
  num: number;
  den: number;
}

/** One location's later days: each day, and from it on, the sums of every row and of the rows of key 'ge' on that day. */
interface Suffixes {
  days: string[];
  num: number[];
  den: number[];
  geNum: number[];
  geDen: number[];
}

function suffixesOf(rows: readonly DayRow[]): Suffixes {
  const out: Suffixes = { days: [], num: [], den: [], geNum: [], geDen: [] };
  for (const row of rows) {
    let i = out.days.length - 1;
    if (i < 0 || out.days[i] !== row.day) {
      out.days.push(row.day);
      out.num.push(0);
      out.den.push(0);
      out.geNum.push(0);
      out.geDen.push(0);
      i++;
    }
    out.num[i]! += row.num;
    out.den[i]! += row.den;
    if (row.key === 'ge') {
      out.geNum[i]! += row.num;
      out.geDen[i]! += row.den;
    }
  }
  for (let i = out.days.length - 2; i >= 0; i--) {
    out.num[i]! += out.num[i + 1]!;
    out.den[i]! += out.den[i + 1]!;
  }
  return out;
}

/** The first index whose day is at or after `day` (days.length when none). */
function firstAtOrAfter(days: readonly string[], day: string): number {
  let lo = 0;
  let hi = days.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (days[mid]! < day) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A state metric's tallies (see StateMetric): one read of the aggregates, the suffix sums in memory, and the edges' statement. */
export async function stateTallies(
  reads: Reads,
  spec: StateMetric,
  windowRows: readonly WindowRow[],
): Promise<Array<{ bucket: string; key: string; num: number; den: number }>> {
  const rows = windowRows;
  if (rows.length === 0) return [];
  const text = aggregateWindowsText(rows);
  const threshold = spec.from === 'dc' ? (w: WindowRow) => ceilDate(w[3]) : (w: WindowRow) => w[5];
  const locations = [...new Set(rows.map((w) => w[0]))];
  let since = threshold(rows[0]!);
  for (const w of rows) {
    const day = threshold(w);
    if (day < since) since = day;
  }
  const inLocations = locations.map(() => '?').join(', ');
  const keyCondition = spec.key === undefined ? '' : ' and key = ?';
  const totals = (await reads(
    `select location_id, sum(num) as num, sum(den) as den from analytics_daily where location_id in (${inLocations}) and measure = ? and day = '' group by location_id`,
    [...locations, spec.measure],
  )) as Array<{ location_id: string; num: number; den: number }>;
  const later = (await reads(
    `select location_id, day, key, num, den from analytics_daily where location_id in (${inLocations}) and measure = ? and day >= ?${keyCondition}
      order by location_id, day, key`,
    [...locations, spec.measure, since, ...(spec.key === undefined ? [] : [spec.key])],
  )) as DayRow[];
  const byLocation = new Map<string, DayRow[]>();
  for (const row of later) {
    const list = byLocation.get(row.location_id);
    if (list) list.push(row);
    else byLocation.set(row.location_id, [row]);
  }
  const suffixes = new Map([...byLocation].map(([location, list]) => [location, suffixesOf(list)]));
  const total = new Map(totals.map((t) => [t.location_id, t]));
  const sums = new Map<string, { num: number; den: number }>();
  const add = (bucket: string, num: number, den: number) => {
    const sum = sums.get(bucket);
    if (sum) {
      sum.num += num;
      sum.den += den;
    } else sums.set(bucket, { num, den });
  };
  for (const w of rows) {
    const t = total.get(w[0]);
    let num = t?.num ?? 0;
    let den = t?.den ?? 0;
    const s = suffixes.get(w[0]);
    if (s !== undefined) {
      const day = threshold(w);
      const i = firstAtOrAfter(s.days, day);
      if (i < s.days.length) {
        num -= s.num[i]!;
        den -= s.den[i]!;
        if (spec.from === 'ed' && s.days[i] === day) {
          num += s.geNum[i]!;
          den += s.geDen[i]!;
        }
      }
    }
    add(w[1], num, den);
  }
  for (const edge of (await reads(`${windows} select bucket, sum(num) as num, sum(den) as den from (${spec.edges}) group by bucket`, [text])) as Array<{
    bucket: string;
    num: number;
    den: number;
  }>)
    add(edge.bucket, edge.num, edge.den);
  const out: Array<{ bucket: string; key: string; num: number; den: number }> = [];
  for (const [bucket, sum] of sums)
    if (spec.havingNum ? sum.num > 0 : sum.den > 0) out.push({ bucket, key: '', num: sum.num, den: spec.havingNum ? 0 : sum.den });
  return out;
}

/** How many pets the locations have now (of one species, lower-cased, when given): the running totals, not a count of every pet. */
export async function petCount(db: Executor, access: AccessFilter, locationIds: readonly string[], species: string | null): Promise<number> {
  if (locationIds.length === 0) return 0;
  let query = scoped(db, access)
    .selectFrom('analytics_daily')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('num'), eb.lit(0)).as('n'))
    .where('location_id', 'in', locationIds)
    .where('measure', '=', 'pets')
    .where('day', '=', '');
  if (species !== null) query = query.where('key', '=', species);
  return Number((await query.executeTakeFirst())?.n ?? 0);
}

/**
 * Every pet's compliance events at once (the triggers compute one pet's the same way, migration
 * 2026_11_26_1910): per date a dose was given, the pet's earliest due date then; it counts from that
 * date (or from the day after its UTC creation day) until the next such date, and is compliant
 * until the due date. `LIMIT -1` keeps each dose date's earliest-due walk from being copied into
 * every expression that reads it.
 */
const complianceEvents = `select g.pet_id as pet_id, g.tenant_id as tenant_id, g.location_id as location_id,
      case t.n when 2 then g.nxt when 4 then g.ub else g.la end as day,
      case t.n when 2 then 'ge' when 4 then g.uk else g.lk end as key,
      case t.n when 3 then 1 when 4 then -1 else 0 end as num,
      case t.n when 1 then 1 when 2 then -1 else 0 end as den
    from (select s.*,
            case when s.nxt is null or s.e < s.nxt then s.e else s.nxt end as ub,
            case when s.nxt is null or s.e < s.nxt then 'gt' else 'ge' end as uk
          from (select p.id as pet_id, p.tenant_id as tenant_id, p.location_id as location_id, x.nxt as nxt,
                  case when x.d > substr(p.created_at, 1, 10) then x.d else substr(p.created_at, 1, 10) end as la,
                  case when x.d > substr(p.created_at, 1, 10) then 'ge' else 'gt' end as lk,
                  (${earliestDueAt('p.id', 'x.d')}) as e
                from pets p, (select pet_id, d, lead(d) over (partition by pet_id order by d) as nxt
                              from (select distinct pet_id, administered_on as d from vaccinations where tenant_id = ?)) x
                where p.id = x.pet_id limit -1) s
          where s.e is not null limit -1) g,
      (select 1 as n union all select 2 union all select 3 union all select 4) t
    where case t.n
      when 1 then g.nxt is null or g.nxt > g.la
      when 2 then g.nxt is not null and g.nxt > g.la
      else g.ub > g.la or (g.ub = g.la and g.uk = 'gt') end`;

/** The statements that rebuild one tenant's aggregates from its records, each taking the tenant id (`?`) as often as it has them. */
const rebuildSql = [
  `select location_id, 'revenue' as measure, substr(created_at, 1, 10) as day, currency as key, amount as num, 1 as den from payments where tenant_id = ?
    union all select location_id, 'revenue', substr(created_at, 1, 10), currency, -amount, 1 from refunds where tenant_id = ?`,
  `select location_id, 'appointments' as measure, substr(starts_at, 1, 10) as day, status as key, 1 as num, 0 as den from appointments where tenant_id = ?`,
  `select location_id, 'grooming' as measure, substr(starts_at, 1, 10) as day, '' as key, 1 as num, 0 as den from bookings
    where tenant_id = ? and kind = 'grooming' and status = 'completed'`,
  `select location_id, 'pets' as measure, substr(created_at, 1, 10) as day, '' as key, 1 as num, 0 as den from pets where tenant_id = ?
    union all select location_id, 'pets', '', lower(species), 1, 0 from pets where tenant_id = ?`,
  `select location_id, 'invoices_open' as measure, substr(finalized_at, 1, 10) as day, '' as key, 1 as num, 0 as den from invoices i
      where tenant_id = ? and finalized_at is not null
    union all select location_id, 'invoices_open', '', '', 1, 0 from invoices where tenant_id = ? and finalized_at is not null
    union all select location_id, 'invoices_open', substr(${closedAtOf('i')}, 1, 10), '', -1, 0 from invoices i
      where tenant_id = ? and finalized_at is not null and ${closedAtOf('i')} <> '~'
    union all select location_id, 'invoices_open', '', '', -1, 0 from invoices i where tenant_id = ? and finalized_at is not null and ${closedAtOf('i')} <> '~'`,
  `select o.location_id as location_id, 'commission' as measure, substr(c.created_at, 1, 10) as day, c.currency as key, c.commission as num, 1 as den
    from marketplace_commission_lines c join marketplace_orders o on o.id = c.order_id where c.tenant_id = ?`,
  `select e.location_id as location_id, 'compliance' as measure, case when t.n = 2 then '' else j.value->>0 end as day, j.value->>1 as key,
      j.value->>2 as num, j.value->>3 as den
    from analytics_pet_events e, json_each(e.events) j, (select 1 as n union all select 2) t where e.tenant_id = ?`,
];

/**
 * Rebuilds a tenant's aggregates from its records (the `analytics-rebuild` job; the triggers keep
 * them, so this only repairs what a write around the triggers did). In the caller's transaction.
 */
export async function rebuildDailyAggregates(db: Executor, tenantId: string): Promise<number> {
  const tenant = scoped(db, { tenantId, locationIds: null });
  await tenant.deleteFrom('analytics_daily').execute();
  await tenant.deleteFrom('analytics_pet_events').execute();
  // Statements over several tables at once: each names the tenant in every part.
  const tenantDb = acrossTenants(db, 'the rebuild reads and writes one tenant, whose id each statement names');
  await runStatement(
    tenantDb,
    `insert into analytics_pet_events (pet_id, tenant_id, location_id, events)
      select pet_id, tenant_id, location_id, json_group_array(json_array(day, key, num, den)) from (${complianceEvents}) group by pet_id`,
    [tenantId],
  );
  let rows = 0;
  for (const select of rebuildSql) {
    const parameters = Array.from({ length: select.split('?').length - 1 }, () => tenantId);
    rows += await runStatement(
      tenantDb,
      `insert into analytics_daily (tenant_id, location_id, measure, day, key, num, den)
        select ?, location_id, measure, day, key, sum(num), sum(den) from (${select})
        group by location_id, measure, day, key having sum(num) <> 0 or sum(den) <> 0`,
      [tenantId, ...parameters],
    );
  }
  return rows;
}
