import type { Static } from '@sinclair/typebox';
import type { WalletsTable, WalletTransactionsTable } from './payments.table.js';
import type { WalletSchema, WalletTransactionSchema } from './wallets.schema.js';

export const presentWallet = (row: WalletsTable): Static<typeof WalletSchema> => ({
  id: row.id,
  parentId: row.parent_id,
  currency: row.currency,
  balance: row.balance,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export const presentWalletTransaction = (row: WalletTransactionsTable): Static<typeof WalletTransactionSchema> => ({
  id: row.id,
  type: row.type,
  amount: row.amount,
  balanceAfter: row.balance_after,
  sourceId: row.source_id,
  createdAt: row.created_at,
});
