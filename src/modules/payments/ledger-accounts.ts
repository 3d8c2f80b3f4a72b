import type { PaymentMethod } from './payments.table.js';

/**
 * The chart of accounts (DESIGN §9). Amounts are signed: positive = debit, negative = credit.
 * receivable and cash are assets (debit balances); revenue, tax_payable and wallet are credit
 * balances (a wallet is money the clinic holds for the parent).
 */
export const accounts = {
  receivable: (parentId: string) => `receivable:${parentId}`,
  cash: (method: Exclude<PaymentMethod, 'wallet'>) => `cash:${method}`,
  revenue: (locationId: string) => `revenue:${locationId}`,
  taxPayable: (locationId: string) => `tax_payable:${locationId}`,
  wallet: (walletId: string) => `wallet:${walletId}`,
  /** Invoices written off as uncollectible. */
  badDebt: (locationId: string) => `bad_debt:${locationId}`,
  /** The other side of an admin's wallet adjustment (goodwill credit, correction). */
  walletAdjustments: (locationId: string) => `wallet_adjustments:${locationId}`,
  /** What the clinic group owes a marketplace provider (credit balance until paid out). */
  providerPayable: (providerId: string) => `provider_payable:${providerId}`,
  /** The group's marketplace commission earned at a location (credit balance, like revenue). */
  commission: (locationId: string) => `commission:${locationId}`,
} as const;
