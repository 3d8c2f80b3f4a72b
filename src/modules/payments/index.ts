import type { Clock } from '../../clock.js';
import type { AnyRoute } from '../../http/route.js';
import type { JobDefinition } from '../../jobs/job-definition.js';
import { invoiceRoutes } from './invoices.routes.js';
import { ledgerRoutes } from './ledger.routes.js';
import { paymentAndRefundRoutes } from './payments.routes.js';
import { settlementJob } from './settlement.job.js';
import { settlementRoutes } from './settlements.routes.js';
import { subscriptionBillingJob } from './subscription-billing.job.js';
import { subscriptionRoutes } from './subscriptions.routes.js';
import { walletRoutes } from './wallets.routes.js';

/** Every route of the money ledger (DESIGN §9). */
export function paymentRoutes(deps: { clock: Clock }): AnyRoute[] {
  return [...ledgerRoutes(), ...invoiceRoutes(deps), ...paymentAndRefundRoutes(deps), ...walletRoutes(deps), ...subscriptionRoutes(deps), ...settlementRoutes()];
}

/** The money jobs: `subscription-billing` (hourly) and `settlement` (daily closes). */
export function paymentJobs(): JobDefinition[] {
  return [subscriptionBillingJob(), settlementJob()];
}

// The service API other modules bill through, inside their own transaction.
export { amountDueOf, createInvoice, creditedSoFar, finalizeInvoice, getInvoice, markInvoiceUncollectible, voidInvoice } from './invoices.service.js';
export { postJournal, type JournalLine, type JournalPosting } from './ledger.service.js';
export { createRefund, getPayment, recordPayment } from './payments.service.js';
export { refundablePaymentsOf } from './payments.repository.js';
export { onInvoicePaid, onRefund, type InvoicePaidHook, type RefundHook, type RefundRequest } from './invoice-hooks.js';
export { cancelSubscription, createSubscription } from './subscriptions.service.js';
export { adjustWallet, createWallet, moveWallet, topUpWallet } from './wallets.service.js';
export { accounts } from './ledger-accounts.js';
export { taxOf, isCurrency, maxAmount, PositiveAmount } from './money.js';
export type { InvoiceWithLines } from './invoices.repository.js';
export type { InvoicesTable, RefundsTable, SettlementsTable } from './payments.table.js';
export { eraseMoneyRecords } from './money-erasure.repository.js';
export { paymentsModule } from './payments.module.js';
