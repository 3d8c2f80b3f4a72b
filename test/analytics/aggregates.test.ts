import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { DateTime } from 'luxon';
import { registerAccessPolicies } from '../../src/db/access-policy.js';
import { openDatabase, selectRows, type DatabaseHandle } from '../../src/db/database.js';
import { idOf } from '../../src/db/ids.js';
import { attachReadPool, type ReadPool } from '../../src/db/read-pool.js';
import { seriesCsv } from '../../src/modules/analytics/analytics.presenter.js';
import { metricSeries, metricSummary } from '../../src/modules/analytics/analytics.service.js';
import { migrateToLatest } from '../../src/db/migrator.js';
import { aggregateWindowsText, earliestDueAt, rebuildDailyAggregates, stateSql } from '../../src/modules/analytics/analytics-daily.repository.js';
import { recordRows, referenceTallies, tallies, type RecordRow, type TallyRow } from '../../src/modules/analytics/analytics.repository.js';
import { metricNames, type MetricName } from '../../src/modules/analytics/analytics.schema.js';
import { analyticsModule, petCount } from '../../src/modules/analytics/index.js';
import { bucketsOf, windowRows, type ScopeLocation } from '../../src/modules/analytics/metric-windows.js';
import { prng } from '../helpers/prng.js';

/**
 * The metrics read from the daily aggregates (analytics_daily, kept by triggers) against their
 * definitions read from the records (referenceTallies), on random records: time zones from −12 to
 * +14 with half- and quarter-hour offsets and DST, instants on and beside local and UTC midnights,
 * several currencies, refunds, status changes, moves between locations, deletes and a money
 * erasure; then the rebuild job's rows against the ones the triggers kept. Seeded, so a failure
 * repeats.
 */

const zones = ['UTC', 'Pacific/Kiritimati', 'Etc/GMT+12', 'Asia/Kathmandu', 'America/St_Johns', 'Europe/London', 'Australia/Lord_Howe', 'America/New_York'];
const currencies = ['USD', 'EUR', 'JPY'];
const statuses = ['scheduled', 'confirmed', 'completed', 'no_show', 'cancelled'];
const start = Date.parse('2025-12-20T00:00:00.000Z');
const span = 120 * 86_400_000;

class World {
  private n = 0;
  readonly locations: ScopeLocation[] = [];
  constructor(
    readonly db: DatabaseHandle,
    readonly random: () => number,
  ) {}
  id(prefix: string): string {
    this.n++;
    return `${prefix}_${String(this.n).padStart(8, '0')}`;
  }
  /** An id as newId makes it at `at` (ms): appointments' records pages rely on the time inside it. */
  idAt(prefix: string, at: number): string {
    this.n++;
    return idOf(prefix, at, this.n, 0);
  }
  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.random() * list.length)] as T;
  }
  int(n: number): number {
    return Math.floor(this.random() * n);
  }
  /** An instant in the range; often a local or UTC midnight, or a millisecond beside one. */
  instant(): string {
    const base = start + this.int(span);
    const r = this.random();
    if (r < 0.5) return new Date(base).toISOString();
    const zone = r < 0.75 ? this.pick(this.locations).timezone : 'UTC';
    const midnight = DateTime.fromMillis(base, { zone }).startOf('day').toMillis();
    return new Date(midnight + this.pick([0, 0, -1, 1])).toISOString();
  }
  date(): string {
    return this.instant().slice(0, 10);
  }
  run(text: string, ...parameters: unknown[]): void {
    this.db.sqlite.prepare(text).run(...parameters);
  }
  ids(table: string, tenantId: string): string[] {
    return (this.db.sqlite.prepare(`select id from ${table} where tenant_id = ? order by id`).all(tenantId) as Array<{ id: string }>).map((r) => r.id);
  }
}

function seedTenant(w: World, tenantId: string): void {
  const now = '2025-12-01T00:00:00.000Z';
  w.run('insert into tenants (id, name, created_at) values (?, ?, ?)', tenantId, tenantId, now);
  const mine: ScopeLocation[] = [];
  for (const timezone of zones) {
    const location = { id: w.id('loc'), timezone, currency: w.pick(currencies) };
    w.run(
      'insert into locations (id, tenant_id, name, timezone, created_at, updated_at, currency) values (?, ?, ?, ?, ?, ?, ?)',
      location.id,
      tenantId,
      location.id,
      timezone,
      now,
      now,
      location.currency,
    );
    mine.push(location);
  }
  w.locations.push(...mine);
  const loc = () => w.pick(mine).id;
  const pets: string[] = [];
  for (let i = 0; i < 120; i++) {
    const id = w.id('pet');
    pets.push(id);
    w.run(
      'insert into pets (id, tenant_id, location_id, owner_id, name, breed, species, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      id,
      tenantId,
      loc(),
      'par_x',
      'Rex',
      'mixed',
      w.pick(['Dog', 'dog', 'Cat', 'rabbit']),
      w.instant(),
      now,
    );
  }
  for (let i = 0; i < 260; i++) {
    const pet = w.pick(pets);
    const given = w.date();
    const due =
      w.random() < 0.2
        ? given
        : DateTime.fromISO(given)
            .plus({ days: w.int(90) - 10 })
            .toISODate();
    w.run(
      `insert into vaccinations (id, tenant_id, location_id, pet_id, vaccine, vaccine_key, administered_on, due_on, recorded_by_client_id, recorded_by_role, created_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, 'cli_x', 'doctor', ?)`,
      w.id('vac'),
      tenantId,
      loc(),
      pet,
      'v',
      w.pick(['rabies', 'dhpp', 'lepto']),
      given,
      due,
      now,
    );
  }
  // When each appointment was made (its id's time), drawn from a generator of its own so the other draws stay those the seeds were chosen for.
  const booking = prng(tenantId.charCodeAt(4));
  for (let i = 0; i < 300; i++) {
    const at = w.instant();
    // Booked up to 30 days ahead, or (a quarter) recorded up to 10 days after it started (an import).
    const made = Date.parse(at) + Math.floor((booking() < 0.75 ? -30 : 10) * 86_400_000 * booking());
    w.run(
      `insert into appointments (id, tenant_id, location_id, pet_id, provider_id, type, status, starts_at, ends_at, created_at, updated_at, blocked_from, blocked_until, calendar_token)
       values (?, ?, ?, ?, 'prv_x', 'checkup', ?, ?, ?, ?, ?, ?, ?, 'tok')`,
      w.idAt('apt', made),
      tenantId,
      loc(),
      w.pick(pets),
      w.pick(statuses),
      at,
      at,
      now,
      now,
      at,
      at,
    );
  }
  for (let i = 0; i < 120; i++) {
    const at = w.instant();
    w.run(
      `insert into bookings (id, tenant_id, kind, status, pet_id, parent_id, location_id, starts_at, ends_at, amount, currency, created_at, updated_at)
       values (?, ?, 'grooming', ?, ?, 'par_x', ?, ?, ?, 0, 'USD', ?, ?)`,
      w.id('bkg'),
      tenantId,
      w.pick(['reserved', 'completed', 'cancelled']),
      w.pick(pets),
      loc(),
      at,
      '2099-01-01T00:00:00.000Z',
      now,
      now,
    );
  }
  for (let i = 0; i < 200; i++) {
    const id = w.id('pay');
    const location = loc();
    const currency = w.pick(currencies);
    const amount = 1 + w.int(5000);
    w.run(
      `insert into payments (id, tenant_id, location_id, parent_id, amount, currency, method, status, created_at) values (?, ?, ?, 'par_x', ?, ?, 'cash', 'succeeded', ?)`,
      id,
      tenantId,
      location,
      amount,
      currency,
      w.instant(),
    );
    if (w.random() < 0.3)
      w.run(
        `insert into refunds (id, tenant_id, location_id, payment_id, amount, currency, status, created_at) values (?, ?, ?, ?, ?, ?, 'succeeded', ?)`,
        w.id('ref'),
        tenantId,
        location,
        id,
        // Sometimes the whole payment: a currency whose records net to 0 still answers.
        w.random() < 0.3 ? amount : 1 + w.int(amount),
        currency,
        w.instant(),
      );
  }
  for (let i = 0; i < 150; i++) {
    const finalized = w.random() < 0.85 ? w.instant() : null;
    const closing = finalized === null ? null : w.pick(['open', 'paid', 'void', 'uncollectible', 'uncollectible_paid']);
    // A closing instant may fall before the finalizing one (the metric's conditions allow it).
    const at = () => (w.random() < 0.1 ? w.instant() : new Date(Date.parse(finalized ?? '') + w.int(20 * 86_400_000)).toISOString());
    const paidAt = closing === 'paid' || closing === 'uncollectible_paid' ? at() : null;
    const voidedAt = closing === 'void' ? at() : null;
    const uncollectibleAt = closing === 'uncollectible' || closing === 'uncollectible_paid' ? at() : null;
    const status = closing === null ? 'draft' : closing === 'uncollectible_paid' ? 'paid' : closing;
    w.run(
      `insert into invoices (id, tenant_id, location_id, parent_id, number, status, currency, subtotal, tax, total, created_at, updated_at, finalized_at, paid_at, voided_at, uncollectible_at)
       values (?, ?, ?, 'par_x', ?, ?, 'USD', 0, 0, 0, ?, ?, ?, ?, ?, ?)`,
      w.id('inv'),
      tenantId,
      loc(),
      finalized === null ? null : w.id('n'),
      status,
      now,
      now,
      finalized,
      paidAt,
      voidedAt,
      uncollectibleAt,
    );
  }
}

/** Rows only the records list reads from (boarding stays and rooms, marketplace orders with lines and commission lines). */
function seedRecordSources(w: World, tenantId: string): void {
  const now = '2025-12-01T00:00:00.000Z';
  const mine = w.locations.filter((l) => w.ids('locations', tenantId).includes(l.id));
  const loc = () => w.pick(mine).id;
  const pets = w.ids('pets', tenantId);
  for (let i = 0; i < 6; i++)
    w.run(
      `insert into boarding_rooms (id, tenant_id, location_id, name, room_type, capacity, species, nightly_rate, currency, active, created_at, updated_at)
       values (?, ?, ?, 'room', 'standard', ?, 'dog', 100, 'USD', ?, ?, ?)`,
      w.id('room'),
      tenantId,
      loc(),
      1 + w.int(4),
      w.random() < 0.8 ? 1 : 0,
      now,
      now,
    );
  for (let i = 0; i < 60; i++) {
    const id = w.id('bkg');
    const location = loc();
    const checkIn = w.date();
    const checkOut = DateTime.fromISO(checkIn)
      .plus({ days: 1 + w.int(10) })
      .toISODate() as string;
    w.run(
      `insert into bookings (id, tenant_id, kind, status, pet_id, parent_id, location_id, starts_at, ends_at, amount, currency, created_at, updated_at)
       values (?, ?, 'boarding', ?, ?, 'par_x', ?, ?, ?, 0, 'USD', ?, ?)`,
      id,
      tenantId,
      w.pick(['reserved', 'checked_in', 'checked_out', 'cancelled']),
      w.pick(pets),
      location,
      `${checkIn}T12:00:00.000Z`,
      `${checkOut}T12:00:00.000Z`,
      now,
      now,
    );
    w.run(
      `insert into boarding_stays (booking_id, tenant_id, location_id, room_type, species, check_in_on, check_out_on, nights) values (?, ?, ?, 'standard', 'dog', ?, ?, ?)`,
      id,
      tenantId,
      location,
      checkIn,
      checkOut,
      Math.round((Date.parse(checkOut) - Date.parse(checkIn)) / 86_400_000),
    );
  }
  for (let i = 0; i < 40; i++) {
    const order = w.id('ord');
    const paidAt = w.random() < 0.8 ? w.instant() : null;
    const currency = w.pick(currencies);
    w.run(
      `insert into marketplace_orders (id, tenant_id, location_id, parent_id, pet_id, status, currency, subtotal, tax, total, invoice_id, created_at, updated_at, paid_at)
       values (?, ?, ?, 'par_x', ?, ?, ?, 0, 0, 0, ?, ?, ?, ?)`,
      order,
      tenantId,
      loc(),
      w.pick(pets),
      paidAt === null ? 'pending_payment' : 'paid',
      currency,
      w.id('inv'),
      now,
      now,
      paidAt,
    );
    for (let position = 1; position <= 1 + w.int(2); position++) {
      const line = w.id('oln');
      const amount = 100 + w.int(5000);
      w.run(
        `insert into marketplace_order_lines (id, tenant_id, order_id, position, provider_id, listing_id, listing_name, category, booking_id, starts_at, ends_at, amount, tax_rate_bps, currency, commission_bps, commission_amount)
         values (?, ?, ?, ?, 'prv_x', 'lst_x', 'walk', 'walking', ?, ?, ?, ?, 0, ?, 1000, 0)`,
        line,
        tenantId,
        order,
        position,
        w.id('bkg'),
        now,
        '2099-01-01T00:00:00.000Z',
        amount,
        currency,
      );
      if (paidAt === null) continue;
      w.run(
        `insert into marketplace_commission_lines (id, tenant_id, order_id, order_line_id, provider_id, kind, gross, rate_bps, commission, currency, status, created_at)
         values (?, ?, ?, ?, 'prv_x', 'sale', ?, 1000, ?, ?, 'accrued', ?)`,
        w.id('cml'),
        tenantId,
        order,
        line,
        amount,
        Math.round(amount / 10),
        currency,
        w.random() < 0.5 ? paidAt : w.instant(),
      );
    }
  }
}

/** Status changes, moves, re-dating, deletes and (once) a money erasure, as the modules would make them. */
function mutate(w: World, tenantId: string, erase: boolean): void {
  const locations = w.ids('locations', tenantId);
  for (const id of w.ids('appointments', tenantId)) {
    const r = w.random();
    if (r < 0.2) w.run('update appointments set status = ? where id = ?', w.pick(statuses), id);
    else if (r < 0.25) w.run('update appointments set starts_at = ?, location_id = ? where id = ?', w.instant(), w.pick(locations), id);
    else if (r < 0.28) w.run('delete from appointments where id = ?', id);
  }
  for (const id of w.ids('bookings', tenantId))
    if (w.random() < 0.3) w.run('update bookings set status = ? where id = ?', w.pick(['completed', 'cancelled']), id);
  for (const id of w.ids('vaccinations', tenantId)) {
    const r = w.random();
    if (r < 0.1) w.run('delete from vaccinations where id = ?', id);
    else if (r < 0.2) w.run('update vaccinations set administered_on = ?, due_on = ? where id = ?', w.date(), w.date(), id);
    else if (r < 0.25) w.run('update vaccinations set pet_id = ? where id = ?', w.pick(w.ids('pets', tenantId)), id);
  }
  for (const id of w.ids('pets', tenantId)) {
    const r = w.random();
    if (r < 0.1) w.run('update pets set location_id = ? where id = ?', w.pick(locations), id);
    else if (r < 0.13) w.run('update pets set species = ? where id = ?', w.pick(['Dog', 'ferret']), id);
    else if (r < 0.16) {
      w.run('delete from vaccinations where pet_id = ?', id);
      w.run('delete from pets where id = ?', id);
    }
  }
  for (const row of w.db.sqlite.prepare("select id, status from invoices where tenant_id = ? and status in ('open', 'uncollectible')").all(tenantId) as Array<{
    id: string;
    status: string;
  }>) {
    if (w.random() < 0.5) continue;
    const next = row.status === 'uncollectible' ? 'paid' : w.pick(['paid', 'void', 'uncollectible']);
    const column = next === 'paid' ? 'paid_at' : next === 'void' ? 'voided_at' : 'uncollectible_at';
    w.run(`update invoices set status = ?, ${column} = ? where id = ?`, next, w.instant(), row.id);
  }
  // Marketplace orders moved to another location take their commission lines along; some lines go
  // (drawn from a generator of their own, so the other draws stay those the seeds were chosen for).
  const own = prng(tenantId.length + locations.length);
  for (const id of w.ids('marketplace_orders', tenantId))
    if (own() < 0.15) w.run('update marketplace_orders set location_id = ? where id = ?', locations[Math.floor(own() * locations.length)], id);
  for (const id of w.ids('marketplace_commission_lines', tenantId)) if (own() < 0.1) w.run('delete from marketplace_commission_lines where id = ?', id);
  if (erase) {
    w.run("insert into money_erasures (tenant_id, reason) values (?, 'test')", tenantId);
    w.run('delete from refunds where tenant_id = ?', tenantId);
    w.run("delete from payments where tenant_id = ? and substr(id, -1) in ('1', '3', '5', '7', '9')", tenantId);
    w.run('delete from invoices where tenant_id = ? and status = ?', tenantId, 'void');
    w.run('delete from money_erasures where tenant_id = ?', tenantId);
  }
}

const sorted = (rows: readonly TallyRow[]) =>
  [...rows].map((r) => ({ ...r })).sort((a, b) => (a.bucket + a.key < b.bucket + b.key ? -1 : a.bucket + a.key > b.bucket + b.key ? 1 : 0));

/** Every metric over random windows (whole tenant, one location; a single bucket, days, weeks, months): the aggregates answer what the definitions do. */
async function compareAll(t: import('ava').ExecutionContext, w: World, tenantId: string, rounds: number): Promise<void> {
  const all = await selectRows<ScopeLocation>(w.db.db, 'select id, timezone, currency from locations where tenant_id = ? order by id', [tenantId]);
  for (let i = 0; i < rounds; i++) {
    const a = DateTime.fromMillis(start + w.int(span), { zone: 'utc' }).minus({ days: 5 });
    const from = a.toISODate() as string;
    const to = a.plus({ days: w.pick([0, 1, 2, 6, 30, 75, 140]) }).toISODate() as string;
    const scope = w.random() < 0.3 ? [w.pick(all)] : all;
    const interval = w.pick([null, null, 'day', 'week', 'month'] as const);
    const windows = windowRows(scope, bucketsOf(from, to, interval));
    for (const name of metricNames as readonly MetricName[]) {
      const expected = sorted(await referenceTallies(w.db.db, name, tenantId, windows));
      const actual = sorted(await tallies(w.db.db, name, tenantId, windows));
      t.deepEqual(actual, expected, `${name} ${from}..${to} ${interval ?? 'range'} ${scope.length === 1 ? scope[0]?.timezone : 'all'}`);
    }
  }
}

/**
 * The records behind each metric as the definition reads them: every row of each window, sorted
 * by id (the statements the records list ran before it merged index walks). The list's pages,
 * followed to the end, must give exactly these rows in this order.
 */
const recordColumns = (type: string, id: string, at: string, location: string, amount: string, currency: string, status: string, counted: string): string =>
  `select '${type}' as source_type, ${id} as id, ${at} as occurred_at, ${location} as location_id, ${amount} as amount, ${currency} as currency, ${status} as status, ${counted} as counted`;

/** The rows behind each metric over one window per location (same joins as the tallies). */
const referenceRecordSql: Record<MetricName, string> = {
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

const recordWindows = `with w(loc, bucket, s, e, sd, ed) as materialized (
  select value->>0, value->>1, value->>2, value->>3, value->>4, value->>5 from json_each(?))`;

async function compareRecords(t: import('ava').ExecutionContext, w: World, tenantId: string, rounds: number): Promise<void> {
  const seen = new Set<string>();
  const all = await selectRows<ScopeLocation>(w.db.db, 'select id, timezone, currency from locations where tenant_id = ? order by id', [tenantId]);
  for (let i = 0; i < rounds; i++) {
    const a = DateTime.fromMillis(start + w.int(span), { zone: 'utc' }).minus({ days: 5 });
    const from = a.toISODate() as string;
    const to = a.plus({ days: w.pick([0, 1, 6, 30, 140]) }).toISODate() as string;
    const scope = w.random() < 0.3 ? [w.pick(all)] : all;
    const windows = windowRows(scope, bucketsOf(from, to, null));
    const limit = w.pick([1, 3, 7, 50]);
    for (const name of metricNames as readonly MetricName[]) {
      const money = ['revenue_net', 'marketplace_gmv', 'commission_earned'].includes(name);
      const currency = money ? w.pick(currencies) : undefined;
      const parameters: unknown[] = [JSON.stringify(windows)];
      if (name === 'grooming_completed') parameters.push(tenantId);
      const expected = await selectRows<RecordRow>(
        w.db.db,
        `${recordWindows} select * from (${referenceRecordSql[name]})${currency ? ' where currency = ?' : ''} order by id desc`,
        currency ? [...parameters, currency] : parameters,
      );
      const actual: RecordRow[] = [];
      let afterId: string | undefined;
      for (;;) {
        const page = await recordRows(w.db.db, name, tenantId, windows, { limit, afterId }, currency);
        actual.push(...page.slice(0, limit));
        if (page.length <= limit) break;
        afterId = page[limit - 1]?.id;
      }
      if (expected.length > limit) seen.add(name);
      t.deepEqual(actual, expected, `records of ${name} ${from}..${to} ${scope.length === 1 ? scope[0]?.timezone : 'all'} by ${limit}`);
    }
  }
  // Most metrics had more than one page in some round (the comparison was not of empty lists).
  t.true(seen.size >= metricNames.length - 3, [...seen].join(', '));
}

/**
 * The state metrics (open invoices, pets, compliance) as a series by day over the whole span and
 * beyond (their suffix sums are read once for every bucket): equal to the definitions, and to the
 * statements that read the later days once per bucket (stateSql).
 */
async function compareStateSeries(t: import('ava').ExecutionContext, w: World, tenantId: string): Promise<void> {
  const all = await selectRows<ScopeLocation>(w.db.db, 'select id, timezone, currency from locations where tenant_id = ? order by id', [tenantId]);
  const from = new Date(start - 3 * 86_400_000).toISOString().slice(0, 10);
  const to = new Date(start + span + 40 * 86_400_000).toISOString().slice(0, 10);
  for (const scope of [all, [w.pick(all)]])
    for (const interval of ['day', 'week'] as const) {
      const windows = windowRows(scope, bucketsOf(from, to, interval));
      for (const [name, text] of Object.entries(stateSql) as Array<[MetricName, string]>) {
        const actual = sorted(await tallies(w.db.db, name, tenantId, windows));
        t.deepEqual(actual, sorted(await referenceTallies(w.db.db, name, tenantId, windows)), `${name} by ${interval}, definition`);
        t.deepEqual(actual, sorted(await selectRows<TallyRow>(w.db.db, text, [aggregateWindowsText(windows)])), `${name} by ${interval}, one read per bucket`);
      }
    }
}

/**
 * The summary, series and CSV as the API answers them, computed on the read pool's workers (the
 * figures' statements and sums run there: analytics-tasks.ts) and on this thread (in a transaction,
 * which reads through its own connection): byte for byte the same, tenant-wide and for one location.
 */
async function compareOffThread(t: import('ava').ExecutionContext, w: World, pool: ReadPool, tenantId: string, rounds: number): Promise<void> {
  const all = await selectRows<ScopeLocation>(w.db.db, 'select id, timezone, currency from locations where tenant_id = ? order by id', [tenantId]);
  const access = { tenantId, locationIds: null };
  const now = start + span;
  const ran = pool.queriesRun;
  for (let i = 0; i < rounds; i++) {
    const a = DateTime.fromMillis(start + w.int(span), { zone: 'utc' }).minus({ days: 5 });
    const from = a.toISODate() as string;
    const to = a.plus({ days: w.pick([0, 1, 6, 30, 75, 140]) }).toISODate() as string;
    const window = { from, to, ...(i % 2 === 1 ? { locationId: w.pick(all).id } : {}) };
    const here = <T>(work: (db: typeof w.db.db) => Promise<T>) => w.db.db.transaction().execute((trx) => work(trx as unknown as typeof w.db.db));
    t.is(
      JSON.stringify(await metricSummary(w.db.db, access, window, now)),
      JSON.stringify(await here((db) => metricSummary(db, access, window, now))),
      `summary ${from}..${to} ${window.locationId ?? 'all'}`,
    );
    for (const name of metricNames as readonly MetricName[])
      for (const interval of ['day', 'week', 'month'] as const) {
        // A money metric over several currencies answers 400 without one: each currency then.
        for (const currency of name === 'revenue_net' || name === 'marketplace_gmv' || name === 'commission_earned' ? currencies : [undefined]) {
          const asked = { ...window, ...(currency ? { currency } : {}) };
          const pooled = await metricSeries(w.db.db, access, name, asked, interval, now);
          const inline = await here((db) => metricSeries(db, access, name, asked, interval, now));
          t.is(JSON.stringify(pooled), JSON.stringify(inline), `${name} by ${interval} ${from}..${to} ${currency ?? ''}`);
          t.is(seriesCsv(pooled), seriesCsv(inline));
        }
      }
  }
  t.true(pool.queriesRun > ran, 'the pool computed them');
}

const aggregateRows = (w: World, tenantId: string) =>
  w.db.sqlite
    .prepare(
      'select location_id, measure, day, key, num, den from analytics_daily where tenant_id = ? and (num <> 0 or den <> 0) order by location_id, measure, day, key',
    )
    .all(tenantId);

// The app registers the manifests' policies when it is built; this test builds no app.
registerAccessPolicies('analytics', analyticsModule.access ?? {});

/** The AI agent's pet counts (running totals) against a count of the pets. */
async function comparePetCounts(t: import('ava').ExecutionContext, w: World, tenantId: string): Promise<void> {
  const locations = w.ids('locations', tenantId);
  for (const species of [null, 'dog', 'cat', 'rabbit', 'ferret', 'horse']) {
    for (const ids of [locations, locations.slice(0, 3), [locations[1] as string]]) {
      const placeholders = ids.map(() => '?').join(', ');
      const reference = w.db.sqlite
        .prepare(`select count(*) as n from pets where tenant_id = ? and location_id in (${placeholders})${species ? ' and lower(species) = ?' : ''}`)
        .get(tenantId, ...ids, ...(species ? [species] : [])) as { n: number };
      t.is(await petCount(w.db.db, { tenantId, locationIds: null }, ids, species), reference.n, `${species} ${ids.length}`);
    }
  }
}

const petEvents = (w: World, tenantId: string) =>
  w.db.sqlite.prepare('select pet_id, location_id, events from analytics_pet_events where tenant_id = ? order by pet_id').all(tenantId);

for (const seed of [1, 2, 3]) {
  test(`the aggregates answer what the records do (seed ${seed})`, async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'petcare-aggregates-'));
    const db = openDatabase(path.join(dir, 'live.sqlite'));
    try {
      await migrateToLatest(db.db);
      // Rows without their parents' rows (owners, providers): the metrics never read those.
      db.sqlite.pragma('foreign_keys = off');
      const w = new World(db, prng(seed));
      seedTenant(w, 'ten_a');
      seedTenant(w, 'ten_b');
      seedRecordSources(w, 'ten_a');
      seedRecordSources(w, 'ten_b');
      await compareAll(t, w, 'ten_a', 8);
      await compareRecords(t, w, 'ten_a', 4);
      mutate(w, 'ten_a', seed === 1);
      mutate(w, 'ten_b', false);
      await compareAll(t, w, 'ten_a', 8);
      await compareAll(t, w, 'ten_b', 4);
      await compareRecords(t, w, 'ten_a', 4);
      await compareStateSeries(t, w, 'ten_a');
      await comparePetCounts(t, w, 'ten_a');
      const pool = attachReadPool(db.db, path.join(dir, 'live.sqlite'))!;
      try {
        await compareOffThread(t, w, pool, 'ten_a', 3);
      } finally {
        await pool.close();
      }
      // The rebuild job computes what the triggers kept.
      const kept = aggregateRows(w, 'ten_a');
      const events = petEvents(w, 'ten_a');
      await db.db.transaction().execute((trx) => rebuildDailyAggregates(trx, 'ten_a'));
      t.deepEqual(aggregateRows(w, 'ten_a'), kept);
      t.deepEqual(petEvents(w, 'ten_a'), events);
    } finally {
      await db.db.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
