import { runStatement, type Executor } from '../../db/database.js';

/**
 * Statements of the money hot paths (payments, refunds, the journal) as SQL text built once per
 * shape: Kysely's builder and compiler cost more than these primary-key reads and inserts. They run
 * through `runStatement` (src/db/database.ts), so inside the caller's transaction, synchronously
 * when the router holds it. A row by id under the caller's filter is `findVisibleById`
 * (src/db/find-visible.ts).
 */
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
  await runStatement(db, insertText(table, columns, rows.length), values);
}
