import type { Static } from '@sinclair/typebox';
import type { PaymentsTable, RefundsTable } from './payments.table.js';
import type { PaymentSchema, RefundSchema } from './payments.schema.js';

export const presentPayment = (row: PaymentsTable): Static<typeof PaymentSchema> => ({
  id: row.id,
  status: row.status,
  parentId: row.parent_id,
  invoiceId: row.invoice_id,
  amount: row.amount,
  amountRefunded: row.amount_refunded,
  currency: row.currency,
  method: row.method,
  reference: row.reference,
  createdAt: row.created_at,
});

export const presentRefund = (row: RefundsTable): Static<typeof RefundSchema> => ({
  id: row.id,
  paymentId: row.payment_id,
  invoiceId: row.invoice_id,
  amount: row.amount,
  currency: row.currency,
  reason: row.reason,
  status: row.status,
  createdAt: row.created_at,
});
