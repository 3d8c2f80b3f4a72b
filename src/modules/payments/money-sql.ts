import { CompiledQuery } from 'kysely';
import type { Executor } from '../../db/database.js';

/**
 * Statements of the money hot paths (payments, refunds, the journal) as SQL text built once per
 * shape: Kysely's builder and compiler cost more than these primary-key reads and inserts. They run
 * through the executor like any query, so inside the caller's transaction.
 */
export async function moneyRows<Row>(db: Executor, sql: string, parameters: readonly unknown[]): Promise<Row[]> {
  return (await db.executeQuery<Row>(CompiledQuery.raw(sql, [...parameters]))).rows;
}

export async function moneyRun(db: Executor, sql: string, parameters: readonly unknown[]): Promise<number> {
  const result = await db.executeQuery(CompiledQuery.raw(sql, [...parameters]));
  return Number(result.numAffectedRows ?? 0n);
}

const texts = new Map<string, string>();

/** SQL text for a shape, built once: `key` names the shape, `build` writes it. */
export function sqlText(key: string, build: () => string): string {
  let text = texts.get(key);
  if (text === undefined) {
    text = build();
    if (texts.size < 2000) texts.set(key, text);
  }
  return text;
}

/** INSERT of `count` rows with these columns. */
export const insertText = (table: string, columns: readonly string[], count = 1): string =>
  sqlText(`insert:${table}:${columns.join(',')}:${count}`, () => {
    const row = `(${columns.map(() => '?').join(', ')})`;
    return `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values ${Array.from({ length: count }, () => row).join(', ')}`;
  });

/** Inserts rows of one shape (the first row's keys) in one statement. */
export async function insertRows<Row extends object>(db: Executor, table: string, rows: readonly Row[]): Promise<void> {
  const first = rows[0];
  if (!first) return;
  const columns = Object.keys(first);
  const values: unknown[] = [];
  for (const row of rows) for (const column of columns) values.push((row as Record<string, unknown>)[column]);
  await moneyRun(db, insertText(table, columns, rows.length), values);
}

/** `select *` of one row by id through the caller's access filter (tenant, and locations when scoped). */
export async function findVisible<Row>(db: Executor, table: string, access: { tenantId: string; locationIds: readonly string[] | null }, id: string): Promise<Row | null> {
  const locations = access.locationIds;
  const count = locations === null ? -1 : locations.length;
  const text = sqlText(`find:${table}:${count}`, () => {
    const scope = count < 0 ? '' : count === 0 ? ' and 0' : ` and "location_id" in (${Array.from({ length: count }, () => '?').join(', ')})`;
    return `select * from "${table}" where "id" = ? and "tenant_id" = ?${scope}`;
  });
  const [row] = await moneyRows<Row>(db, text, locations === null ? [id, access.tenantId] : [id, access.tenantId, ...locations]);
  return row ?? null;
}
