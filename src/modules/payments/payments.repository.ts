import { scoped } from '../../db/access-policy.js';
import type { Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { PaymentMethod, PaymentsTable, RefundsTable } from './payments.table.js';
import { insertRows, runVisibleStatement, sqlText, visibleText } from './money-sql.js';
import { findVisibleById, visibleById } from '../../db/find-visible.js';
import type { TimeRange } from './time-range.js';

// Payments and refunds belong to a location (their invoice's, or the one given): the caller's filter applies to it.
const paymentById = visibleById('payments', 'location_id');
const refundById = visibleById('refunds', 'location_id');

export async function findPayment(db: Executor, access: AccessFilter, id: string): Promise<PaymentsTable | null> {
  return findVisibleById<PaymentsTable>(db, paymentById, access, id);
}

export async function findRefund(db: Executor, access: AccessFilter, id: string): Promise<RefundsTable | null> {
  return findVisibleById<RefundsTable>(db, refundById, access, id);
}

export interface PaymentListFilters {
  parentId?: string | undefined;
  invoiceId?: string | undefined;
  method?: PaymentMethod | undefined;
  range: TimeRange;
}

export async function listPayments(db: Executor, access: AccessFilter, page: PageRequest, filters: PaymentListFilters): Promise<PaymentsTable[]> {
  let query = scoped(db, access).selectFrom('payments').selectAll();
  if (filters.parentId !== undefined) query = query.where('parent_id', '=', filters.parentId);
  if (filters.invoiceId !== undefined) {
    const invoiceId = filters.invoiceId;
    // An invoice's payments are its parent's: naming the parent lets the (parent_id, invoice_id) index serve.
    if (filters.parentId === undefined)
      query = query.where('parent_id', '=', (eb) => eb.selectFrom('invoices').select('parent_id').where('id', '=', invoiceId));
    query = query.where('invoice_id', '=', invoiceId);
  }
  if (filters.method !== undefined) query = query.where('method', '=', filters.method);
  if (filters.range.from !== undefined) query = query.where('created_at', '>=', filters.range.from);
  if (filters.range.to !== undefined) query = query.where('created_at', '<', filters.range.to);
  return pageQuery(query, page).execute();
}

export interface RefundListFilters {
  paymentId?: string | undefined;
  invoiceId?: string | undefined;
  range: TimeRange;
}

export async function listRefunds(db: Executor, access: AccessFilter, page: PageRequest, filters: RefundListFilters): Promise<RefundsTable[]> {
  let query = scoped(db, access).selectFrom('refunds').selectAll();
  if (filters.paymentId !== undefined) query = query.where('payment_id', '=', filters.paymentId);
  if (filters.invoiceId !== undefined) query = query.where('invoice_id', '=', filters.invoiceId);
  if (filters.range.from !== undefined) query = query.where('created_at', '>=', filters.range.from);
  if (filters.range.to !== undefined) query = query.where('created_at', '<', filters.range.to);
  return pageQuery(query, page).execute();
}

export async function insertPayment(db: Executor, access: AccessFilter, row: PaymentsTable): Promise<void> {
  await insertRows(db, access, 'payments', [row]);
}

export async function insertRefund(db: Executor, access: AccessFilter, row: RefundsTable): Promise<void> {
  await insertRows(db, access, 'refunds', [row]);
}

/** Adds to the refunded total of a payment the caller may see; the CHECK amount_refunded <= amount refuses an overshoot. */
export async function addRefunded(db: Executor, access: AccessFilter, paymentId: string, amount: number): Promise<void> {
  const visible = visibleText('payments', access);
  const text = sqlText(`refunded:${visible.text}`, () => `update "payments" set "amount_refunded" = "amount_refunded" + ? where "id" = ?${visible.text}`);
  await runVisibleStatement(db, text, [amount, paymentId, ...visible.parameters]);
}

/**
 * The payments applied to an invoice that still have money left to refund, oldest first (the
 * invoice was found through the caller's filter: its payments are looked up in the whole tenant).
 */
export async function refundablePaymentsOf(db: Executor, tenantId: string, invoiceId: string): Promise<PaymentsTable[]> {
  return scoped(db, { tenantId, locationIds: null })
    .selectFrom('payments')
    .selectAll()
    .where('invoice_id', '=', invoiceId)
    .whereRef('amount_refunded', '<', 'amount')
    .orderBy('id')
    .execute();
}
