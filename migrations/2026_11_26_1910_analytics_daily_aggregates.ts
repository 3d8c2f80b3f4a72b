import { sql, type Kysely } from 'kysely';

/**
 * Daily aggregates for analytics (issue 27.3): a summary read from the records themselves grew with
 * history (every pet ever created, with a correlated walk of its vaccinations, for compliance and
 * active pets; every invoice ever finalized for invoices_open). `analytics_daily` keeps, per
 * location, measure, UTC day and key, what the metrics add up; triggers keep it in the writing
 * transaction, so no figure is ever stale.
 *
 * - Days are UTC dates of the instant (`substr(at, 1, 10)`): a trigger cannot know a time zone. A
 *   window of local dates [s, e) reads the whole UTC days inside it here and the partial days at
 *   its two ends from the records (each less than a day, an index range).
 * - `day = ''` holds a running total (all days): a state at an instant (open invoices, pets) is the
 *   total minus what happens at or after it.
 * - measures: `revenue` (payments +amount, refunds −amount, key currency, by created_at; den counts the records);
 *   `appointments` (1 per appointment, key status, by starts_at); `grooming` (completed grooming
 *   bookings by starts_at); `pets` (1 per pet by created_at, key ''; totals keyed by lower(species));
 *   `invoices_open` (+1 at finalized_at, −1 at the first of paid/voided/uncollectible, not before
 *   finalized_at; with totals); `compliance` (below; with totals).
 * - `compliance` holds, per pet, the days its vaccination state changes: between two dates on
 *   which the pet was given a dose, its earliest due date (the latest dose per vaccine) is fixed, so
 *   the pet counts in the denominator from the first of them and in the numerator until that due
 *   date. Days are the records' own dates, compared as text as the metric compares them: key `ge`
 *   applies to dates d ≥ day, key `gt` to d > day (a due date ends compliance after it; a pet created
 *   on UTC day c counts from d > c; a pet created on the day asked or the next is read from its records).
 *   A pet's events are kept in `analytics_pet_events` (one row per pet, a JSON list), so a write
 *   takes the old ones out and puts the new ones in with one walk of the pet's vaccinations.
 *
 * The rows of a location go with it (ON DELETE CASCADE), after the records that moved them.
 */

const upsertTail = 'ON CONFLICT (location_id, measure, day, key) DO UPDATE SET num = num + excluded.num, den = den + excluded.den';

/** One record's share of a measure: its day, key and figures, from the row `R` (NEW or OLD). */
interface Share {
  measure: string;
  when: string;
  day: string;
  key: string;
  num: string;
  /** A count of the records behind the row (revenue: a currency with records in a window answers even when they net to 0). */
  den?: string;
  /** Also moves the running total (day ''). */
  total?: { key: string } | undefined;
}

const at = (text: string, row: string) => text.replaceAll('R.', `${row}.`);

function apply(share: Share, row: 'NEW' | 'OLD', sign: 1 | -1): string {
  const s = sign === 1 ? '' : '-';
  const statements = [
    `INSERT INTO analytics_daily (tenant_id, location_id, measure, day, key, num, den)
      SELECT ${row}.tenant_id, ${row}.location_id, '${share.measure}', ${at(share.day, row)}, ${at(share.key, row)}, ${s}(${at(share.num, row)}), ${s}(${at(share.den ?? '0', row)})
      WHERE ${at(share.when, row)} ${upsertTail};`,
  ];
  if (share.total)
    statements.push(`INSERT INTO analytics_daily (tenant_id, location_id, measure, day, key, num, den)
      SELECT ${row}.tenant_id, ${row}.location_id, '${share.measure}', '', ${at(share.total.key, row)}, ${s}(${at(share.num, row)}), ${s}(${at(share.den ?? '0', row)})
      WHERE ${at(share.when, row)} ${upsertTail};`);
  return statements.join('\n');
}

/** The first closing instant of an invoice, not before it was finalized ('~' sorts after every instant: never closed). */
const closedAt = (r: string) => {
  const c = r === '' ? '' : `${r}.`;
  return `max(${c}finalized_at, min(coalesce(${c}paid_at, '~'), coalesce(${c}voided_at, '~'), coalesce(${c}uncollectible_at, '~')))`;
};

const shares: Array<{ table: string; updateOf: string; shares: Share[] }> = [
  {
    table: 'payments',
    updateOf: 'location_id, created_at, currency, amount',
    shares: [{ measure: 'revenue', when: '1', day: 'substr(R.created_at, 1, 10)', key: 'R.currency', num: 'R.amount', den: '1' }],
  },
  {
    table: 'refunds',
    updateOf: 'location_id, created_at, currency, amount',
    shares: [{ measure: 'revenue', when: '1', day: 'substr(R.created_at, 1, 10)', key: 'R.currency', num: '-R.amount', den: '1' }],
  },
  {
    table: 'appointments',
    updateOf: 'location_id, starts_at, status',
    shares: [{ measure: 'appointments', when: '1', day: 'substr(R.starts_at, 1, 10)', key: 'R.status', num: '1' }],
  },
  {
    table: 'bookings',
    updateOf: 'location_id, kind, status, starts_at',
    shares: [{ measure: 'grooming', when: "R.kind = 'grooming' AND R.status = 'completed'", day: 'substr(R.starts_at, 1, 10)', key: "''", num: '1' }],
  },
  {
    table: 'pets',
    updateOf: 'location_id, created_at, species',
    shares: [{ measure: 'pets', when: '1', day: 'substr(R.created_at, 1, 10)', key: "''", num: '1', total: { key: 'lower(R.species)' } }],
  },
  {
    table: 'invoices',
    updateOf: 'location_id, finalized_at, paid_at, voided_at, uncollectible_at',
    shares: [
      { measure: 'invoices_open', when: 'R.finalized_at IS NOT NULL', day: 'substr(R.finalized_at, 1, 10)', key: "''", num: '1', total: { key: "''" } },
      {
        measure: 'invoices_open',
        when: `R.finalized_at IS NOT NULL AND ${closedAt('R')} <> '~'`,
        day: `substr(${closedAt('R')}, 1, 10)`,
        key: "''",
        num: '-1',
        total: { key: "''" },
      },
    ],
  },
];

/**
 * A pet's compliance events (see above) as rows (tenant_id, location_id, day, key, num, den), from its
 * row and its vaccinations; none when the pet is gone. `e` is the metric's own subquery, evaluated
 * once per dose date (`LIMIT -1` keeps SQLite from copying it into every expression that reads it).
 */
function complianceEvents(pet: string | null): string {
  const doses =
    pet === null
      ? 'SELECT pet_id, d, lead(d) OVER (PARTITION BY pet_id ORDER BY d) AS nxt FROM (SELECT DISTINCT pet_id, administered_on AS d FROM vaccinations)'
      : `SELECT d, lead(d) OVER (ORDER BY d) AS nxt FROM (SELECT DISTINCT administered_on AS d FROM vaccinations WHERE pet_id = ${pet})`;
  const earliest = `(SELECT min(due_on) FROM (
      SELECT v.due_on AS due_on, max(v.administered_on || v.id) FROM vaccinations v
      WHERE v.pet_id = p.id AND v.administered_on <= x.d GROUP BY v.vaccine_key))`;
  return `SELECT g.pet_id AS pet_id, g.tenant_id AS tenant_id, g.location_id AS location_id,
      CASE t.n WHEN 2 THEN g.nxt WHEN 4 THEN g.ub ELSE g.la END AS day,
      CASE t.n WHEN 2 THEN 'ge' WHEN 4 THEN g.uk ELSE g.lk END AS key,
      CASE t.n WHEN 3 THEN 1 WHEN 4 THEN -1 ELSE 0 END AS num,
      CASE t.n WHEN 1 THEN 1 WHEN 2 THEN -1 ELSE 0 END AS den
    FROM (SELECT s.*,
            CASE WHEN s.nxt IS NULL OR s.e < s.nxt THEN s.e ELSE s.nxt END AS ub,
            CASE WHEN s.nxt IS NULL OR s.e < s.nxt THEN 'gt' ELSE 'ge' END AS uk
          FROM (SELECT p.id AS pet_id, p.tenant_id AS tenant_id, p.location_id AS location_id, x.nxt AS nxt,
                  CASE WHEN x.d > substr(p.created_at, 1, 10) THEN x.d ELSE substr(p.created_at, 1, 10) END AS la,
                  CASE WHEN x.d > substr(p.created_at, 1, 10) THEN 'ge' ELSE 'gt' END AS lk,
                  ${earliest} AS e
                FROM pets p, (${doses}) x
                WHERE p.id = ${pet ?? 'x.pet_id'} LIMIT -1) s
          WHERE s.e IS NOT NULL LIMIT -1) g,
      (SELECT 1 AS n UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4) t
    WHERE CASE t.n
      WHEN 1 THEN g.nxt IS NULL OR g.nxt > g.la
      WHEN 2 THEN g.nxt IS NOT NULL AND g.nxt > g.la
      ELSE g.ub > g.la OR (g.ub = g.la AND g.uk = 'gt') END`;
}

/** Adds (1) or takes out (-1) the stored events of the pets matching `where` (on `e`), on their days and in the totals. */
const applyStoredEvents = (where: string, sign: 1 | -1) => {
  const s = sign === 1 ? '' : '-';
  return `INSERT INTO analytics_daily (tenant_id, location_id, measure, day, key, num, den)
      SELECT e.tenant_id, e.location_id, 'compliance', CASE WHEN t.n = 2 THEN '' ELSE j.value->>0 END, j.value->>1, ${s}(j.value->>2), ${s}(j.value->>3)
      FROM analytics_pet_events e, json_each(e.events) j, (SELECT 1 AS n UNION ALL SELECT 2) t
      WHERE ${where} ${upsertTail};`;
};

/** The pet's events stored from `events` (a statement of complianceEvents' columns), grouped per pet. */
const storeEvents = (events: string) => `INSERT INTO analytics_pet_events (pet_id, tenant_id, location_id, events)
      SELECT pet_id, tenant_id, location_id, json_group_array(json_array(day, key, num, den)) FROM (${events}) GROUP BY pet_id;`;

/** Recomputes one pet's compliance events: the stored ones out, the new ones stored and in. */
function refreshCompliance(pet: string): string {
  return [
    applyStoredEvents(`e.pet_id = ${pet}`, -1),
    `DELETE FROM analytics_pet_events WHERE pet_id = ${pet};`,
    storeEvents(complianceEvents(pet)),
    applyStoredEvents(`e.pet_id = ${pet}`, 1),
  ].join('\n');
}

async function createTrigger(db: Kysely<unknown>, name: string, timing: string, table: string, body: string): Promise<void> {
  await sql.raw(`CREATE TRIGGER ${name} ${timing} ON ${table} BEGIN\n${body}\nEND`).execute(db);
}

async function createTriggers(db: Kysely<unknown>): Promise<void> {
  for (const { table, updateOf, shares: list } of shares) {
    const each = (row: 'NEW' | 'OLD', sign: 1 | -1) => list.map((share) => apply(share, row, sign)).join('\n');
    await createTrigger(db, `${table}_analytics_daily_insert`, 'AFTER INSERT', table, each('NEW', 1));
    await createTrigger(db, `${table}_analytics_daily_delete`, 'AFTER DELETE', table, each('OLD', -1));
    await createTrigger(db, `${table}_analytics_daily_update`, `AFTER UPDATE OF ${updateOf}`, table, `${each('OLD', -1)}\n${each('NEW', 1)}`);
  }
  // Compliance: the pet's stored events out, its new ones in.
  const vaccinationsChange = 'pet_id, vaccine_key, administered_on, due_on';
  await createTrigger(db, 'vaccinations_compliance_insert', 'AFTER INSERT', 'vaccinations', refreshCompliance('NEW.pet_id'));
  await createTrigger(db, 'vaccinations_compliance_delete', 'AFTER DELETE', 'vaccinations', refreshCompliance('OLD.pet_id'));
  await createTrigger(
    db,
    'vaccinations_compliance_update',
    `AFTER UPDATE OF ${vaccinationsChange}`,
    'vaccinations',
    `${refreshCompliance('OLD.pet_id')}\n${refreshCompliance('(CASE WHEN NEW.pet_id <> OLD.pet_id THEN NEW.pet_id END)')}`,
  );
  await createTrigger(db, 'pets_compliance_insert', 'AFTER INSERT', 'pets', refreshCompliance('NEW.id'));
  await createTrigger(db, 'pets_compliance_update', 'AFTER UPDATE OF location_id, created_at, tenant_id', 'pets', refreshCompliance('NEW.id'));
  await createTrigger(db, 'pets_compliance_delete', 'AFTER DELETE', 'pets', refreshCompliance('OLD.id'));
}

/** Every aggregate row from the records (what the rebuild job does per tenant). */
async function backfill(db: Kysely<unknown>): Promise<void> {
  const insert = (select: string) =>
    sql.raw(`INSERT INTO analytics_daily (tenant_id, location_id, measure, day, key, num, den)
      SELECT tenant_id, location_id, measure, day, key, sum(num), sum(den) FROM (${select})
      GROUP BY location_id, measure, day, key HAVING sum(num) <> 0 OR sum(den) <> 0`);
  await insert(`
    SELECT tenant_id, location_id, 'revenue' AS measure, substr(created_at, 1, 10) AS day, currency AS key, amount AS num, 1 AS den FROM payments
    UNION ALL SELECT tenant_id, location_id, 'revenue', substr(created_at, 1, 10), currency, -amount, 1 FROM refunds
    UNION ALL SELECT tenant_id, location_id, 'appointments', substr(starts_at, 1, 10), status, 1, 0 FROM appointments
    UNION ALL SELECT tenant_id, location_id, 'grooming', substr(starts_at, 1, 10), '', 1, 0 FROM bookings WHERE kind = 'grooming' AND status = 'completed'
    UNION ALL SELECT tenant_id, location_id, 'pets', substr(created_at, 1, 10), '', 1, 0 FROM pets
    UNION ALL SELECT tenant_id, location_id, 'pets', '', lower(species), 1, 0 FROM pets
    UNION ALL SELECT tenant_id, location_id, 'invoices_open', d, '', n, 0 FROM (
      SELECT tenant_id, location_id, substr(finalized_at, 1, 10) AS d, 1 AS n FROM invoices WHERE finalized_at IS NOT NULL
      UNION ALL SELECT tenant_id, location_id, '', 1 FROM invoices WHERE finalized_at IS NOT NULL
      UNION ALL SELECT tenant_id, location_id, substr(${closedAt('')}, 1, 10), -1 FROM invoices WHERE finalized_at IS NOT NULL AND ${closedAt('')} <> '~'
      UNION ALL SELECT tenant_id, location_id, '', -1 FROM invoices WHERE finalized_at IS NOT NULL AND ${closedAt('')} <> '~')`).execute(db);
  // Compliance: the triggers' events for every pet at once.
  await sql.raw(storeEvents(complianceEvents(null))).execute(db);
  await sql.raw(applyStoredEvents('1', 1)).execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`
      CREATE TABLE analytics_daily (
        tenant_id TEXT NOT NULL REFERENCES tenants(id),
        location_id TEXT NOT NULL REFERENCES locations(id) ON DELETE CASCADE,
        measure TEXT NOT NULL CHECK (measure IN ('revenue', 'appointments', 'grooming', 'pets', 'invoices_open', 'compliance')),
        day TEXT NOT NULL,
        key TEXT NOT NULL,
        num INTEGER NOT NULL,
        den INTEGER NOT NULL,
        PRIMARY KEY (location_id, measure, day, key)
      ) WITHOUT ROWID`.execute(trx);
    await sql`
      CREATE TABLE analytics_pet_events (
        pet_id TEXT PRIMARY KEY,
        tenant_id TEXT NOT NULL REFERENCES tenants(id),
        location_id TEXT NOT NULL REFERENCES locations(id) ON DELETE CASCADE,
        events TEXT NOT NULL CHECK (json_valid(events))
      ) WITHOUT ROWID`.execute(trx);
    // The partial day at an instant's end: invoices closed in it.
    await sql.raw(`CREATE INDEX invoices_location_closed_idx ON invoices (location_id, ${closedAt('')}) WHERE finalized_at IS NOT NULL`).execute(trx);
    // The earliest-due walk the compliance triggers run per dose date, from the index alone.
    await sql`CREATE INDEX vaccinations_pet_latest_idx ON vaccinations (pet_id, vaccine_key, administered_on, id, due_on)`.execute(trx);
    await createTriggers(trx);
    await backfill(trx);
  });
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const names = await sql<{
      name: string;
    }>`SELECT name FROM sqlite_master WHERE type = 'trigger' AND (name LIKE '%analytics_daily%' OR name LIKE 'vaccinations_compliance_%' OR name LIKE 'pets_compliance_%')`.execute(
      trx,
    );
    for (const { name } of names.rows) await sql.raw(`DROP TRIGGER ${name}`).execute(trx);
    await sql`DROP INDEX invoices_location_closed_idx`.execute(trx);
    await sql`DROP INDEX vaccinations_pet_latest_idx`.execute(trx);
    await sql`DROP TABLE analytics_daily`.execute(trx);
    await sql`DROP TABLE analytics_pet_events`.execute(trx);
  });
}
