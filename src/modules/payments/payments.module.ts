import type { ModuleManifest } from '../../module-manifest.js';
import type { PaymentsTables } from './payments.table.js';
import { invoiceRoutes } from './invoices.routes.js';
import { ledgerRoutes } from './ledger.routes.js';
import { eraseMoneyRecords, moneyTables } from './money-erasure.repository.js';
import { paymentAndRefundRoutes } from './payments.routes.js';
import { settlementJob } from './settlement.job.js';
import { settlementRoutes } from './settlements.routes.js';
import { subscriptionBillingJob } from './subscription-billing.job.js';
import { subscriptionRoutes } from './subscriptions.routes.js';
import { walletRoutes } from './wallets.routes.js';
import type { Clock } from '../../clock.js';
import { paymentsErrorCodes } from './payments.errors.js';
import { paymentsEvents } from './payments.events.js';

// The module's tables join the `Database` type here, so src/db imports no module.
declare module '../../db/database.js' {
  interface Database extends PaymentsTables {}
}

/** The money ledger (DESIGN §9): invoices, payments, refunds, wallets, subscriptions and settlements over one journal. */
export const paymentsModule: ModuleManifest<{ clock: Clock }> = {
  name: 'payments',
  events: paymentsEvents,
  errors: paymentsErrorCodes,
  sdk: {
    ledgerEntries: {
      list: 'listLedgerEntries',
    },
    invoices: {
      create: 'createInvoice',
      list: 'listInvoices',
      get: 'getInvoice',
      update: 'updateInvoice',
      finalize: 'finalizeInvoice',
      void: 'voidInvoice',
      markUncollectible: 'markInvoiceUncollectible',
    },
    payments: {
      create: 'createPayment',
      list: 'listPayments',
      get: 'getPayment',
    },
    refunds: {
      create: 'createRefund',
      list: 'listRefunds',
      get: 'getRefund',
    },
    wallets: {
      create: 'createWallet',
      list: 'listWallets',
      get: 'getWallet',
      topUp: 'topUpWallet',
      adjust: 'adjustWallet',
      transactions: 'listWalletTransactions',
    },
    subscriptions: {
      create: 'createSubscription',
      list: 'listSubscriptions',
      get: 'getSubscription',
      update: 'updateSubscription',
      cancel: 'cancelSubscription',
    },
    settlements: {
      list: 'listSettlements',
      get: 'getSettlement',
      markPaid: 'markProviderPayoutPaid',
    },
  },
  routes: (deps) => [
    ...ledgerRoutes(),
    ...invoiceRoutes(deps),
    ...paymentAndRefundRoutes(deps),
    ...walletRoutes(deps),
    ...subscriptionRoutes(deps),
    ...settlementRoutes(),
  ],
  // `subscription-billing` (hourly) and `settlement` (daily closes).
  jobs: () => [subscriptionBillingJob(), settlementJob()],
  tags: {
    Ledger: 'The double-entry journal behind every money figure: balanced, append-only entries.',
    Invoices: 'Invoices (inv_ ids): drafts, gapless numbers per location, line tax, finalize, void, write-off.',
    Payments: 'Money received (pay_ ids): cash, card terminal, transfer, check or wallet; applied to invoices.',
    Refunds: 'Money paid back on a payment (ref_ ids), never above what was paid.',
    Wallets: 'Prepaid balances per parent and currency (wal_ ids): top-ups, adjustments, transactions; never negative.',
    Subscriptions: 'Recurring plans (sub_ ids) invoiced each period, collected from the wallet or sent.',
    Settlements: 'Daily closes per location and local day (stl_ ids), and provider payouts.',
  },
  tables: [...moneyTables, 'money_erasures'],
  access: {
    subscription_invoices: { parent: 'subscriptions', key: 'subscription_id' },
    subscriptions: { location: 'location_id' },
    refunds: { location: 'location_id' },
    payments: { location: 'location_id' },
    wallet_transactions: { parent: 'wallets', key: 'wallet_id' },
    // A wallet is seen with its parent: a location-scoped caller sees the wallets of the parents it sees.
    wallets: { parent: 'pet_parents', key: 'parent_id' },
    invoice_lines: { parent: 'invoices', key: 'invoice_id' },
    invoices: { location: 'location_id' },
    invoice_number_counters: { location: 'location_id' },
    ledger_lines: { parent: 'ledger_entries', key: 'entry_id' },
    ledger_entries: { location: 'location_id' },
    settlements: {
      location: 'location_id',
      why:
        "a daily close is its location's; a row with no location is a provider payout, which sums the provider's sales at every location it serves, " +
        'so it is tenant-wide only: a location-scoped caller never sees it (location_id in (…) leaves a null out), and it is never nullIsGroupWide',
    },
    daily_close_marks: { location: 'location_id' },
    money_erasures: { location: null, why: "markers that let an erasure through the ledger's append-only trigger" },
  },
  reset: {
    // The journal is append-only: the erasure row lets the DELETEs through its triggers.
    erase: {
      tables: [...moneyTables, 'money_erasures'],
      run: (db, tenantId) => eraseMoneyRecords(db, tenantId, 'sandbox reset'),
    },
  },
};
