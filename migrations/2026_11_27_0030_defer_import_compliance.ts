import { sql, type Kysely } from 'kysely';

/**
 * An import batch recomputes each pet's compliance events once instead of once per dose (issue 29):
 * the triggers of migration analytics_daily_aggregates walk all of a pet's vaccinations on every
 * insert or update of one (~160 µs a dose), which made three quarters of a vaccinations import.
 *
 * `compliance_deferral` is empty except inside an import batch's transaction: the batch puts the row
 * `''` in first (deferral on), then the vaccinations triggers, instead of recomputing, note the pets
 * they touch there; at the batch's end the batch deletes every row, and the delete trigger of a
 * pet's row runs that pet's recomputation: the very statements of `vaccinations_compliance_delete`
 * (read from the schema, so they are the same text), on the pet's final vaccinations. The result is
 * the same as the per-dose path's last recomputation, which also starts from the pet's stored events
 * and ends on its final vaccinations. A real table (not a connection's function) so a connection
 * that never heard of imports (the sqlite3 shell, a backup check) still runs the triggers; nothing is
 * ever committed in it (a batch that fails rolls its rows back with it).
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
  const start = create.indexOf('BEGIN\n');
  const end = create.lastIndexOf('\nEND');
  if (start < 0 || end < start) throw new Error('unexpected trigger text');
  return create.slice(start + 'BEGIN\n'.length, end);
}

/** The same CREATE text with a WHEN clause before its BEGIN (the triggers have none). */
function withWhen(create: string, when: string): string {
  const at = create.indexOf('BEGIN\n');
  if (create.slice(0, at).includes(' WHEN ')) throw new Error('unexpected WHEN clause');
  return `${create.slice(0, at)}WHEN ${when} ${create.slice(at)}`;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`CREATE TABLE compliance_deferral (pet_id TEXT PRIMARY KEY) WITHOUT ROWID`.execute(trx);
    const insert = await triggerSql(trx, 'vaccinations_compliance_insert');
    const update = await triggerSql(trx, 'vaccinations_compliance_update');
    const refresh = bodyOf(await triggerSql(trx, 'vaccinations_compliance_delete'));
    if (/\bNEW\./.test(refresh)) throw new Error('unexpected NEW row in vaccinations_compliance_delete');
    await sql`DROP TRIGGER vaccinations_compliance_insert`.execute(trx);
    await sql`DROP TRIGGER vaccinations_compliance_update`.execute(trx);
    await sql.raw(withWhen(insert, `NOT ${deferred}`)).execute(trx);
    await sql.raw(withWhen(update, `NOT ${deferred}`)).execute(trx);
    await sql
      .raw(
        `CREATE TRIGGER vaccinations_compliance_insert_deferred AFTER INSERT ON vaccinations WHEN ${deferred} BEGIN
INSERT OR IGNORE INTO compliance_deferral (pet_id) VALUES (NEW.pet_id);
END`,
      )
      .execute(trx);
    await sql
      .raw(
        `CREATE TRIGGER vaccinations_compliance_update_deferred AFTER UPDATE OF pet_id, vaccine_key, administered_on, due_on ON vaccinations WHEN ${deferred} BEGIN
INSERT OR IGNORE INTO compliance_deferral (pet_id) VALUES (OLD.pet_id), (NEW.pet_id);
END`,
      )
      .execute(trx);
    // OLD.pet_id here is the deferred pet's id: the delete trigger's statements, run for it.
    await sql.raw(`CREATE TRIGGER compliance_deferral_refresh AFTER DELETE ON compliance_deferral WHEN OLD.pet_id <> '' BEGIN\n${refresh}\nEND`).execute(trx);
  });
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const insert = await triggerSql(trx, 'vaccinations_compliance_insert');
    const update = await triggerSql(trx, 'vaccinations_compliance_update');
    const without = (create: string) => create.replace(`WHEN NOT ${deferred} `, '');
    for (const name of [
      'vaccinations_compliance_insert',
      'vaccinations_compliance_update',
      'vaccinations_compliance_insert_deferred',
      'vaccinations_compliance_update_deferred',
      'compliance_deferral_refresh',
    ]) {
      await sql.raw(`DROP TRIGGER ${name}`).execute(trx);
    }
    await sql.raw(without(insert)).execute(trx);
    await sql.raw(without(update)).execute(trx);
    await sql`DROP TABLE compliance_deferral`.execute(trx);
  });
}
