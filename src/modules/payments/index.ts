// The service API other modules bill through, inside their own transaction.
export { amountDueOf, createInvoice, creditedSoFar, finalizeInvoice, getInvoice, markInvoiceUncollectible, voidInvoice } from './invoices.service.js';
export { postJournal, type JournalLine, type JournalPosting } from './ledger.service.js';
export { createRefund, getPayment, recordPayment } from './payments.service.js';
export { refundablePaymentsOf } from './payments.repository.js';
export { onInvoicePaid, onRefund, type InvoicePaidHook, type RefundHook, type RefundRequest } from './invoice-hooks.js';
export { billNextPeriod, cancelSubscription, createSubscription } from './subscriptions.service.js';
export { adjustWallet, createWallet, moveWallet, topUpWallet } from './wallets.service.js';
export { accounts } from './ledger-accounts.js';
export { taxOf, isCurrency, maxAmount, PositiveAmount } from './money.js';
export type { InvoiceWithLines } from './invoices.repository.js';
export type { InvoicesTable, RefundsTable, SettlementsTable } from './payments.table.js';
export { paymentsModule } from './payments.module.js';
