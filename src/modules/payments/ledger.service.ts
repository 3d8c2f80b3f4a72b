import { newId } from '../../db/ids.js';
import type { Executor } from '../../db/database.js';
import { isoAt } from '../../clock.js';
import type { AccessFilter } from '../../http/actor.js';
import { insertRows } from './money-sql.js';
import type { LedgerEntriesTable, LedgerLinesTable } from './payments.table.js';

export interface JournalLine {
  account: string;
  /** Signed minor units: positive = debit, negative = credit. */
  amount: number;
}

export interface JournalPosting {
  tenantId: string;
  /** Where the money moved (scoping of GET /v1/ledger/entries). */
  locationId: string | null;
  /** invoice | payment | refund | wallet | … (with sourceId: what caused the movement). */
  sourceType: string;
  sourceId: string;
  currency: string;
  memo: string;
  lines: readonly JournalLine[];
}

export interface PostedEntry {
  entry: LedgerEntriesTable;
  lines: LedgerLinesTable[];
}

/** Checks and shapes one posting: zero lines dropped, lines on one account merged; null when nothing moves. */
function prepare(posting: JournalPosting, now: number): PostedEntry | null {
  const merged = new Map<string, number>();
  for (const line of posting.lines) {
    if (!Number.isSafeInteger(line.amount)) throw new Error(`journal line ${line.account} is not a whole amount: ${line.amount}`);
    merged.set(line.account, (merged.get(line.account) ?? 0) + line.amount);
  }
  const kept = [...merged].filter(([, amount]) => amount !== 0);
  const sum = kept.reduce((acc, [, amount]) => acc + amount, 0);
  if (sum !== 0) throw new Error(`journal entry for ${posting.sourceType} ${posting.sourceId} does not balance (sum ${sum})`);
  if (kept.length === 0) return null;
  const entry: LedgerEntriesTable = {
    id: newId('je'),
    tenant_id: posting.tenantId,
    location_id: posting.locationId,
    source_type: posting.sourceType,
    source_id: posting.sourceId,
    currency: posting.currency,
    memo: posting.memo,
    created_at: isoAt(now),
  };
  const lines: LedgerLinesTable[] = kept.map(([account, amount], position) => ({ entry_id: entry.id, position, tenant_id: posting.tenantId, account, amount }));
  return { entry, lines };
}

/**
 * Posts balanced journal entries in the caller's transaction, in order. Zero lines are dropped and
 * lines on the same account merged; a posting left with nothing to move posts nothing. The database
 * refuses an unbalanced entry too (trigger ledger_entries_balanced): this check names the bug sooner.
 * All lines go in one statement and all entries in another (each entry checks and seals its lines).
 */
export async function postJournalEntries(trx: Executor, postings: readonly JournalPosting[], now: number): Promise<PostedEntry[]> {
  const posted = postings.map((p) => prepare(p, now)).filter((p): p is PostedEntry => p !== null);
  if (posted.length === 0) return [];
  // The postings' tenant is the caller's (each service builds it from the rows it found); insertRows
  // checks every row is of it.
  const access: AccessFilter = { tenantId: posted[0]!.entry.tenant_id, locationIds: null };
  // Lines first, then the entries: inserting an entry checks its lines and seals it.
  await insertRows(
    trx,
    access,
    'ledger_lines',
    posted.flatMap((p) => p.lines),
  );
  await insertRows(
    trx,
    access,
    'ledger_entries',
    posted.map((p) => p.entry),
  );
  return posted;
}

/** Posts one balanced journal entry in the caller's transaction (null when nothing moves). */
export async function postJournal(trx: Executor, posting: JournalPosting, now: number): Promise<PostedEntry | null> {
  const [posted] = await postJournalEntries(trx, [posting], now);
  return posted ?? null;
}
