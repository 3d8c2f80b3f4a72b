import test from 'ava';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { accessPolicyOf, registeredAccessPolicies, scoped } from '../../src/db/access-policy.js';
import { newId } from '../../src/db/ids.js';
import { useTestApp } from '../helpers/test-app.js';

/**
 * The one access policy (issue 26.2): every table of a migrated data dir has a policy in its
 * module's manifest, the policy's columns exist, `scoped()` confines reads, updates, deletes and
 * inserts to the caller's tenant and locations, and no module queries a table around it.
 */
const t0 = useTestApp(test);

const columnsOf = (table: string): string[] =>
  (t0.stores.get('live').sqlite.prepare('select name from pragma_table_info(?)').all(table) as Array<{ name: string }>).map((c) => c.name);

test('every table of a migrated data dir has an access policy, and its columns exist', (t) => {
  const tables = (
    t0.stores
      .get('live')
      .sqlite.prepare(
        "select name, sql from sqlite_master where type = 'table' and name not like 'sqlite\\_%' escape '\\' and name not like 'kysely\\_%' escape '\\'",
      )
      .all() as Array<{ name: string; sql: string | null }>
  ).filter((row) => !/^ai_chunks_fts_/.test(row.name));
  const problems: string[] = [];
  for (const { name } of tables) {
    const policy = registeredAccessPolicies().get(name);
    const columns = columnsOf(name);
    if (policy === undefined) {
      problems.push(`${name}: no policy`);
      continue;
    }
    if ('system' in policy) {
      if (columns.includes('tenant_id')) problems.push(`${name}: has tenant_id but is declared system`);
      continue;
    }
    if (!columns.includes('tenant_id')) problems.push(`${name}: no tenant_id`);
    if ('location' in policy && policy.location !== null && !columns.includes(policy.location)) problems.push(`${name}: no column ${policy.location}`);
    if ('via' in policy && !columnsOf(policy.via).includes(policy.key)) problems.push(`${name}: no column ${policy.key} in ${policy.via}`);
    if ('parent' in policy) {
      if (!columns.includes(policy.key)) problems.push(`${name}: no column ${policy.key}`);
      if ('system' in accessPolicyOf(policy.parent)) problems.push(`${name}: its parent ${policy.parent} is not a tenant's table`);
    }
  }
  t.deepEqual(problems, []);
});

test('scoped() confines select, update, delete and insert to the caller’s tenant and locations', async (t) => {
  const db = t0.stores.get('live').db;
  const tenantId = t0.tenantId;
  const [here, there] = [newId('loc'), newId('loc')];
  const now = new Date().toISOString();
  for (const id of [here, there]) {
    await db
      .insertInto('locations')
      .values({ id, tenant_id: tenantId, name: id, timezone: 'UTC', currency: 'USD', tax_rate_bps: 0, created_at: now, updated_at: now })
      .execute();
  }
  const wholeTenant = { tenantId, locationIds: null };
  const onlyHere = { tenantId, locationIds: [here] };
  const nowhere = { tenantId, locationIds: [] };
  const stranger = { tenantId: newId('ten'), locationIds: null };

  const seen = async (access: typeof wholeTenant | typeof onlyHere) =>
    (await scoped(db, access).selectFrom('locations as l').select('l.id').where('l.id', 'in', [here, there]).orderBy('l.id').execute()).map((r) => r.id);
  t.deepEqual(await seen(wholeTenant), [here, there].sort());
  t.deepEqual(await seen(onlyHere), [here]);
  t.deepEqual(await seen(nowhere), []);
  t.deepEqual(await seen(stranger), []);

  // An update or delete by id of a row the caller may not see touches nothing.
  const renamed = await scoped(db, onlyHere).updateTable('locations').set({ name: 'moved' }).where('id', '=', there).executeTakeFirst();
  t.is(Number(renamed.numUpdatedRows), 0);
  const removed = await scoped(db, stranger).deleteFrom('locations').where('id', '=', here).executeTakeFirst();
  t.is(Number(removed.numDeletedRows), 0);
  t.is((await db.selectFrom('locations').select('name').where('id', '=', there).executeTakeFirstOrThrow()).name, there);

  // An insert of another tenant's or another location's row is refused before SQL.
  const row = { id: newId('loc'), tenant_id: tenantId, name: 'x', timezone: 'UTC', currency: 'USD', tax_rate_bps: 0, created_at: now, updated_at: now };
  await t.throwsAsync(scoped(db, stranger).insert('locations', row), { message: /another tenant/ });
  await t.throwsAsync(scoped(db, onlyHere).insert('locations', row), { message: /location the caller does not cover/ });
  // insertInto (an insert that goes on with onConflict or returning) checks the same before building the statement.
  t.throws(() => scoped(db, stranger).insertInto('locations', row), { message: /another tenant/ });

  // A child table follows its parent's location.
  const stay = await scoped(db, onlyHere).selectFrom('invoice_lines').select('id').compile();
  t.regex(
    stay.sql,
    /"invoice_lines"\."invoice_id" in \(select "invoices__p"\."id" from "invoices" as "invoices__p" where "invoices__p"\."tenant_id" = \? and "invoices__p"\."location_id" in \(\?\)\)/,
  );
  // A table that is not a tenant's is refused.
  t.throws(() => scoped(db, wholeTenant).selectFrom('jobs'), { message: /not a tenant's/ });
});

/** Files not yet moved onto `scoped()` (issue 26.2); each module's move removes its files here. The list only shrinks. */
const notYetScoped = new Set<string>([]);

/** A query started on the raw database or transaction (a builder, its chain on one line or several, or hand-written SQL; a typed call such as `selectRows<Row>(db, …)` too), not on `scoped(…)` or `acrossTenants(…)`. */
const rawQuery =
  /\b(?:db|trx|executor|tx)\s*\.\s*(?:selectFrom|updateTable|deleteFrom|insertInto|replaceInto|executeQuery)\(|\b(?:selectRows|runStatement|insertRow|withConnection)(?:<[^()]*?>)?\(\s*(?:db|trx|executor|tx)\b|`\s*\.\s*execute\(\s*(?:db|trx|executor|tx)\s*\)/g;

/**
 * A statement prepared on a raw better-sqlite3 connection (`x.prepare(…)`): allowed only on a
 * connection the file took through `acrossTenants(connection, why)` (`const all = acrossTenants(…)`) or,
 * for a worker thread writing one tenant's rows, `forOneTenant(connection, tenantId, why)`,
 * so a hot path's own prepared statements are as visible and counted as its hand-written queries.
 */
const preparedStatement = /(\b[\w$]+|\))\s*\.\s*prepare\(/g;
const takenAcrossTenants = /\b(?:const|let)\s+([\w$]+)\s*=\s*(?:acrossTenants|forOneTenant)\(/g;

/**
 * Raw statements that read no tenant's rows, by file and statement, with why. A new entry needs a
 * reason of the same kind: a tenant's table is always read through `scoped()` or `acrossTenants()`.
 */
const notTenantStatements = new Map<string, string>([
  [
    'backups/database-snapshot.ts db.prepare(',
    'VACUUM INTO copies the whole database file, in a worker of its own: a backup is of the appliance, not of a tenant',
  ],
  ['backups/appliance-archive.ts db.prepare(', "reads kysely_migration (the schema version) of a database being archived: not a tenant's table"],
  ['clients/client-directory.ts sqlite.prepare(', "PRAGMA data_version: the file's change counter, no table"],
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? sourceFiles(file) : file.endsWith('.ts') ? [file] : [];
  });
}

test('no module queries a table around the policy (scoped, or acrossTenants where a job spans tenants)', (t) => {
  const root = path.resolve(import.meta.dirname, '../../src/modules');
  const bypasses: string[] = [];
  const allowed = new Set<string>();
  for (const file of sourceFiles(root)) {
    const relative = path.relative(root, file);
    if (notYetScoped.has(relative)) continue;
    const text = readFileSync(file, 'utf8');
    const lineOf = (index: number) => text.slice(0, index).split('\n').length;
    for (const match of text.matchAll(rawQuery)) bypasses.push(`${relative}:${lineOf(match.index)} ${match[0]}`);
    const sanctioned = new Set([...text.matchAll(takenAcrossTenants)].map((m) => m[1]));
    for (const match of text.matchAll(preparedStatement)) {
      const statement = `${relative} ${match[0].replace(/\s+/g, '')}`;
      if (sanctioned.has(match[1]!)) continue;
      if (notTenantStatements.has(statement)) {
        allowed.add(statement);
        continue;
      }
      bypasses.push(`${relative}:${lineOf(match.index)} ${match[0]}`);
    }
  }
  t.deepEqual(bypasses, []);
  // The exemptions are still needed (a list that only shrinks).
  t.deepEqual(
    [...notTenantStatements.keys()].filter((s) => !allowed.has(s)),
    [],
  );
});

test('the webhook dispatcher prepares its statements across tenants through the policy, not on a bare connection', (t) => {
  // Its statements are the environment-wide hot path (fan-out, claim, record): the file takes its
  // connection through acrossTenants and prepares nothing else.
  const text = readFileSync(path.resolve(import.meta.dirname, '../../src/modules/webhooks/delivery-statements.ts'), 'utf8');
  const receivers = new Set([...text.matchAll(preparedStatement)].map((m) => m[1]));
  t.deepEqual([...receivers], ['all']);
  t.regex(text, /const all = acrossTenants\(connection, '[^']+'\)/);
});
