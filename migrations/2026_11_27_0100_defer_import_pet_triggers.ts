import { sql, type Kysely } from 'kysely';

/**
 * Less trigger work per imported pet and dose (issue 29: the speed of an import), where an import
 * batch's transaction flags it (migration defer_import_compliance: the row `''` of
 * compliance_deferral), with the same results at the batch's end:
 *
 * - a new pet's compliance recomputation (pets_compliance_insert) runs only when the pet has doses
 *   or stored events: for a new pet it has neither, and its four statements change nothing (they
 *   read the pet's events and doses and write what they find). Flag or not: the result is the same.
 * - the change counter of the pets analytics (analytics_versions 'pets', one UPDATE per pet and per
 *   dose) moves once per batch, when the flag is deleted, instead of once per row: a counter read
 *   for "has anything changed", never for how much, and nothing reads it inside the transaction.
 * - each noted pet's earliest due date (pets.vaccination_earliest_due, one window over the pet's
 *   doses on every dose) is computed once, at the batch's end, as its compliance is: the statement
 *   of vaccinations_earliest_due_delete (read from the schema, so the same text) for the noted pet,
 *   on its final doses, which is what the per-dose path's last run computes.
 * - the pets counts of analytics_daily (pets_analytics_daily_insert: two upserts per pet, one for the
 *   day it was created, one for its species) are counted per (location, day, species) in
 *   import_pets_daily and added at the batch's end: the same sums, one small upsert a pet. The
 *   statements are written out here (a sum of the trigger's +1s), so the migration checks the
 *   trigger is still the one it sums; test/imports/compliance-deferral.test.ts compares both paths
 *   (a later migration that recreated the trigger without its WHEN would count the pets twice).
 *
 * Nothing of it reads the values it defers inside the batch (the import looks its rows up before the
 * transaction). Without the flag (the API, the sqlite3 shell) every trigger runs per row as before.
 */
const deferred = "EXISTS (SELECT 1 FROM compliance_deferral WHERE pet_id = '')";

async function triggerSql(db: Kysely<unknown>, name: string): Promise<string> {
  const found = await sql<{ sql: string }>`SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ${name}`.execute(db);
  const text = found.rows[0]?.sql;
  if (!text) throw new Error(`trigger ${name} is missing`);
  return text;
}

/** The statements between BEGIN and END of a trigger's CREATE text. */
function bodyOf(create: string): string {
  const start = create.search(/\bBEGIN\b/);
  const end = create.lastIndexOf('END');
  if (start < 0 || end < start) throw new Error('unexpected trigger text');
  return create.slice(start + 'BEGIN'.length, end).trim();
}

/** The same CREATE text with a WHEN clause before its BEGIN (these triggers have none). */
function withWhen(create: string, when: string): string {
  const at = create.search(/\bBEGIN\b/);
  if (create.slice(0, at).includes(' WHEN ')) throw new Error('unexpected WHEN clause');
  return `${create.slice(0, at).trimEnd()} WHEN ${when} ${create.slice(at)}`;
}

/** pets_analytics_daily_insert as migration analytics_daily_aggregates made it (blanks collapsed). */
const petsDailyInsert =
  "CREATE TRIGGER pets_analytics_daily_insert AFTER INSERT ON pets BEGIN INSERT INTO analytics_daily (tenant_id, location_id, measure, day, key, num, den) SELECT NEW.tenant_id, NEW.location_id, 'pets', substr(NEW.created_at, 1, 10), '', (1), (0) WHERE 1 ON CONFLICT (location_id, measure, day, key) DO UPDATE SET num = num + excluded.num, den = den + excluded.den; INSERT INTO analytics_daily (tenant_id, location_id, measure, day, key, num, den) SELECT NEW.tenant_id, NEW.location_id, 'pets', '', lower(NEW.species), (1), (0) WHERE 1 ON CONFLICT (location_id, measure, day, key) DO UPDATE SET num = num + excluded.num, den = den + excluded.den; END";

/** The same two upserts, once per (location, day, species) counted in the batch. */
const petsDailySettle = `INSERT INTO analytics_daily (tenant_id, location_id, measure, day, key, num, den)
  SELECT l.tenant_id, s.location_id, 'pets', s.day, '', sum(s.n), 0 FROM import_pets_daily s JOIN locations l ON l.id = s.location_id
  WHERE 1 GROUP BY s.location_id, s.day ON CONFLICT (location_id, measure, day, key) DO UPDATE SET num = num + excluded.num, den = den + excluded.den;
INSERT INTO analytics_daily (tenant_id, location_id, measure, day, key, num, den)
  SELECT l.tenant_id, s.location_id, 'pets', '', s.species, sum(s.n), 0 FROM import_pets_daily s JOIN locations l ON l.id = s.location_id
  WHERE 1 GROUP BY s.location_id, s.species ON CONFLICT (location_id, measure, day, key) DO UPDATE SET num = num + excluded.num, den = den + excluded.den;
DELETE FROM import_pets_daily;`;

/** Triggers given a WHEN clause here, with the condition each gets. */
const conditioned: ReadonlyArray<readonly [string, string]> = [
  ['pets_compliance_insert', 'EXISTS (SELECT 1 FROM vaccinations WHERE pet_id = NEW.id) OR EXISTS (SELECT 1 FROM analytics_pet_events WHERE pet_id = NEW.id)'],
  ['pets_analytics_insert', `NOT ${deferred}`],
  ['pets_analytics_daily_insert', `NOT ${deferred}`],
  ['vaccinations_analytics_insert', `NOT ${deferred}`],
  ['vaccinations_analytics_update', `NOT ${deferred}`],
  ['vaccinations_earliest_due_insert', `NOT ${deferred}`],
  ['vaccinations_earliest_due_update', `NOT ${deferred}`],
];

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const earliestDue = bodyOf(await triggerSql(trx, 'vaccinations_earliest_due_delete'));
    if (/\bNEW\./.test(earliestDue) || !earliestDue.includes('OLD.pet_id')) throw new Error('unexpected vaccinations_earliest_due_delete');
    const bump = bodyOf(await triggerSql(trx, 'pets_analytics_insert'));
    if (/\b(NEW|OLD)\./.test(bump)) throw new Error('unexpected pets_analytics_insert');
    if ((await triggerSql(trx, 'pets_analytics_daily_insert')).replace(/\s+/g, ' ') !== petsDailyInsert)
      throw new Error('unexpected pets_analytics_daily_insert');
    for (const [name, when] of conditioned) {
      const create = await triggerSql(trx, name);
      await sql.raw(`DROP TRIGGER ${name}`).execute(trx);
      await sql.raw(withWhen(create, when)).execute(trx);
    }
    await sql`CREATE TABLE import_pets_daily (location_id TEXT NOT NULL, day TEXT NOT NULL, species TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (location_id, day, species)) WITHOUT ROWID`.execute(
      trx,
    );
    await sql
      .raw(
        `CREATE TRIGGER pets_analytics_daily_insert_deferred AFTER INSERT ON pets WHEN ${deferred} BEGIN
INSERT INTO import_pets_daily (location_id, day, species, n) VALUES (NEW.location_id, substr(NEW.created_at, 1, 10), lower(NEW.species), 1)
  ON CONFLICT (location_id, day, species) DO UPDATE SET n = n + 1;
END`,
      )
      .execute(trx);
    // The batch's end: the flag is deleted first ('' sorts before every id), then each noted pet.
    await sql.raw(`CREATE TRIGGER compliance_deferral_versions AFTER DELETE ON compliance_deferral WHEN OLD.pet_id = '' BEGIN\n${bump}\nEND`).execute(trx);
    await sql
      .raw(`CREATE TRIGGER compliance_deferral_pets_daily AFTER DELETE ON compliance_deferral WHEN OLD.pet_id = '' BEGIN\n${petsDailySettle}\nEND`)
      .execute(trx);
    await sql
      .raw(`CREATE TRIGGER compliance_deferral_earliest_due AFTER DELETE ON compliance_deferral WHEN OLD.pet_id <> '' BEGIN\n${earliestDue}\nEND`)
      .execute(trx);
  });
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`DROP TRIGGER compliance_deferral_versions`.execute(trx);
    await sql`DROP TRIGGER compliance_deferral_earliest_due`.execute(trx);
    await sql`DROP TRIGGER compliance_deferral_pets_daily`.execute(trx);
    await sql`DROP TRIGGER pets_analytics_daily_insert_deferred`.execute(trx);
    await sql`DROP TABLE import_pets_daily`.execute(trx);
    for (const [name, when] of conditioned) {
      const create = await triggerSql(trx, name);
      await sql.raw(`DROP TRIGGER ${name}`).execute(trx);
      await sql.raw(create.replace(` WHEN ${when} `, ' ')).execute(trx);
    }
  });
}
