import { acrossTenants, checkedRows, locationColumnOf, type ScopedTable } from '../../db/access-policy.js';
import { runStatement, type Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';

/**
 * Statements of the money hot paths (payments, refunds, the journal) as SQL text built once per
 * shape: Kysely's builder and compiler cost more than these primary-key reads and inserts. They run
 * through `runStatement` (src/db/database.ts), so inside the caller's transaction, synchronously
 * when the router holds it. A row by id under the caller's filter is `findVisibleById`
 * (src/db/find-visible.ts).
 *
 * They are the access policy's hand-written exception (issue 26.2): each text carries the caller's
 * tenant and locations itself (`visibleText`), or each row is checked before it is inserted as
 * `scoped().insert` checks it, and runs on `acrossTenants` with that reason.
 */
const texts = new Map<string, string>();

/** Why the money statements may run outside `scoped()`. */
const handWritten = 'hand-written: tenant_id and locations in its text';

/** SQL text for a shape, built once: `key` names the shape, `build` writes it. */
export function sqlText(key: string, build: () => string): string {
  let text = texts.get(key);
  if (text === undefined) {
    text = build();
    if (texts.size < 2000) texts.set(key, text);
  }
  return text;
}

/**
 * The conditions "the caller may see this row of `table`" as SQL text to append to a `where`
 * (` and "tenant_id" = ?`, then the location column's `in (…)` for a location-scoped caller; an empty
 * list matches nothing, as `inList` has it), with their parameters. Only for a table whose policy
 * names a location column or none (not a child table).
 */
export function visibleText(table: ScopedTable, access: AccessFilter): { text: string; parameters: unknown[] } {
  const location = access.locationIds === null ? null : locationColumnOf(table);
  if (access.locationIds === null || location === null) return { text: ' and "tenant_id" = ?', parameters: [access.tenantId] };
  const count = access.locationIds.length;
  const text = sqlText(`visible:${table}:${count}`, () =>
    count === 0 ? ' and "tenant_id" = ? and 0' : ` and "tenant_id" = ? and "${location}" in (${new Array<string>(count).fill('?').join(', ')})`,
  );
  return { text, parameters: [access.tenantId, ...access.locationIds] };
}

/** A hand-written write confined by `visibleText`: runs it and returns the number of rows changed. */
export function runVisibleStatement(db: Executor, text: string, parameters: readonly unknown[]): Promise<number> {
  return runStatement(acrossTenants(db, handWritten), text, parameters);
}

/** INSERT of `count` rows with these columns. */
export const insertText = (table: string, columns: readonly string[], count = 1): string =>
  sqlText(`insert:${table}:${columns.join(',')}:${count}`, () => {
    const row = `(${columns.map(() => '?').join(', ')})`;
    return `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values ${Array.from({ length: count }, () => row).join(', ')}`;
  });

/**
 * Inserts rows of one shape (the first row's keys) in one statement, after the checks
 * `scoped().insert` makes: each row is of the caller's tenant and, for a location-scoped caller, at
 * one of its locations (a service that let another through has a bug).
 */
export async function insertRows<Row extends object>(db: Executor, access: AccessFilter, table: ScopedTable, rows: readonly Row[]): Promise<void> {
  const first = rows[0];
  if (!first) return;
  checkedRows(table, access, rows);
  const columns = Object.keys(first);
  const values: unknown[] = [];
  for (const row of rows) for (const column of columns) values.push((row as Record<string, unknown>)[column]);
  await runStatement(acrossTenants(db, handWritten), insertText(table, columns, rows.length), values);
}
