import test from 'ava';
import type SQLite from 'better-sqlite3';
import { idOf } from '../../src/db/ids.js';
import type { ReadPool } from '../../src/db/read-pool.js';
import { SecretBox } from '../../src/db/secret-box.js';
import { metricNames } from '../../src/modules/analytics/analytics.schema.js';
import { sealClearCalendarTokens } from '../../src/modules/appointments/appointments.repository.js';
import { createHousehold, createLocation } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';

/**
 * Flat reads at any size (issue 27.2): the SQL the hot lists and point reads actually run is
 * captured (every statement the live connection prepares while the route answers) and EXPLAINed;
 * a plan that sorts a big table in a temp B-tree, or scans one whole, fails. Without ANALYZE (the
 * appliance never runs it) SQLite plans the same way on an empty file as on a 10 GB one, so this
 * catches what the scale bench (`npm run bench:scale`) would show as a list that grows with history.
 */
const t = useTestApp(test, { jobs: false });

/** Tables that grow with a group's history: what must never be sorted or scanned whole per request. */
const bigTables = new Set([
  'pets',
  'pet_parents',
  'appointments',
  'vaccinations',
  'medical_records',
  'documents',
  'invoices',
  'invoice_lines',
  'payments',
  'refunds',
  'ledger_entries',
  'ledger_lines',
  'bookings',
  'boarding_stays',
  'grooming_appointments',
  'marketplace_orders',
  'marketplace_order_lines',
  'marketplace_commission_lines',
  'provider_reviews',
  'events',
  'audit_events',
  'notifications',
]);

/**
 * Statements (matched by `sql`) whose plan may read more than a page, each with why that is
 * acceptable (a substring search, say, which no B-tree serves). Keep the list short.
 */
const accepted: Array<{ sql: RegExp; why: string }> = [
  {
    sql: /select 'invoice' as source_type[\s\S]*invoices i indexed by invoices_location_closed_idx on i\.location_id/,
    why:
      "invoices_open's records: the invoices open at the window's end are few among all, so they are a range of invoices_location_closed_idx " +
      '(those open then or finalized since), sorted; a walk by id would step over every paid invoice to find them',
  },
  {
    sql: /from w cross join appointments a indexed by appointments_location_starts_idx/,
    why:
      "appointments' records: the window's rows made since an instant t, which start at or after t (a range of the window's last days, " +
      'sorted) or are in appointments_backdated_idx (walked by id); a walk by id from the newest stepped over every future booking. ' +
      'The test below checks this plan',
  },
];

interface PlanRow {
  id: number;
  parent: number;
  detail: string;
}

/** Statements the live connection prepares while `work` runs (the statement cache prepares each text once). */
async function capture(work: () => Promise<void>): Promise<string[]> {
  const sqlite = t.stores.get('live').sqlite as SQLite.Database & { prepare: SQLite.Database['prepare'] };
  const original = sqlite.prepare;
  const seen: string[] = [];
  sqlite.prepare = function (this: SQLite.Database, source: string) {
    seen.push(source);
    return original.call(this, source);
  } as SQLite.Database['prepare'];
  // Heavy reads run on the store's read pool (src/db/read-pool.ts): the same SQL, sent to a worker,
  // or run there by a task (analytics' figures), which reports each statement while this is set.
  const pool = t.stores.get('live').reads;
  const run = pool?.run;
  if (pool && run) {
    pool.run = function (this: ReadPool, source: string, parameters: readonly unknown[]) {
      seen.push(source);
      return run.call(this, source, parameters);
    };
    pool.taskStatements = (source) => seen.push(source);
  }
  try {
    await work();
  } finally {
    sqlite.prepare = original;
    if (pool && run) {
      pool.run = run;
      pool.taskStatements = null;
    }
  }
  return seen;
}

/** Placeholders outside string literals. */
const parameterCount = (source: string) => (source.replace(/'(?:[^']|'')*'/g, "''").match(/\?/g) ?? []).length;

function planOf(source: string): PlanRow[] {
  const sqlite = t.stores.get('live').sqlite;
  return sqlite.prepare(`EXPLAIN QUERY PLAN ${source}`).all(...new Array(parameterCount(source)).fill(null)) as PlanRow[];
}

/**
 * What is wrong with a plan: a sort of a big table's rows (temp B-tree for ORDER BY), a whole scan
 * of one, or a subquery list (`x IN (SELECT …)`, built whole before the outer row is tested) that
 * reads a big table by tenant alone: every pet of the group for one vaccination, say.
 */
function problemsOf(plan: PlanRow[]): string[] {
  const problems: string[] = [];
  const byId = new Map(plan.map((row) => [row.id, row]));
  const inList = (row: PlanRow): boolean => {
    for (let up = byId.get(row.parent); up; up = byId.get(up.parent)) if (/^LIST SUBQUERY/.test(up.detail)) return true;
    return false;
  };
  for (const row of plan) {
    if (/USE TEMP B-TREE FOR (ORDER BY|RIGHT PART OF ORDER BY|LAST TERM OF ORDER BY)/.test(row.detail)) problems.push(row.detail);
    const scan = /^SCAN (\w+)(?: AS \w+)?(?: USING (?:COVERING )?INDEX (\w+))?$/.exec(row.detail);
    if (scan && bigTables.has(scan[1]!)) problems.push(row.detail);
    const wide = /^SEARCH (\w+)(?: AS \w+)? USING (?:COVERING )?INDEX \w+ \((?:tenant_id=\?|tenant_id=\? AND location_id=\?|location_id=\?)\)$/.exec(
      row.detail,
    );
    if (wide && bigTables.has(wide[1]!) && inList(row)) problems.push(`${row.detail} (in a LIST SUBQUERY: every row of the tenant or location)`);
  }
  return problems;
}

const routes: string[] = [];
/** Tokens the routes are called with: the whole tenant (admin), a client confined to one location (a front desk) and one to two (a region). */
const tokens: Array<[who: string, token: string]> = [];
test.before(async () => {
  const admin = await t.adminToken();
  const { location, parent, pet } = await createHousehold(t);
  const other = await createLocation(t);
  const provider = await t.request('POST', '/v1/providers', { token: admin, body: { name: 'Plan vet', kind: 'vet', locationIds: [location.id] } });
  const vaccination = await t.request('POST', `/v1/pets/${pet.id}/vaccinations`, {
    token: admin,
    body: { vaccine: 'Rabies', administeredOn: '2026-01-05', dueOn: '2027-01-05' },
  });
  const desk = await t.client({
    name: 'plans desk',
    role: 'admin',
    scopes: ['pets', 'medical', 'bookings', 'payments', 'marketplace', 'analytics'],
    locationIds: [location.id],
  });
  const regional = await t.client({
    name: 'plans region',
    role: 'admin',
    scopes: ['pets', 'medical', 'bookings', 'payments', 'marketplace', 'analytics'],
    locationIds: [location.id, other.id],
  });
  tokens.push(['admin', admin], ['location-scoped', desk.accessToken], ['two-location', regional.accessToken]);
  const cursor = (prefix: string) => Buffer.from(JSON.stringify({ v: 1, id: `${prefix}_zzzzzzzzzz` })).toString('base64url');
  const deep = (path: string, prefix: string) => [path, `${path}${path.includes('?') ? '&' : '?'}cursor=${cursor(prefix)}`];
  routes.push(
    ...deep('/v1/pets', 'pet'),
    ...deep(`/v1/pets?locationId=${location.id}`, 'pet'),
    ...deep(`/v1/pets?ownerId=${parent.id}`, 'pet'),
    ...deep('/v1/pet-parents', 'usr'),
    ...deep(`/v1/pet-parents?locationId=${location.id}`, 'usr'),
    ...deep('/v1/appointments', 'apt'),
    ...deep(`/v1/appointments?locationId=${location.id}`, 'apt'),
    ...deep(`/v1/appointments?providerId=${provider.body.id}`, 'apt'),
    ...deep(`/v1/appointments?petId=${pet.id}`, 'apt'),
    ...deep('/v1/invoices', 'inv'),
    ...deep('/v1/invoices?status=open', 'inv'),
    ...deep(`/v1/invoices?locationId=${location.id}`, 'inv'),
    ...deep(`/v1/invoices?parentId=${parent.id}`, 'inv'),
    ...deep('/v1/payments', 'pay'),
    ...deep(`/v1/payments?parentId=${parent.id}`, 'pay'),
    ...deep('/v1/refunds', 'ref'),
    ...deep(`/v1/pets/${pet.id}/vaccinations`, 'vac'),
    ...deep(`/v1/pets/${pet.id}/medical`, 'med'),
    ...deep('/v1/boarding/bookings', 'bkg'),
    ...deep(`/v1/boarding/bookings?locationId=${location.id}`, 'bkg'),
    ...deep('/v1/grooming/appointments', 'bkg'),
    ...deep('/v1/orders', 'ord'),
    ...deep('/v1/providers/reviews', 'rev'),
    ...deep('/v1/ledger/entries', 'je'),
    `/v1/pets/${pet.id}`,
    `/v1/pet-parents/${parent.id}`,
    `/v1/vaccinations/${vaccination.body.id}`,
    '/v1/appointments/apt_0000000000000000000000000a',
    '/v1/invoices/inv_0000000000000000000000000a',
    '/v1/payments/pay_0000000000000000000000000a',
    '/v1/boarding/bookings/bkg_0000000000000000000000000a',
    '/v1/orders/ord_0000000000000000000000000a',
  );
  // The records behind each metric (a year, the tenant and one location): a page is a merge of
  // index walks, never a sort of the window's rows.
  for (const name of metricNames)
    for (const scope of ['', `&locationId=${location.id}`])
      routes.push(...deep(`/v1/analytics/metrics/${name}/records?from=2026-01-01&to=2026-12-31${scope}`, 'zzz'));
});

test('the hot lists and point reads neither sort nor scan a big table', async (tt) => {
  const report: string[] = [];
  const failures: string[] = [];
  for (const [who, token] of tokens)
    for (const route of routes) {
      let status = 0;
      const statements = await capture(async () => {
        status = (await t.request('GET', route, { token })).status;
      });
      if (status !== 200 && status !== 404) failures.push(`${who} ${route}: answered ${status}`);
      for (const source of statements) {
        if (!/^\s*(select|with)\b/i.test(source)) continue;
        const plan = planOf(source);
        const problems = problemsOf(plan).filter(() => !accepted.some((a) => a.sql.test(source)));
        report.push(`${who} ${route}\n  ${source}\n  ${plan.map((p) => p.detail).join('\n  ')}`);
        if (problems.length > 0) failures.push(`${who} ${route}: ${problems.join('; ')}\n    ${source}`);
      }
    }
  // The plans of every statement, to read beside a failure (quiet when all is well).
  if (failures.length > 0) tt.log(report.join('\n'));
  tt.deepEqual(failures, []);
});

test.serial("appointments' records read the window's last days by start and the backdated rows by id, never every future booking", async (tt) => {
  const admin = (tokens.find(([who]) => who === 'admin') ?? [])[1];
  // One appointment made (by its id) on 2026-06-01, so the read has a newest booking to start from.
  const live = t.stores.get('live').sqlite;
  const pet = live.prepare('select id, tenant_id, location_id from pets limit 1').get() as { id: string; tenant_id: string; location_id: string };
  const provider = live.prepare('select id from providers limit 1').get() as { id: string };
  const at = '2026-06-01T10:00:00.000Z';
  live
    .prepare(
      `insert into appointments (id, tenant_id, location_id, pet_id, provider_id, type, status, starts_at, ends_at, created_at, updated_at, blocked_from, blocked_until, calendar_token)
       values (?, ?, ?, ?, ?, 'vet_consultation', 'completed', ?, ?, ?, ?, ?, ?, 'sealed:plan')`,
    )
    .run(idOf('apt', Date.parse(at), 1, 1), pet.tenant_id, pet.location_id, pet.id, provider.id, at, at, at, at, at, at);
  for (const name of ['appointments_by_status', 'no_show_rate'])
    for (const cursor of ['', `&cursor=${Buffer.from(JSON.stringify({ v: 1, id: idOf('apt', Date.parse(at), 2, 2) })).toString('base64url')}`]) {
      const statements = await capture(async () => {
        tt.is((await t.request('GET', `/v1/analytics/metrics/${name}/records?from=2026-01-01&to=2026-06-01${cursor}`, { token: admin })).status, 200);
      });
      const recent = statements.filter((source) => source.includes('indexed by appointments_location_starts_idx'));
      tt.true(recent.length >= 1, `${name}${cursor}: the read of the rows made since an instant ran`);
      for (const source of recent) {
        const plan = planOf(source).map((p) => p.detail);
        const text = plan.join('\n');
        tt.true(
          plan.some((d) => /^SEARCH a USING INDEX appointments_location_starts_idx \(location_id=\? AND starts_at>\? AND starts_at<\?\)$/.test(d)),
          text,
        );
        tt.true(
          plan.some((d) => /^SEARCH a USING INDEX appointments_backdated_idx \(tenant_id=\? AND id>\?/.test(d)),
          text,
        );
        tt.false(
          plan.some((d) => /^SCAN a\b/.test(d)),
          text,
        );
      }
    }
});

test.serial('the housekeeping that seals clear calendar tokens reads only the rows its partial index holds', async (tt) => {
  const statements = await capture(async () => {
    await sealClearCalendarTokens(t.stores.get('live').db, SecretBox.ephemeral());
  });
  const seal = statements.filter((source) => source.includes("not like 'sealed:%'"));
  tt.is(seal.length, 1, 'the housekeeping asked for clear tokens once');
  const plan = planOf(seal[0]!).map((p) => p.detail);
  tt.true(
    plan.some((detail) => detail.includes('appointments_clear_token_idx')),
    plan.join('\n'),
  );
});
