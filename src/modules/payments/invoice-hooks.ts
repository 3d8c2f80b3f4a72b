import type { Executor } from '../../db/database.js';
import type { InvoicesTable, RefundsTable } from './payments.table.js';

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

/** Who asks for a refund: a module refunding its own records says so (e.g. `marketplace`); POST /v1/refunds names nobody. */
export interface RefundRequest {
  initiator?: string;
}

/**
 * What another module does when a payment is refunded, in the refunding transaction, once the
 * refund, its wallet move and its journal entries are written: it maps the money to its own
 * records (a marketplace order's lines, commission and payouts) or refuses by throwing an AppError,
 * which rolls the whole refund back. Hooks ignore refunds not their own.
 */
export type RefundHook = (trx: Executor, refund: RefundsTable, request: RefundRequest, now: number) => Promise<void>;

const refundHooks = new Set<RefundHook>();

export function onRefund(hook: RefundHook): void {
  refundHooks.add(hook);
}

export async function runRefundHooks(trx: Executor, refund: RefundsTable, request: RefundRequest, now: number): Promise<void> {
  for (const hook of refundHooks) await hook(trx, refund, request, now);
}
