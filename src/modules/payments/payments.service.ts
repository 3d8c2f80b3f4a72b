import type { Executor } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import { isoAt } from '../../clock.js';
import { wholeTenant, type AccessFilter } from '../../http/actor.js';
import { AppError, foundOr404, missingReference, validationFailed } from '../../http/errors.js';
import { emit } from '../events/index.js';
import { findLocation } from '../locations/index.js';
import { findPetParent } from '../pet-parents/index.js';
import { findInvoice } from './invoices.repository.js';
import { runRefundHooks, type RefundRequest } from './invoice-hooks.js';
import { amountDueOf, applyPaymentToInvoice, applyRefundToInvoice, assertInvoiceTransition } from './invoices.service.js';
import { accounts } from './ledger-accounts.js';
import { postJournal, postJournalEntries, type JournalPosting } from './ledger.service.js';
import { isCurrency } from './money.js';
import { addRefunded, findPayment, findRefund, insertPayment, insertRefund } from './payments.repository.js';
import type { CreatePaymentInput, CreateRefundInput } from './payments.schema.js';
import type { InvoicesTable, PaymentMethod, PaymentsTable, RefundsTable } from './payments.table.js';
import { recoverIfSettled } from './subscriptions.repository.js';
import { findParentWallet, listParentWalletCurrencies } from './wallets.repository.js';
import { moveWallet } from './wallets.service.js';

export async function getPayment(db: Executor, access: AccessFilter, id: string): Promise<PaymentsTable> {
  return foundOr404(await findPayment(db, access, id), 'payment', id);
}

export async function getRefund(db: Executor, access: AccessFilter, id: string): Promise<RefundsTable> {
  return foundOr404(await findRefund(db, access, id), 'refund', id);
}

/** The account the money sits in once received: the desk's cash account per method, or the wallet. */
const fundsAccount = (method: PaymentMethod, walletId: string | null): string =>
  method === 'wallet' ? accounts.wallet(walletId ?? '') : accounts.cash(method);

/** The invoice a payment settles: visible (else 404), the parent's, in the currency, open (else 409) and not overpaid (422). */
async function payableInvoice(trx: Executor, access: AccessFilter, input: CreatePaymentInput, invoiceId: string): Promise<InvoicesTable> {
  const invoice = foundOr404(await findInvoice(trx, access, invoiceId), 'invoice', invoiceId);
  if (invoice.parent_id !== input.parentId)
    throw validationFailed([{ field: 'parentId', message: `invoice ${invoice.id} bills another pet parent (${invoice.parent_id})` }]);
  if (invoice.currency !== input.currency) throw validationFailed([{ field: 'currency', message: `invoice ${invoice.id} is in ${invoice.currency}` }]);
  if (input.locationId != null && input.locationId !== invoice.location_id) {
    throw validationFailed([{ field: 'locationId', message: `a payment of invoice ${invoice.id} belongs to its location ${invoice.location_id}` }]);
  }
  assertInvoiceTransition(invoice, 'paid', 'take a payment');
  const due = amountDueOf(invoice);
  if (input.amount > due) {
    throw new AppError('amount_exceeds_due', `Invoice ${invoice.id} has ${due} ${invoice.currency} due; a payment of ${input.amount} would overpay it.`, {
      extensions: { amountDue: due },
    });
  }
  return invoice;
}

/**
 * Records money the clinic received (cash, card terminal, transfer, check) or takes it from the
 * parent's wallet, in the caller's transaction: posts funds against the parent's receivable,
 * applies it to the invoice when given (paid once amountDue reaches 0), emits payment.completed.
 */
export async function recordPayment(trx: Executor, access: AccessFilter, input: CreatePaymentInput, now: number): Promise<PaymentsTable> {
  if (!isCurrency(input.currency)) throw validationFailed([{ field: 'currency', message: `'${input.currency}' is not an ISO 4217 currency code` }]);
  // The invoice first: paying one the caller cannot see is 404 whoever it bills.
  const invoice = input.invoiceId == null ? null : await payableInvoice(trx, access, input, input.invoiceId);
  let locationId: string;
  if (invoice) {
    // The invoice bills this parent (checked above): its location is the payment's.
    locationId = invoice.location_id;
  } else {
    const parent = await findPetParent(trx, access, input.parentId);
    if (!parent) throw missingReference('parentId', 'pet parent', input.parentId);
    locationId = parent.location_id;
    if (input.locationId != null) {
      if (!(await findLocation(trx, access, input.locationId))) throw missingReference('locationId', 'location', input.locationId);
      locationId = input.locationId;
    }
  }
  const parentId = input.parentId;

  const id = newId('pay');
  let walletId: string | null = null;
  if (input.method === 'wallet') {
    const wallet = await findParentWallet(trx, wholeTenant(access), parentId, input.currency);
    if (!wallet) {
      // A wallet in another currency is a mismatch in the request; no wallet at all is an empty one.
      const others = await listParentWalletCurrencies(trx, wholeTenant(access), parentId);
      if (others.length > 0)
        throw validationFailed([{ field: 'currency', message: `pet parent ${parentId} has wallets in ${others.join(', ')}, not ${input.currency}` }]);
      throw new AppError('insufficient_funds', `Pet parent ${parentId} has no ${input.currency} wallet to pay from.`, { extensions: { balance: 0 } });
    }
    walletId = wallet.id;
  }
  const row: PaymentsTable = {
    id,
    tenant_id: access.tenantId,
    location_id: locationId,
    parent_id: parentId,
    invoice_id: invoice?.id ?? null,
    wallet_id: walletId,
    amount: input.amount,
    amount_refunded: 0,
    currency: input.currency,
    method: input.method,
    reference: input.reference ?? null,
    status: 'succeeded',
    settlement_id: null,
    created_at: isoAt(now),
  };
  // The wallet first: a short balance refuses the payment before anything is written.
  if (walletId !== null)
    await moveWallet(
      trx,
      { id: walletId, tenant_id: access.tenantId, currency: input.currency },
      { type: 'payment', amount: -input.amount, sourceId: id },
      now,
    );
  await insertPayment(trx, access, row);
  await postJournal(
    trx,
    {
      tenantId: access.tenantId,
      locationId,
      sourceType: 'payment',
      sourceId: id,
      currency: input.currency,
      memo: invoice ? `payment of invoice ${invoice.number} by ${input.method}` : `payment on account by ${input.method}`,
      lines: [
        { account: fundsAccount(input.method, walletId), amount: input.amount },
        { account: accounts.receivable(parentId), amount: -input.amount },
      ],
    },
    now,
  );
  if (invoice) {
    const updated = await applyPaymentToInvoice(trx, invoice, input.amount, now);
    if (updated.status === 'paid' && updated.subscription_id) await recoverIfSettled(trx, wholeTenant(access), updated.subscription_id, isoAt(now));
  }
  await emit(
    trx,
    'payment.completed',
    { paymentId: id, invoiceId: row.invoice_id, parentId, amount: input.amount, currency: input.currency, method: input.method, locationId },
    access.tenantId,
    now,
  );
  return row;
}

/**
 * Pays money back on a payment: never more than is left of it across all its refunds (checked in
 * the write transaction, and by the CHECK amount_refunded <= amount), back to the wallet for a
 * wallet payment; the invoice's amountRefunded grows and its revenue and tax are credited. Then
 * the refund hooks map it to other modules' records (a marketplace order's lines), in the same
 * transaction.
 */
export async function createRefund(
  trx: Executor,
  access: AccessFilter,
  input: CreateRefundInput,
  now: number,
  request: RefundRequest = {},
): Promise<RefundsTable> {
  const payment = await getPayment(trx, access, input.paymentId);
  const left = payment.amount - payment.amount_refunded;
  const amount = input.amount ?? left;
  if (amount > left || left === 0) {
    throw new AppError(
      'refund_exceeds_payment',
      left === 0 ? `Payment ${payment.id} is fully refunded.` : `Payment ${payment.id} has ${left} ${payment.currency} left to refund; ${amount} is more.`,
      { extensions: { amountRefundable: left } },
    );
  }
  const id = newId('ref');
  const row: RefundsTable = {
    id,
    tenant_id: payment.tenant_id,
    location_id: payment.location_id,
    payment_id: payment.id,
    invoice_id: payment.invoice_id,
    amount,
    currency: payment.currency,
    reason: input.reason?.trim() ?? null,
    status: 'succeeded',
    settlement_id: null,
    created_at: isoAt(now),
  };
  await insertRefund(trx, access, row);
  await addRefunded(trx, access, payment.id, amount);
  if (payment.wallet_id !== null) {
    await moveWallet(trx, { id: payment.wallet_id, tenant_id: payment.tenant_id, currency: payment.currency }, { type: 'refund', amount, sourceId: id }, now);
  }
  const refundEntry: JournalPosting = {
    tenantId: payment.tenant_id,
    locationId: payment.location_id,
    sourceType: 'refund',
    sourceId: id,
    currency: payment.currency,
    memo: `refund of payment ${payment.id}${payment.wallet_id ? ' to its wallet' : ` by ${payment.method}`}`,
    lines: [
      { account: accounts.receivable(payment.parent_id), amount },
      { account: fundsAccount(payment.method, payment.wallet_id), amount: -amount },
    ],
  };
  // The money back, and (for an invoice's payment) the credit of that share of revenue and tax: two entries, one write.
  const credit = payment.invoice_id === null ? null : await applyRefundToInvoice(trx, payment.tenant_id, payment.invoice_id, amount, id, now);
  await postJournalEntries(trx, credit ? [refundEntry, credit] : [refundEntry], now);
  await emit(
    trx,
    'refund.created',
    { refundId: id, paymentId: payment.id, invoiceId: payment.invoice_id, amount, currency: payment.currency },
    payment.tenant_id,
    now,
  );
  await runRefundHooks(trx, row, request, now);
  return row;
}
