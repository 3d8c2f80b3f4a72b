import { newId } from '../../db/ids.js';
import type { Executor } from '../../db/database.js';
import { isoAt } from '../../clock.js';
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

/**
 * Posts one balanced journal entry in the caller's transaction. Zero lines are dropped and lines on
 * the same account merged; an entry left with nothing to move posts nothing (null). The database
 * refuses an unbalanced entry too (trigger ledger_entries_balanced): this check names the bug sooner.
 */
export async function postJournal(trx: Executor, posting: JournalPosting, now: number): Promise<PostedEntry | null> {
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
    id: newId('je', now),
    tenant_id: posting.tenantId,
    location_id: posting.locationId,
    source_type: posting.sourceType,
    source_id: posting.sourceId,
    currency: posting.currency,
    memo: posting.memo,
    created_at: isoAt(now),
  };
  const lines: LedgerLinesTable[] = kept.map(([account, amount], position) => ({ entry_id: entry.id, position, tenant_id: posting.tenantId, account, amount }));
  // Lines first, then the entry: inserting the entry checks its lines and seals it.
  await trx.insertInto('ledger_lines').values(lines).execute();
  await trx.insertInto('ledger_entries').values(entry).execute();
  return { entry, lines };
}
