import type { Static } from '@sinclair/typebox';
import type { LedgerEntryWithLines } from './ledger.repository.js';
import type { LedgerEntrySchema } from './ledger.schema.js';

export const presentLedgerEntry = (row: LedgerEntryWithLines): Static<typeof LedgerEntrySchema> => ({
  id: row.id,
  sourceType: row.source_type,
  sourceId: row.source_id,
  currency: row.currency,
  memo: row.memo,
  createdAt: row.created_at,
  lines: row.lines.map((line) => ({ account: line.account, amount: line.amount })),
});
