import { scoped } from '../../db/access-policy.js';
import type { Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { WalletsTable, WalletTransactionsTable } from './payments.table.js';

// A wallet is visible when its parent is: it follows the parent wherever the parent is kept now
// (its policy: a child of pet_parents, so the tenant, and the caller's locations when it is location-scoped).

export async function findWallet(db: Executor, access: AccessFilter, id: string): Promise<WalletsTable | null> {
  return (await scoped(db, access).selectFrom('wallets').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
}

export async function findParentWallet(db: Executor, access: AccessFilter, parentId: string, currency: string): Promise<WalletsTable | null> {
  const row = await scoped(db, access).selectFrom('wallets').selectAll().where('parent_id', '=', parentId).where('currency', '=', currency).executeTakeFirst();
  return row ?? null;
}

export async function listParentWalletCurrencies(db: Executor, access: AccessFilter, parentId: string): Promise<string[]> {
  const rows = await scoped(db, access).selectFrom('wallets').select('currency').where('parent_id', '=', parentId).orderBy('currency').execute();
  return rows.map((r) => r.currency);
}

export async function listWallets(db: Executor, access: AccessFilter, page: PageRequest, filters: { parentId?: string | undefined }): Promise<WalletsTable[]> {
  let query = scoped(db, access).selectFrom('wallets').selectAll();
  if (filters.parentId !== undefined) query = query.where('parent_id', '=', filters.parentId);
  return pageQuery(query, page).execute();
}

export async function insertWallet(db: Executor, access: AccessFilter, row: WalletsTable): Promise<void> {
  await scoped(db, access).insert('wallets', row);
}

/** Appends a transaction; a trigger moves the wallet's balance to its balance_after (CHECK ≥ 0). */
export async function insertWalletTransaction(db: Executor, access: AccessFilter, row: WalletTransactionsTable): Promise<void> {
  await scoped(db, access).insert('wallet_transactions', row);
}

export async function listWalletTransactions(db: Executor, access: AccessFilter, walletId: string, page: PageRequest): Promise<WalletTransactionsTable[]> {
  return pageQuery(scoped(db, access).selectFrom('wallet_transactions').selectAll().where('wallet_id', '=', walletId), page).execute();
}

/** The balance as it stands inside the caller's transaction. */
export async function walletBalance(db: Executor, access: AccessFilter, walletId: string): Promise<number> {
  const row = await scoped(db, access).selectFrom('wallets').select('balance').where('id', '=', walletId).executeTakeFirstOrThrow();
  return row.balance;
}
