import test from 'ava';
import { DateTime } from 'luxon';
import { metricNames } from '../../src/modules/analytics/index.js';
import { eventually } from '../helpers/eventually.js';
import { TestClock, useTestApp } from '../helpers/test-app.js';

/**
 * The sandbox's demo practice (DESIGN §18): every analytics metric non-zero and consistent with the
 * records behind it, a deterministic reset, and the README's walkthrough (test clock, billing,
 * recall) producing visible results. Serial: a reset rewrites the whole sandbox.
 */
const now = Date.parse('2026-11-20T15:00:00.000Z');
const clock = new TestClock(now);
const t = useTestApp(test, { clock, config: { jobPollMs: 20 } });
let sandbox: string;
test.before(async () => {
  sandbox = await t.adminToken('sandbox');
});

const sandboxDb = () => t.stores.get('sandbox').db;
const get = async (path: string) => {
  const res = await t.request('GET', path, { token: sandbox });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
  return res.body;
};

/** Every record behind a metric over a window, all pages. */
async function allRecords(
  name: string,
  query: string,
): Promise<Array<{ sourceType: string; sourceId: string; amount?: number; currency?: string; counted: string }>> {
  const out = [];
  let cursor: string | null = null;
  for (;;) {
    const page = await get(`/v1/analytics/metrics/${name}/records?${query}&limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    out.push(...page.data);
    if (!page.hasMore) return out;
    cursor = page.nextCursor;
  }
}

const from = DateTime.fromMillis(now, { zone: 'utc' }).minus({ days: 60 }).toISODate()!;
const to = DateTime.fromMillis(now, { zone: 'utc' }).plus({ days: 20 }).toISODate()!;
const window = `from=${from}&to=${to}`;

test.serial('every §14 metric is non-zero on the demo practice, at every location that offers it', async (a) => {
  const summary = await get(`/v1/analytics/summary?${window}`);
  for (const name of metricNames) {
    const metrics = summary.metrics.filter((m: { name: string }) => m.name === name);
    a.true(metrics.length > 0, name);
    for (const metric of metrics) a.true(metric.value > 0, `${name} ${metric.currency ?? ''} is ${metric.value}`);
  }
  // Revenue in each clinic's own currency.
  a.deepEqual(
    summary.metrics
      .filter((m: { name: string }) => m.name === 'revenue_net')
      .map((m: { currency: string }) => m.currency)
      .sort(),
    ['AUD', 'GBP', 'USD'],
  );
  const statuses = summary.metrics.find((m: { name: string }) => m.name === 'appointments_by_status').breakdown.map((b: { key: string }) => b.key);
  for (const status of ['completed', 'confirmed', 'no_show', 'cancelled']) a.true(statuses.includes(status), status);
  const compliance = summary.metrics.find((m: { name: string }) => m.name === 'vaccination_compliance_rate');
  a.true(compliance.value < 1, 'some pets are overdue');
  const occupancy = summary.metrics.find((m: { name: string }) => m.name === 'boarding_occupancy_rate');
  a.true(occupancy.value < 1);
  for (const locationId of ['loc_demo_downtown', 'loc_demo_riverside', 'loc_demo_harbour']) {
    const one = await get(`/v1/analytics/summary?${window}&locationId=${locationId}`);
    for (const name of ['revenue_net', 'appointments_by_status', 'active_pets', 'vaccination_compliance_rate', 'marketplace_gmv'])
      a.true(one.metrics.find((m: { name: string }) => m.name === name).value > 0, `${name} at ${locationId}`);
  }
});

test.serial("the console dashboard's window, the current month, shows every metric non-zero too", async (a) => {
  const summary = await get('/v1/analytics/summary?from=2026-11-01&to=2026-11-30');
  const zero = summary.metrics.filter((m: { value: number }) => m.value === 0).map((m: { name: string; currency?: string }) => `${m.name} ${m.currency ?? ''}`);
  a.deepEqual(zero, []);
  const series = await get('/v1/analytics/metrics/appointments_by_status?from=2026-11-01&to=2026-11-30&interval=day');
  a.true(series.points.filter((p: { value: number }) => p.value > 0).length > 15, 'most days of the month have appointments');
});

test.serial('the figures agree with the records behind them, the ledger and the lists', async (a) => {
  const summary = await get(`/v1/analytics/summary?${window}`);
  const metric = (name: string, currency?: string) =>
    summary.metrics.find((m: { name: string; currency?: string }) => m.name === name && (currency === undefined || m.currency === currency));
  for (const currency of ['USD', 'GBP', 'AUD']) {
    const records = await allRecords('revenue_net', `${window}&currency=${currency}`);
    a.is(
      records.reduce((s, r) => s + (r.amount ?? 0), 0),
      metric('revenue_net', currency).value,
      `revenue ${currency}`,
    );
    a.true(
      records.some((r) => r.sourceType === 'refund'),
      `refunds in ${currency}`,
    );
    const gmv = await allRecords('marketplace_gmv', `${window}&currency=${currency}`);
    a.is(
      gmv.reduce((s, r) => s + (r.amount ?? 0), 0),
      metric('marketplace_gmv', currency).value,
      `gmv ${currency}`,
    );
  }
  // Revenue reconciles with the ledger: the negated receivable lines of those payments' and refunds' entries.
  const db = sandboxDb();
  const payments = await db.selectFrom('payments').select(['id', 'amount']).execute();
  const refunds = await db.selectFrom('refunds').select(['id', 'amount']).execute();
  const receivable = await db
    .selectFrom('ledger_lines')
    .innerJoin('ledger_entries', 'ledger_entries.id', 'ledger_lines.entry_id')
    .select((eb) => eb.fn.sum<number>('ledger_lines.amount').as('sum'))
    .where('ledger_entries.source_type', 'in', ['payment', 'refund'])
    .where('ledger_lines.account', 'like', 'receivable:%')
    .executeTakeFirstOrThrow();
  a.is(-Number(receivable.sum), payments.reduce((s, p) => s + p.amount, 0) - refunds.reduce((s, r) => s + r.amount, 0));
  // Every journal entry balances.
  const unbalanced = await db
    .selectFrom('ledger_lines')
    .select('entry_id')
    .groupBy('entry_id')
    .having((eb) => eb.fn.sum('amount'), '<>', 0)
    .execute();
  a.deepEqual(unbalanced, []);

  const active = await allRecords('active_pets', window);
  a.is(active.length, metric('active_pets').value);
  const pets = await get('/v1/pets?limit=100');
  const morePets = pets.hasMore ? (await get(`/v1/pets?limit=100&cursor=${pets.nextCursor}`)).data : [];
  a.is(pets.data.length + morePets.length, 100);
  a.is(active.length, 100);

  const open = await allRecords('invoices_open', `from=${to}&to=${to}`);
  const openNow = await get(`/v1/analytics/summary?from=${to}&to=${to}`);
  a.is(open.length, openNow.metrics.find((m: { name: string }) => m.name === 'invoices_open').value);
  const openInvoices = await db.selectFrom('invoices').select('id').where('status', '=', 'open').execute();
  a.is(open.length, openInvoices.length);
  a.true((await db.selectFrom('invoices').select('id').where('amount_refunded', '>', 0).execute()).length > 0, 'refunded invoices');

  const appointments = await allRecords('appointments_by_status', window);
  a.is(appointments.length, metric('appointments_by_status').value);
  const noShows = await allRecords('no_show_rate', window);
  const rate = metric('no_show_rate');
  a.is(noShows.filter((r) => r.counted === 'both').length, rate.numerator);
  a.is(noShows.length, rate.denominator);
  const grooms = await allRecords('grooming_completed', window);
  a.is(grooms.length, metric('grooming_completed').value);
  const commission = await allRecords('commission_earned', `${window}&currency=USD`);
  a.is(
    commission.reduce((s, r) => s + (r.amount ?? 0), 0),
    metric('commission_earned', 'USD').value,
  );
});

test.serial('the practice spans every module: parents, wallets, subscriptions, stays with care plans, memberships, reviews, knowledge', async (a) => {
  const parents = await get('/v1/pet-parents?limit=100');
  a.is(parents.data.length, 30);
  const wallets = await sandboxDb().selectFrom('wallets').selectAll().execute();
  a.true(wallets.length >= 8 && wallets.some((w) => w.balance > 0));
  const subscriptions = await sandboxDb().selectFrom('subscriptions').selectAll().execute();
  a.true(subscriptions.length >= 8);
  const today = DateTime.fromMillis(now, { zone: 'utc' }).toISODate()!;
  const monthAhead = DateTime.fromMillis(now, { zone: 'utc' }).plus({ days: 31 }).toISODate()!;
  for (const s of subscriptions) {
    a.true(s.current_period_end > today && s.current_period_end <= monthAhead, `${s.id} bills next on ${s.current_period_end}`);
  }
  a.true((await sandboxDb().selectFrom('subscription_invoices').selectAll().execute()).length > subscriptions.length, 'past periods billed');
  a.true((await sandboxDb().selectFrom('grooming_memberships').selectAll().execute()).length > 0);
  const stays = await sandboxDb().selectFrom('bookings').select(['status']).where('kind', '=', 'boarding').execute();
  for (const status of ['checked_out', 'checked_in', 'reserved'])
    a.true(
      stays.some((s) => s.status === status),
      status,
    );
  a.true((await sandboxDb().selectFrom('boarding_care_plans').selectAll().execute()).length > 0);
  const trails = await get('/v1/providers/prv_demo_trails');
  a.true(trails.rating > 0, 'reviews rate the marketplace providers');
  a.is((await get('/v1/providers?limit=100')).data.length, 9);
  const appointments = await sandboxDb().selectFrom('appointments').select(['starts_at', 'status']).execute();
  a.true(
    appointments.some((x) => Date.parse(x.starts_at) > now + 7 * 86_400_000 && x.status === 'confirmed'),
    'booked ahead',
  );
  a.true(
    appointments.some((x) => Date.parse(x.starts_at) < now - 80 * 86_400_000),
    'months of history',
  );
  a.is((await sandboxDb().selectFrom('events').select('id').execute()).length, 0, 'seed data emits no events');
  // The knowledge document is indexed by the ai-indexing job, and answers without an LLM.
  await eventually(async () => (await get('/v1/ai/services/ais_demo_handbook/documents/kdoc_demo_handbook')).status === 'indexed', { timeoutMs: 20_000 });
  const answer = await t.request('POST', '/v1/ai/services/ais_demo_handbook/query', { token: sandbox, body: { question: 'How often is Bordetella renewed?' } });
  a.is(answer.status, 200, answer.text);
  a.false(answer.body.abstained, answer.text);
  a.regex(answer.body.answer, /six months/);
});

test.serial('the invoices are dated by their history: a subscription period is invoiced when it starts, at its location, not at the seeding', async (a) => {
  const billed = await sandboxDb()
    .selectFrom('subscription_invoices as si')
    .innerJoin('invoices as i', 'i.id', 'si.invoice_id')
    .innerJoin('locations as l', 'l.id', 'i.location_id')
    .select(['si.period_start', 'i.id', 'i.created_at', 'i.finalized_at', 'l.timezone'])
    .execute();
  a.true(billed.length > 10);
  for (const i of billed) {
    a.is(DateTime.fromISO(i.created_at, { zone: i.timezone }).toISODate(), i.period_start, `${i.id} created ${i.created_at}`);
    a.is(i.finalized_at, i.created_at, i.id);
  }
  a.true(
    billed.some((i) => Date.parse(i.created_at) < now - 45 * 86_400_000),
    'months back',
  );
  for (const i of await sandboxDb().selectFrom('invoices').select(['id', 'created_at', 'finalized_at']).execute()) {
    a.true(Date.parse(i.created_at) <= now, `${i.id} created ${i.created_at}`);
    if (i.finalized_at) a.true(i.created_at <= i.finalized_at, `${i.id} finalized ${i.finalized_at} after its creation ${i.created_at}`);
  }
});

/** `newId`'s time part of an instant (Crockford base32, 10 characters). */
function idTime(ms: number): string {
  const alphabet = '0123456789abcdefghjkmnpqrstvwxyz';
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = alphabet[ms % 32]! + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

/**
 * The practice's rows, sorted, without what may differ between two seedings at the same instant:
 * the random part of ids the payments and grooming services make (they carry the clock's time, so
 * they are recognised by it) and the random calendar-link secrets.
 */
async function snapshot(): Promise<Record<string, string[]>> {
  const db = sandboxDb();
  const tables = [
    'locations',
    'pet_parents',
    'pets',
    'providers',
    'provider_schedules',
    'appointments',
    'vaccinations',
    'invoices',
    'invoice_lines',
    'payments',
    'refunds',
    'wallets',
    'wallet_transactions',
    'subscriptions',
    'bookings',
    'boarding_stays',
    'boarding_care_plans',
    'grooming_appointments',
    'grooming_memberships',
    'marketplace_orders',
    'marketplace_order_lines',
    'marketplace_commission_lines',
    'provider_reviews',
    'ledger_entries',
    'ledger_lines',
  ] as const;
  const serviceIds = new RegExp(`\\b([a-z]+)_${idTime(clock.now())}[0-9a-z]{16}\\b`, 'g');
  const out: Record<string, string[]> = {};
  for (const table of tables) {
    const rows = (await db.selectFrom(table).selectAll().execute()) as Array<Record<string, unknown>>;
    out[table] = rows.map(({ calendar_token: _, ...row }) => JSON.stringify(row).replace(serviceIds, '$1_(service)')).sort();
  }
  return out;
}

test.serial('a reset is deterministic: two resets at the same instant seed the same practice', async (a) => {
  clock.set(now);
  const first = await t.request('POST', '/v1/sandbox/reset', { token: sandbox });
  a.is(first.status, 200, first.text);
  a.like(first.body.seeded, { locations: 3, petParents: 30, pets: 100, providers: 9 });
  for (const [kind, n] of Object.entries(first.body.seeded)) a.true((n as number) > 0, kind);
  const one = await snapshot();
  clock.set(now);
  const second = await t.request('POST', '/v1/sandbox/reset', { token: sandbox });
  a.deepEqual(second.body, first.body);
  const two = await snapshot();
  for (const table of Object.keys(one)) a.deepEqual(two[table], one[table], table);
});
