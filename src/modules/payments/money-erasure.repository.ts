import { scoped } from '../../db/access-policy.js';
import type { Executor } from '../../db/database.js';

/** Children first: every foreign key points at a table later in this list. */
export const moneyTables = [
  'subscription_invoices',
  'subscriptions',
  'refunds',
  'payments',
  'wallet_transactions',
  'wallets',
  'invoice_lines',
  'invoices',
  'invoice_number_counters',
  'ledger_lines',
  'ledger_entries',
  'settlements',
  'daily_close_marks',
] as const;

/**
 * Erases every money record of a tenant (sandbox reset only): the one deliberate exception to the
 * append-only journal. The money_erasures row lets the DELETEs through the triggers, and is removed
 * again in the same transaction.
 */
export async function eraseMoneyRecords(db: Executor, tenantId: string, reason: string): Promise<void> {
  const tenant = scoped(db, { tenantId, locationIds: null });
  await tenant.insert('money_erasures', { tenant_id: tenantId, reason });
  for (const table of moneyTables) await tenant.deleteFrom(table).execute();
  await tenant.deleteFrom('money_erasures').execute();
}
