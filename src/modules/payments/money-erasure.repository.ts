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
  await db.insertInto('money_erasures').values({ tenant_id: tenantId, reason }).execute();
  for (const table of moneyTables) await db.deleteFrom(table).where('tenant_id', '=', tenantId).execute();
  await db.deleteFrom('money_erasures').where('tenant_id', '=', tenantId).execute();
}
