import type { Static } from '@sinclair/typebox';
import type { InvoiceWithLines } from './invoices.repository.js';
import type { InvoiceSchema } from './invoices.schema.js';
import { amountDueOf } from './invoices.service.js';

export const presentInvoice = (row: InvoiceWithLines): Static<typeof InvoiceSchema> => ({
  id: row.id,
  number: row.number,
  status: row.status,
  parentId: row.parent_id,
  petId: row.pet_id,
  locationId: row.location_id,
  currency: row.currency,
  lines: row.lines.map((line) => ({
    id: line.id,
    description: line.description,
    quantity: line.quantity,
    unitAmount: line.unit_amount,
    amount: line.amount,
    taxRateBps: line.tax_rate_bps,
    taxAmount: line.tax_amount,
    sourceId: line.source_id,
  })),
  subtotal: row.subtotal,
  tax: row.tax,
  total: row.total,
  amountPaid: row.amount_paid,
  amountRefunded: row.amount_refunded,
  amountDue: amountDueOf(row),
  dueOn: row.due_on,
  createdAt: row.created_at,
  finalizedAt: row.finalized_at,
  paidAt: row.paid_at,
  voidedAt: row.voided_at,
});
