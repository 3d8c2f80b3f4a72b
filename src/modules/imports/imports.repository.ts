import { sql } from 'kysely';
import { acrossTenants, checkedRows, insertCallersRow, scoped } from '../../db/access-policy.js';
import { runStatement, selectRows, type Database, type Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { ImportStatus, ImportsTable } from './imports.table.js';

export async function insertImport(db: Executor, access: AccessFilter, row: ImportsTable): Promise<void> {
  await scoped(db, access).insert('imports', row);
}

/**
 * The imports `access` may see: the policy's (a confined client: imports into one of its locations),
 * and for a confined client only those made by a client confined to some of its own locations: an
 * import's rows and errors may speak of every location its maker covers (a tenant-wide admin's import
 * into one location may name others), so a client sees the reports of imports it could have made.
 */
function visibleImports(db: Executor, access: AccessFilter) {
  const query = scoped(db, access).selectFrom('imports').selectAll();
  if (access.locationIds === null) return query;
  const mine = access.locationIds;
  return query.where('access_location_ids', 'is not', null).where(({ not, exists, selectFrom }) =>
    not(
      exists(
        selectFrom(sql<{ value: string }>`json_each(imports.access_location_ids)`.as('j'))
          .select(sql.lit(1).as('one'))
          .where(mine.length === 0 ? sql<boolean>`1 = 1` : sql<boolean>`j.value not in (${sql.join(mine)})`),
      ),
    ),
  );
}

export async function findImport(db: Executor, access: AccessFilter, id: string): Promise<ImportsTable | null> {
  return (await visibleImports(db, access).where('id', '=', id).executeTakeFirst()) ?? null;
}

/** An import's status alone (the job's check between batches: not the row's report of errors). */
export async function importStatus(db: Executor, access: AccessFilter, id: string): Promise<ImportStatus | null> {
  return (await scoped(db, access).selectFrom('imports').select('status').where('id', '=', id).executeTakeFirst())?.status ?? null;
}

export async function listImports(db: Executor, access: AccessFilter, page: PageRequest): Promise<ImportsTable[]> {
  return pageQuery(visibleImports(db, access), page).execute();
}

/** Updates an import; with `onlyIf`, only while its status is one of those (a cancel is never overwritten by the job). */
export async function updateImport(
  db: Executor,
  access: AccessFilter,
  id: string,
  patch: Partial<ImportsTable>,
  onlyIf?: readonly ImportStatus[],
): Promise<void> {
  let query = scoped(db, access).updateTable('imports').set(patch).where('id', '=', id);
  if (onlyIf !== undefined) query = query.where('status', 'in', [...onlyIf]);
  await query.execute();
}

/** Tables an import writes, each with an `external_id` column. */
export type ImportedTable = 'pet_parents' | 'pets' | 'vaccinations' | 'medical_records' | 'providers' | 'appointments';

/** The SQL of a look-up by external ids, compiled once per table and access: scoped()'s own text, its ids one JSON parameter. */
interface CompiledLookup {
  readonly sql: string;
  readonly parameters: readonly unknown[];
  /** Where the JSON array of ids goes in `parameters`. */
  readonly ids: number;
}

const lookups = new Map<string, CompiledLookup>();
const idsMarker = '\u0000external ids\u0000';

function lookupOf(db: Executor, access: AccessFilter, table: ImportedTable): CompiledLookup {
  const key = `${table}\u0000${access.tenantId}\u0000${access.locationIds === null ? '*' : access.locationIds.join('\u0000')}`;
  let found = lookups.get(key);
  if (!found) {
    // One shape for every table: each has external_id (migration add_external_ids).
    const compiled = scoped(db, access)
      .selectFrom(table as 'pets')
      .selectAll()
      .where('external_id', 'in', sql<string>`(select value from json_each(${idsMarker}))`)
      .compile();
    const ids = compiled.parameters.indexOf(idsMarker);
    if (ids < 0 || compiled.parameters.lastIndexOf(idsMarker) !== ids) throw new Error('unexpected look-up parameters');
    found = { sql: compiled.sql, parameters: compiled.parameters, ids };
    if (lookups.size >= 100) lookups.clear();
    lookups.set(key, found);
  }
  return found;
}

/**
 * The rows of `table` with these external ids that `access` may see, by external id: one statement
 * per batch, through the partial unique index on (tenant_id, external_id). Its text is what
 * `scoped(db, access)` builds (the table's policy), compiled once, the ids passed as one JSON array
 * (the same text whatever their number, so the prepared statement is reused batch after batch).
 */
export async function rowsByExternalId<T extends ImportedTable>(
  db: Executor,
  access: AccessFilter,
  table: T,
  externalIds: readonly string[],
): Promise<Map<string, Database[T]>> {
  const found = new Map<string, Database[T]>();
  if (externalIds.length === 0) return found;
  const lookup = lookupOf(db, access, table);
  const parameters = [...lookup.parameters];
  parameters[lookup.ids] = JSON.stringify(externalIds);
  const rows = await selectRows<Database[T] & { external_id: string }>(
    acrossTenants(db, "scoped()'s compiled SQL: the table's policy in its text"),
    lookup.sql,
    parameters,
  );
  for (const row of rows) found.set(row.external_id, row);
  return found;
}

/** Inserts one imported row (prepared SQL, after the check that it is the importer's to write). */
export async function insertImported<T extends ImportedTable>(db: Executor, access: AccessFilter, table: T, row: Database[T]): Promise<void> {
  await insertCallersRow(db, access, table, row);
}

const insertTexts = new Map<string, string>();
/** Rows per INSERT statement (SQLite's limit of 32,766 parameters is far off). */
const rowsPerInsert = 100;

/**
 * Inserts imported rows of one shape (the same columns, as the import's row builders make them)
 * with multi-row INSERT statements, after the check `insertCallersRow` makes of each: the
 * importer's tenant and locations. One statement for a hundred rows costs a third less than a
 * hundred statements (the triggers still run per row).
 */
export async function insertImportedRows<T extends ImportedTable>(db: Executor, access: AccessFilter, table: T, rows: readonly Database[T][]): Promise<void> {
  const checked = checkedRows(table, access, rows);
  const first = checked[0];
  if (!first) return;
  // The columns of the first row that have a value (undefined leaves a column to its default, as insertRow does).
  const columns = Object.keys(first).filter((column) => first[column] !== undefined);
  for (let from = 0; from < checked.length; from += rowsPerInsert) {
    const part = checked.slice(from, from + rowsPerInsert);
    const values: unknown[] = [];
    for (const row of part) {
      let defined = 0;
      for (const key in row) if (row[key] !== undefined) defined += 1;
      if (defined !== columns.length) throw new Error(`insert into ${table}: rows of different shapes`);
      for (const column of columns) {
        const value = row[column];
        if (value === undefined) throw new Error(`insert into ${table}: rows of different shapes`);
        values.push(value);
      }
    }
    const shape = `${table}(${columns.join(',')})${part.length}`;
    let text = insertTexts.get(shape);
    if (!text) {
      const one = `(${columns.map(() => '?').join(', ')})`;
      text = `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values ${new Array<string>(part.length).fill(one).join(', ')}`;
      if (insertTexts.size >= 200) insertTexts.clear();
      insertTexts.set(shape, text);
    }
    await runStatement(acrossTenants(db, "rows checkedRows() found the importer's"), text, values);
  }
}

/** Updates one imported row the importer may see. */
export async function updateImported<T extends ImportedTable>(
  db: Executor,
  access: AccessFilter,
  table: T,
  id: string,
  patch: Partial<Database[T]>,
): Promise<void> {
  await scoped(db, access)
    .updateTable(table as 'pets')
    .set(patch as Partial<Database['pets']>)
    .where('id', '=', id)
    .execute();
}

/** Rows of `provider_locations` for an imported provider (replaced on a re-run). */
export async function replaceProviderLocations(
  db: Executor,
  access: AccessFilter,
  providerId: string,
  tenantId: string,
  locationIds: readonly string[],
): Promise<void> {
  await scoped(db, access).deleteFrom('provider_locations').where('provider_id', '=', providerId).execute();
  if (locationIds.length > 0) {
    await scoped(db, access).insert(
      'provider_locations',
      locationIds.map((location_id) => ({ provider_id: providerId, location_id, tenant_id: tenantId })),
    );
  }
}

/** The locations (visible to `access`) an imported provider works at, sorted. */
export async function providerLocationIds(db: Executor, access: AccessFilter, providerId: string): Promise<string[]> {
  const rows = await scoped(db, access).selectFrom('provider_locations').select('location_id').where('provider_id', '=', providerId).execute();
  return rows.map((r) => r.location_id).sort();
}

/** The tenant's appointment types by code (durations and buffers), for imported appointments. */
export async function appointmentTypesOf(db: Executor, access: AccessFilter): Promise<Map<string, Database['appointment_types']>> {
  const rows = await scoped(db, access).selectFrom('appointment_types').selectAll().execute();
  return new Map(rows.map((row) => [row.code, row]));
}

/**
 * Compliance recomputed once per pet per batch (migration defer_import_compliance): inside a batch's
 * transaction, `deferCompliance` turns the per-dose recomputation of the vaccinations triggers into a
 * note of the pet, and `settleCompliance` recomputes every noted pet once and turns it back on.
 * Nothing of it outlives the transaction; no tenant's rows (the table holds pet ids for a moment).
 */
export async function deferCompliance(trx: Executor): Promise<void> {
  await runStatement(acrossTenants(trx, 'a flag of this transaction'), "INSERT INTO compliance_deferral (pet_id) VALUES ('')", []);
}

export async function settleCompliance(trx: Executor): Promise<void> {
  await runStatement(acrossTenants(trx, 'the pets this transaction noted'), 'DELETE FROM compliance_deferral', []);
}
