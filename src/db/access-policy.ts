import type SQLite from 'better-sqlite3';
import {
  sql,
  type DeleteQueryBuilder,
  type DeleteResult,
  type Expression,
  type InsertQueryBuilder,
  type InsertResult,
  type SqlBool,
  type UpdateQueryBuilder,
  type UpdateResult,
} from 'kysely';
import type { AccessFilter } from '../http/actor.js';
import { insertRow, type Database, type Executor } from './database.js';
import { inList } from './in-list.js';

/**
 * How one table's rows are confined to a caller (DESIGN §4: tenant always; a location-scoped client
 * sees only its locations). Every table a module owns says which, in its manifest's `access`:
 *
 * - `{ location: 'location_id' }`: the row carries its tenant and its location.
 * - `{ location: 'location_id', nullIsGroupWide: why }`: the same, and a row whose location is null
 *   belongs to the whole group: every caller of the tenant sees it (a group-wide grooming package).
 * - `{ location: null, why }`: the row belongs to the whole tenant (a provider, a webhook endpoint);
 *   a location-scoped caller sees every row of its tenant. `why` says why that is right.
 * - `{ via, key }`: the row belongs to the whole tenant and is linked to locations through `via`
 *   (a provider, through provider_locations): a location-scoped caller sees it when it may see a row
 *   of `via` whose `key` is this row's id.
 * - `{ parent, key }`: the row belongs to a row of `parent` (an invoice line to its invoice) and
 *   carries its tenant; a location-scoped caller sees it when it may see the parent.
 * - `{ system: why }`: not a tenant's row (schedules, migrations, versions): `scoped()` refuses it;
 *   the code that reads it goes through `acrossTenants(db, why)`.
 */
export type TablePolicy =
  | { readonly location: string; readonly why?: string; readonly nullIsGroupWide?: string }
  | { readonly location: null; readonly why: string }
  | { readonly parent: ScopedTable; readonly key: string }
  | { readonly via: ScopedTable; readonly key: string }
  | { readonly system: string };

/** A table name of the database. */
export type ScopedTable = keyof Database & string;
/** A table, or a table with an alias (`'appointments as a'`), as Kysely's `selectFrom` takes it. */
export type ScopedFrom = ScopedTable | `${ScopedTable} as ${string}`;

const policies = new Map<string, TablePolicy>();

/**
 * Adds a module's table policies (the app does, from the manifests, when it is built). The same
 * policy registered twice (two apps in one process) is fine; a different one is a mistake.
 */
export function registerAccessPolicies(owner: string, access: Readonly<Record<string, TablePolicy>>): void {
  for (const [table, policy] of Object.entries(access)) {
    const known = policies.get(table);
    if (known !== undefined && JSON.stringify(known) !== JSON.stringify(policy)) {
      throw new Error(`table ${table} has two access policies (the second from ${owner})`);
    }
    policies.set(table, policy);
  }
}

/** The policy of a table; a table without one is a programming error, found by the first test that touches it. */
export function accessPolicyOf(table: string): TablePolicy {
  const policy = policies.get(table);
  if (policy === undefined) throw new Error(`table ${table} has no access policy: name it in its module manifest's access`);
  return policy;
}

/** Every registered policy (for the test that checks each tenant table has one). */
export const registeredAccessPolicies = (): ReadonlyMap<string, TablePolicy> => policies;

/** The location column a location-scoped caller is confined by, or null when the table is tenant-wide or a child. */
export function locationColumnOf(table: ScopedTable): string | null {
  const policy = accessPolicyOf(table);
  if ('system' in policy) throw new Error(`table ${table} is not a tenant's (${policy.system}): use acrossTenants()`);
  return 'location' in policy ? policy.location : null;
}

function split(from: string): { table: ScopedTable; ref: string } {
  const at = from.indexOf(' as ');
  return at === -1 ? { table: from as ScopedTable, ref: from } : { table: from.slice(0, at) as ScopedTable, ref: from.slice(at + 4) };
}

/**
 * The condition "the caller may see this row of `table`" for the row referred to as `ref`
 * (the table's name or its alias), as a raw SQL expression: tenant, then location by the policy.
 */
export function visibleRowCondition(table: ScopedTable, ref: string, access: AccessFilter): Expression<SqlBool> {
  const policy = accessPolicyOf(table);
  if ('system' in policy) throw new Error(`table ${table} is not a tenant's (${policy.system}): use acrossTenants()`);
  const tenant = sql<SqlBool>`${sql.ref(`${ref}.tenant_id`)} = ${access.tenantId}`;
  if (access.locationIds === null) return tenant;
  if ('parent' in policy) {
    const parentRef = `${policy.parent}__p`;
    const parentVisible = visibleRowCondition(policy.parent, parentRef, access);
    return sql<SqlBool>`${tenant} and ${sql.ref(`${ref}.${policy.key}`)} in (select ${sql.ref(`${parentRef}.id`)} from ${sql.table(policy.parent)} as ${sql.table(parentRef)} where ${parentVisible})`;
  }
  if ('via' in policy) {
    const viaRef = `${policy.via}__v`;
    const linkVisible = visibleRowCondition(policy.via, viaRef, access);
    return sql<SqlBool>`${tenant} and exists (select 1 from ${sql.table(policy.via)} as ${sql.table(viaRef)} where ${sql.ref(`${viaRef}.${policy.key}`)} = ${sql.ref(`${ref}.id`)} and ${linkVisible})`;
  }
  if (policy.location === null) return tenant;
  const column = sql.ref(`${ref}.${policy.location}`);
  if (policy.nullIsGroupWide !== undefined) return sql<SqlBool>`${tenant} and (${column} is null or ${column} in (${sql.join(inList(access.locationIds))}))`;
  return sql<SqlBool>`${tenant} and ${column} in (${sql.join(inList(access.locationIds))})`;
}

declare const executor: Executor;
type SelectFromResult<TE extends ScopedFrom> = ReturnType<typeof executor.selectFrom<TE>>;

/** Queries confined to what one caller may see: see `scoped`. */
export interface ScopedQueries {
  /** `db.selectFrom(from)` with the caller's tenant and locations already in its `where`. */
  selectFrom<TE extends ScopedFrom>(from: TE): SelectFromResult<TE>;
  /** `db.updateTable(table)` that can touch only rows the caller may see. */
  updateTable<T extends ScopedTable>(table: T): UpdateQueryBuilder<Database, T, T, UpdateResult>;
  /** `db.deleteFrom(table)` that can remove only rows the caller may see. */
  deleteFrom<T extends ScopedTable>(table: T): DeleteQueryBuilder<Database, T, DeleteResult>;
  /**
   * `db.insertInto(table).values(rows)` after checking each row is the caller's: its tenant, and,
   * for a location-scoped caller, one of its locations (a service that let another through has a bug).
   */
  insert<T extends ScopedTable>(table: T, rows: Database[T] | readonly Database[T][]): Promise<void>;
  /**
   * The same checks as `insert`, then `db.insertInto(table).values(rows)` to go on with (`onConflict`,
   * `returning`): an upsert of counters, a ledger row written at most once. `rows` must not be empty.
   */
  insertInto<T extends ScopedTable>(table: T, rows: Database[T] | readonly Database[T][]): InsertQueryBuilder<Database, T, InsertResult>;
  /** The caller's access filter. */
  readonly access: AccessFilter;
}

/**
 * The one access policy (issue 26.2; in the spirit of Medplum's repository security filters):
 * every query a repository runs for a caller starts here, so the tenant and location conditions
 * come from the table's policy, never from each function remembering them. Jobs pass an access
 * filter too (`wholeTenant`, or `{ tenantId, locationIds: null }` of the row they work on).
 */
export function scoped(db: Executor, access: AccessFilter): ScopedQueries {
  return {
    access,
    selectFrom<TE extends ScopedFrom>(from: TE): SelectFromResult<TE> {
      const { table, ref } = split(from);
      const query = db.selectFrom(from as ScopedTable) as unknown as { where(condition: Expression<SqlBool>): unknown };
      return query.where(visibleRowCondition(table, ref, access)) as SelectFromResult<TE>;
    },
    updateTable<T extends ScopedTable>(table: T) {
      const query = db.updateTable(table) as unknown as { where(condition: Expression<SqlBool>): unknown };
      return query.where(visibleRowCondition(table, table, access)) as UpdateQueryBuilder<Database, T, T, UpdateResult>;
    },
    deleteFrom<T extends ScopedTable>(table: T) {
      const query = db.deleteFrom(table) as unknown as { where(condition: Expression<SqlBool>): unknown };
      return query.where(visibleRowCondition(table, table, access)) as DeleteQueryBuilder<Database, T, DeleteResult>;
    },
    async insert<T extends ScopedTable>(table: T, rows: Database[T] | readonly Database[T][]) {
      const list = checkedRows(table, access, rows);
      if (list.length === 0) return;
      await (db.insertInto(table) as unknown as { values(v: unknown): { execute(): Promise<unknown> } }).values(list).execute();
    },
    insertInto<T extends ScopedTable>(table: T, rows: Database[T] | readonly Database[T][]) {
      const list = checkedRows(table, access, rows);
      if (list.length === 0) throw new Error(`insert into ${table}: no rows`);
      return (db.insertInto(table) as unknown as { values(v: unknown): unknown }).values(list) as InsertQueryBuilder<Database, T, InsertResult>;
    },
  };
}

/**
 * The hot paths' insert (`insertRow`: prepared SQL text, where building the statement with Kysely
 * cost more than running it) after the same check `scoped().insert` makes.
 */
export async function insertCallersRow<T extends ScopedTable>(db: Executor, access: AccessFilter, table: T, row: Database[T]): Promise<void> {
  checkedRows(table, access, row);
  await insertRow(db, table, row);
}

/** The rows of an insert, each checked to be the caller's: its tenant, and one of its locations when it is location-scoped. */
export function checkedRows(table: ScopedTable, access: AccessFilter, rows: unknown): readonly Record<string, unknown>[] {
  const list = (Array.isArray(rows) ? rows : [rows]) as readonly Record<string, unknown>[];
  const location = list.length === 0 ? null : locationColumnOf(table);
  for (const row of list) {
    if (row.tenant_id !== access.tenantId) throw new Error(`insert into ${table}: a row of another tenant`);
    if (location !== null && access.locationIds !== null && !access.locationIds.includes(row[location] as string)) {
      throw new Error(`insert into ${table}: a row at a location the caller does not cover`);
    }
  }
  return list;
}

/**
 * A raw connection a worker thread opened for one tenant's rows (the knowledge indexing worker
 * writing one document's chunks): no access object crosses to a thread, so each statement prepared
 * on it names the tenant in its text, the tenant whose access the main thread checked before it
 * handed the work over. Named, like `acrossTenants`, so such connections are visible and counted.
 */
export function forOneTenant(db: SQLite.Database, _tenantId: string, _why: string): SQLite.Database {
  return db;
}

/**
 * The database for work that spans tenants by design (a sweep of expired rows, a job finding its
 * due rows in every tenant, a migration-like repair). Named so each such use is visible and counted;
 * `why` is for the reader. The raw SQLite connection goes through it too, where a hot path prepares
 * its own statements across tenants (the webhook dispatcher's delivery-statements.ts): each of those
 * statements then carries the tenant in its text or its joins, as a hand-written query does.
 */
export function acrossTenants(db: Executor, why: string): Executor;
export function acrossTenants(db: SQLite.Database, why: string): SQLite.Database;
export function acrossTenants(db: Executor | SQLite.Database, _why: string): Executor | SQLite.Database {
  return db;
}
