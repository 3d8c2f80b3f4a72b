import { sql, type Kysely } from 'kysely';

/**
 * Repairs ids whose time part lies in the future. Until 2026-11-26 the id generator kept one
 * process-wide "last time" and took its time from the caller, so once the sandbox test clock had
 * been advanced, every id made by that process (live ones too) carried the advanced time until a
 * restart. Lists page by id, newest first, so those rows hid the rows made after the restart.
 *
 * Each such id gets the time part of its row's created_at (never later than now) and keeps its
 * 16 random characters; every text value in the database that contains it (foreign keys, JSON
 * arrays, event payloads, stored idempotent replies) is rewritten, except file storage keys (names
 * of files on disk, opaque). The tenant's id, which both environments' files share, stays. A database with no future-dated id is only probed: one index seek per
 * id prefix. Written out here, not imported, so this migration keeps meaning what it meant.
 */

const alphabet = '0123456789abcdefghjkmnpqrstvwxyz';
/** Ids more than this far ahead of the real clock are future-dated (room for a clock's drift between hosts). */
const toleranceMs = 10 * 60_000;
/** Rows read at a time from a rowid table. */
const pageRows = 10_000;
const idPattern = /\b([a-z]{2,5})_([0-9a-hjkmnp-tv-z]{10})([0-9a-hjkmnp-tv-z]{16})\b/g;

function encodeTime(ms: number): string {
  let out = '';
  for (let i = 0, value = Math.max(0, Math.floor(ms)); i < 10; i++, value = Math.floor(value / 32)) out = alphabet[value % 32]! + out;
  return out;
}

interface Column {
  name: string;
  type: string;
  pk: number;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
/** A key column as SQL: rowid bare (quoted, SQLite would read "rowid" as a string where no column has that name). */
const keyColumn = (name: string) => (name === 'rowid' ? 'rowid' : quote(name));

export async function up(db: Kysely<unknown>): Promise<void> {
  const now = Date.now();
  const floor = encodeTime(now + toleranceMs);
  const master = (await sql<{ type: string; name: string; sql: string | null }>`SELECT type, name, sql FROM sqlite_master`.execute(db)).rows;
  const virtual = master.filter((m) => m.type === 'table' && /^CREATE VIRTUAL TABLE/i.test(m.sql ?? '')).map((m) => m.name);
  const tables = master
    .filter((m) => m.type === 'table' && !/^(sqlite_|kysely_)/.test(m.name) && !/^CREATE VIRTUAL TABLE/i.test(m.sql ?? ''))
    // A tenant's id is shared by the live and sandbox files, which are repaired one at a time; it is never listed, so it keeps its id.
    .filter((m) => m.name !== 'tenants')
    .filter((m) => !virtual.some((v) => m.name.startsWith(`${v}_`)))
    .map((m) => ({ name: m.name, withoutRowid: /WITHOUT\s+ROWID\s*$/i.test((m.sql ?? '').trim()) }));
  const columnsOf = new Map<string, Column[]>();
  for (const t of tables) columnsOf.set(t.name, (await sql<Column>`SELECT name, type, pk FROM pragma_table_info(${t.name})`.execute(db)).rows);

  // 1. The map: each future-dated row id → its repaired id. Ids sort by prefix, then time: per prefix, one seek.
  const repaired = new Map<string, string>();
  for (const t of tables) {
    const columns = columnsOf.get(t.name)!;
    if (!columns.some((c) => c.name === 'id')) continue;
    const hasCreatedAt = columns.some((c) => c.name === 'created_at');
    let below = '\uffff';
    for (;;) {
      const top = (await sql<{ id: unknown }>`SELECT id FROM ${sql.table(t.name)} WHERE id < ${below} ORDER BY id DESC LIMIT 1`.execute(db)).rows[0];
      const match = typeof top?.id === 'string' ? /^([a-z]{2,5})_/.exec(top.id) : null;
      if (!match) break;
      const prefix = match[1]!;
      const future = (
        await sql<{
          id: string;
          created_at: string | null;
        }>`SELECT id, ${hasCreatedAt ? sql.ref('created_at') : sql`NULL`} AS created_at FROM ${sql.table(t.name)}
          WHERE id > ${`${prefix}_${floor}`} AND id < ${`${prefix}_~`} ORDER BY id`.execute(db)
      ).rows;
      // In id order, each new id above the one before: the rows keep their order among themselves.
      let previous = { at: -1, id: '' };
      for (const row of future) {
        const parts = /^([a-z]{2,5})_([0-9a-hjkmnp-tv-z]{10})([0-9a-hjkmnp-tv-z]{16})$/.exec(row.id);
        if (!parts) continue;
        const created = row.created_at === null ? Number.NaN : Date.parse(row.created_at);
        let at = Number.isFinite(created) ? Math.min(created, now) : now;
        if (at < previous.at || (at === previous.at && `${prefix}_${encodeTime(at)}${parts[3]}` <= previous.id)) at = previous.at + 1;
        previous = { at, id: `${prefix}_${encodeTime(at)}${parts[3]}` };
        repaired.set(row.id, previous.id);
      }
      below = `${prefix}_`;
    }
  }
  if (repaired.size === 0) return;

  // 2. Rewrite every text value naming one of them, with the triggers (append-only guards, counters) set aside.
  await db.transaction().execute(async (trx) => {
    await sql`PRAGMA defer_foreign_keys = ON`.execute(trx);
    const triggers = master.filter((m) => m.type === 'trigger' && m.sql !== null);
    for (const trigger of triggers) await sql`DROP TRIGGER ${sql.id(trigger.name)}`.execute(trx);
    const rewrite = (value: string) => value.replace(idPattern, (whole) => repaired.get(whole) ?? whole);
    for (const t of tables) {
      const columns = columnsOf.get(t.name)!;
      const text = columns.filter((c) => c.name !== 'storage_key' && (c.type === '' || /TEXT|CHAR|CLOB/i.test(c.type)));
      if (text.length === 0) continue;
      const keys = t.withoutRowid ? columns.filter((c) => c.pk > 0).map((c) => c.name) : ['rowid'];
      const select = `SELECT ${keys.map((k, i) => `${keyColumn(k)} AS k${i}`).join(', ')}, ${text.map((c, i) => `${quote(c.name)} AS v${i}`).join(', ')} FROM ${quote(t.name)}`;
      // A rowid table is read a page at a time (an audit trail may hold millions of rows); the few
      // WITHOUT ROWID tables, keyed by several columns, in one read.
      const pages = async function* (): AsyncGenerator<Record<string, unknown>[]> {
        if (t.withoutRowid) {
          yield (await sql.raw<Record<string, unknown>>(select).execute(trx)).rows;
          return;
        }
        for (let after: unknown = -Infinity; ; ) {
          const page = (await sql<Record<string, unknown>>`${sql.raw(select)} WHERE rowid > ${after} ORDER BY rowid LIMIT ${pageRows}`.execute(trx)).rows;
          if (page.length === 0) return;
          yield page;
          after = page[page.length - 1]!.k0;
        }
      };
      for await (const rows of pages())
        for (const row of rows) {
          let changed = false;
          const values = text.map((_, i) => {
            const value = row[`v${i}`];
            if (typeof value !== 'string' || value.length < 29) return value;
            const next = rewrite(value);
            if (next !== value) changed = true;
            return next;
          });
          if (!changed) continue;
          const assignments = sql.join(text.map((c, i) => sql`${sql.ref(c.name)} = ${values[i]}`));
          const where = sql.join(
            keys.map((k, i) => sql`${sql.raw(keyColumn(k))} IS ${row[`k${i}`]}`),
            sql` AND `,
          );
          await sql`UPDATE ${sql.table(t.name)} SET ${assignments} WHERE ${where}`.execute(trx);
        }
    }
    for (const trigger of triggers) await sql.raw(trigger.sql!).execute(trx);
  });
}

/** Nothing to undo: the repaired ids are ordinary ids, valid under every earlier schema. */
export async function down(): Promise<void> {}
