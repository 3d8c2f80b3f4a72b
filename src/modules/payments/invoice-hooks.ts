import type { Executor } from '../../db/database.js';
import type { InvoicesTable, PaymentsTable } from './payments.table.js';

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
 * A check another module makes before a refund of a payment is written, in the same transaction:
 * it may refuse (throw an AppError) a refund its records must map, e.g. a marketplace order's
 * payment refunded around the order. Hooks ignore payments not their own.
 */
export type RefundHook = (trx: Executor, payment: PaymentsTable, amount: number, request: RefundRequest) => Promise<void>;

const refundHooks = new Set<RefundHook>();

export function onRefund(hook: RefundHook): void {
  refundHooks.add(hook);
}

export async function runRefundHooks(trx: Executor, payment: PaymentsTable, amount: number, request: RefundRequest): Promise<void> {
  for (const hook of refundHooks) await hook(trx, payment, amount, request);
}
