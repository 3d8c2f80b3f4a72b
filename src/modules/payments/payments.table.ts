/**
 * Tables of the money ledger (DESIGN §9). Amounts are integer minor units; times ISO 8601 UTC;
 * dates YYYY-MM-DD. Other modules (boarding, grooming, marketplace, analytics) read these
 * columns: add more, never rename them.
 */

/** One balanced posting: its lines (ledger_lines) sum to zero; written once, never changed. */
export interface LedgerEntriesTable {
  id: string;
  tenant_id: string;
  location_id: string | null;
  /** invoice | payment | refund | wallet (top-up, adjustment), … */
  source_type: string;
  source_id: string;
  currency: string;
  memo: string;
  created_at: string;
}

export interface LedgerLinesTable {
  entry_id: string;
  position: number;
  tenant_id: string;
  /** e.g. receivable:usr_…, cash:card_terminal, revenue:loc_…, tax_payable:loc_…, wallet:wal_… */
  account: string;
  /** Signed: positive = debit, negative = credit. */
  amount: number;
}

export type InvoiceStatus = 'draft' | 'open' | 'paid' | 'void' | 'uncollectible';

export interface InvoicesTable {
  id: string;
  tenant_id: string;
  location_id: string;
  parent_id: string;
  pet_id: string | null;
  /** Assigned at finalization, gapless per location (e.g. DT-000042); null while draft. */
  number: string | null;
  status: InvoiceStatus;
  currency: string;
  subtotal: number;
  tax: number;
  total: number;
  /** Sum of the payments applied (refunds do not lower it; they count in amount_refunded). */
  amount_paid: number;
  amount_refunded: number;
  due_on: string | null;
  /** The subscription that billed it (subscription_invoices holds the period). */
  subscription_id: string | null;
  created_at: string;
  updated_at: string;
  finalized_at: string | null;
  paid_at: string | null;
  voided_at: string | null;
  uncollectible_at: string | null;
}

export interface InvoiceLinesTable {
  id: string;
  invoice_id: string;
  tenant_id: string;
  position: number;
  description: string;
  quantity: number;
  unit_amount: number;
  /** quantity × unit_amount */
  amount: number;
  tax_rate_bps: number;
  /** round-half-up(amount × tax_rate_bps / 10000) */
  tax_amount: number;
  /** What the line bills, e.g. a booking (bkg_…). */
  source_id: string | null;
}

export interface InvoiceNumberCountersTable {
  tenant_id: string;
  location_id: string;
  /** Fixed at the location's first invoice, so a renamed location keeps one series. */
  prefix: string;
  last_number: number;
}

export type PaymentMethod = 'cash' | 'card_terminal' | 'bank_transfer' | 'check' | 'wallet';

export interface PaymentsTable {
  id: string;
  tenant_id: string;
  location_id: string;
  parent_id: string;
  invoice_id: string | null;
  /** Set for method wallet: the wallet debited. */
  wallet_id: string | null;
  amount: number;
  amount_refunded: number;
  currency: string;
  method: PaymentMethod;
  reference: string | null;
  status: 'succeeded';
  /** The daily close that counted it. */
  settlement_id: string | null;
  created_at: string;
}

export interface RefundsTable {
  id: string;
  tenant_id: string;
  location_id: string;
  payment_id: string;
  invoice_id: string | null;
  amount: number;
  currency: string;
  reason: string | null;
  status: 'succeeded';
  settlement_id: string | null;
  created_at: string;
}

export interface WalletsTable {
  id: string;
  tenant_id: string;
  parent_id: string;
  currency: string;
  /** Moved only by wallet_transactions (a trigger applies each); CHECK balance >= 0. */
  balance: number;
  created_at: string;
  updated_at: string;
}

export type WalletTransactionType = 'top_up' | 'payment' | 'refund' | 'adjustment';

export interface WalletTransactionsTable {
  id: string;
  tenant_id: string;
  wallet_id: string;
  type: WalletTransactionType;
  /** Signed: positive adds to the balance. */
  amount: number;
  balance_after: number;
  /** The payment, refund or ledger entry behind it. */
  source_id: string | null;
  method: string | null;
  reference: string | null;
  reason: string | null;
  created_at: string;
}

export type SubscriptionStatus = 'trialing' | 'active' | 'past_due' | 'paused' | 'canceled';
export type SubscriptionInterval = 'week' | 'month' | 'year';
export type SubscriptionCollection = 'wallet' | 'send_invoice';

export interface SubscriptionsTable {
  id: string;
  tenant_id: string;
  location_id: string;
  parent_id: string;
  pet_id: string | null;
  description: string;
  amount: number;
  currency: string;
  interval: SubscriptionInterval;
  interval_count: number;
  collection: SubscriptionCollection;
  status: SubscriptionStatus;
  start_date: string;
  /** First day after the trial (= anchor_date), null without a trial. */
  trial_end: string | null;
  /** Period n starts at anchor_date + n × interval_count intervals (computed from the anchor: no drift). */
  anchor_date: string;
  /** The next period to invoice. */
  next_period_index: number;
  current_period_start: string;
  /** Exclusive: the next period starts that day. */
  current_period_end: string;
  latest_invoice_id: string | null;
  cancel_at_period_end: number;
  canceled_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface SubscriptionInvoicesTable {
  subscription_id: string;
  period_start: string;
  period_end: string;
  invoice_id: string;
  tenant_id: string;
  created_at: string;
}

export interface SettlementsTable {
  id: string;
  tenant_id: string;
  kind: 'daily_close' | 'provider_payout';
  location_id: string | null;
  provider_id: string | null;
  period_start: string;
  period_end: string;
  currency: string;
  gross: number;
  refunds: number;
  net: number;
  /** JSON object: method → net amount. */
  by_method: string;
  payment_count: number;
  refund_count: number;
  /** closed (daily_close); pending | paid (provider_payout). */
  status: string;
  created_at: string;
  /** provider_payout: the commission the statement keeps (0 for daily_close); net = gross − refunds − commission. */
  commission: number;
  /** provider_payout: when it was marked paid. */
  paid_at: string | null;
}

export interface DailyCloseMarksTable {
  tenant_id: string;
  location_id: string;
  /** The last local date closed at the location. */
  closed_through: string;
  updated_at: string;
}

export interface MoneyErasuresTable {
  tenant_id: string;
  reason: string;
}

export interface PaymentsTables {
  ledger_entries: LedgerEntriesTable;
  ledger_lines: LedgerLinesTable;
  invoices: InvoicesTable;
  invoice_lines: InvoiceLinesTable;
  invoice_number_counters: InvoiceNumberCountersTable;
  payments: PaymentsTable;
  refunds: RefundsTable;
  wallets: WalletsTable;
  wallet_transactions: WalletTransactionsTable;
  subscriptions: SubscriptionsTable;
  subscription_invoices: SubscriptionInvoicesTable;
  settlements: SettlementsTable;
  daily_close_marks: DailyCloseMarksTable;
  money_erasures: MoneyErasuresTable;
}
