import { sql } from 'kysely';
import { scoped } from '../../db/access-policy.js';
import type { Executor } from '../../db/database.js';
import { wholeTenant, type AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { LedgerEntriesTable, LedgerLinesTable } from './payments.table.js';
import type { TimeRange } from './time-range.js';

/** Accounts the partial index ledger_lines_account_idx covers. */
const indexedAccount = (account: string): boolean => account.startsWith('receivable:') || account.startsWith('wallet:');

export interface LedgerEntryWithLines extends LedgerEntriesTable {
  lines: LedgerLinesTable[];
}

export interface LedgerFilters {
  account?: string | undefined;
  sourceId?: string | undefined;
  range: TimeRange;
}

/** Entries of the caller's tenant; a location-scoped caller sees those of its locations only. */
export async function listLedgerEntries(db: Executor, access: AccessFilter, page: PageRequest, filters: LedgerFilters): Promise<LedgerEntryWithLines[]> {
  let query = scoped(db, access).selectFrom('ledger_entries').selectAll();
  if (filters.sourceId !== undefined) query = query.where('source_id', '=', filters.sourceId);
  if (filters.account !== undefined) {
    const account = filters.account;
    query = query.where('id', 'in', (eb) => {
      const lines = eb.selectFrom('ledger_lines').select('entry_id').where('account', '=', account).where('tenant_id', '=', access.tenantId);
      // The same term as the partial index ledger_lines_account_idx, so SQLite uses it for per-parent and per-wallet accounts.
      return indexedAccount(account) ? lines.where(sql<boolean>`substr(account, 1, 7) in ('receiva', 'wallet:')`) : lines;
    });
  }
  if (filters.range.from !== undefined) query = query.where('created_at', '>=', filters.range.from);
  if (filters.range.to !== undefined) query = query.where('created_at', '<', filters.range.to);
  const entries = await pageQuery(query, page).execute();
  return attachLines(db, access, entries);
}

/** The lines of entries the caller was shown (so the tenant is enough to find them). */
export async function attachLines(db: Executor, access: AccessFilter, entries: LedgerEntriesTable[]): Promise<LedgerEntryWithLines[]> {
  if (entries.length === 0) return [];
  const lines = await scoped(db, wholeTenant(access))
    .selectFrom('ledger_lines')
    .selectAll()
    .where(
      'entry_id',
      'in',
      entries.map((e) => e.id),
    )
    .orderBy('entry_id')
    .orderBy('position')
    .execute();
  const byEntry = new Map<string, LedgerLinesTable[]>();
  for (const line of lines) {
    const list = byEntry.get(line.entry_id) ?? [];
    list.push(line);
    byEntry.set(line.entry_id, list);
  }
  return entries.map((entry) => ({ ...entry, lines: byEntry.get(entry.id) ?? [] }));
}
