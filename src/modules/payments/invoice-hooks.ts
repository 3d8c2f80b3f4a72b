import type { Executor } from '../../db/database.js';
import type { InvoicesTable } from './payments.table.js';

/**
 * What another module does when one of its invoices becomes paid, inside the paying transaction
 * (a marketplace order moves to paid). Payments imports no module: modules that bill register here
 * (through payments' index) when their routes are built, and a hook ignores invoices not its own.
 */
export type InvoicePaidHook = (trx: Executor, invoice: InvoicesTable, now: number) => Promise<void>;

const invoicePaidHooks = new Set<InvoicePaidHook>();

export function onInvoicePaid(hook: InvoicePaidHook): void {
  invoicePaidHooks.add(hook);
}

export async function runInvoicePaidHooks(trx: Executor, invoice: InvoicesTable, now: number): Promise<void> {
  for (const hook of invoicePaidHooks) await hook(trx, invoice, now);
}
