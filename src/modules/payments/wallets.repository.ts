import type { Executor } from '../../db/database.js';
import { inList } from '../../db/in-list.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { WalletsTable, WalletTransactionsTable } from './payments.table.js';

/**
 * A wallet is visible when its parent is: it follows the parent wherever the parent is kept now
 * (the pet-parents policy: the tenant, and the caller's locations when it is location-scoped).
 */
function visible(db: Executor, access: AccessFilter) {
  let query = db.selectFrom('wallets').selectAll().where('tenant_id', '=', access.tenantId);
  if (access.locationIds !== null) {
    const locations = inList(access.locationIds);
    query = query.where('parent_id', 'in', (eb) =>
      eb.selectFrom('pet_parents').select('id').where('tenant_id', '=', access.tenantId).where('location_id', 'in', locations),
    );
  }
  return query;
}

export async function findWallet(db: Executor, access: AccessFilter, id: string): Promise<WalletsTable | null> {
  return (await visible(db, access).where('id', '=', id).executeTakeFirst()) ?? null;
}

export async function findParentWallet(db: Executor, tenantId: string, parentId: string, currency: string): Promise<WalletsTable | null> {
  const row = await db
    .selectFrom('wallets')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('parent_id', '=', parentId)
    .where('currency', '=', currency)
    .executeTakeFirst();
  return row ?? null;
}

export async function listParentWalletCurrencies(db: Executor, tenantId: string, parentId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('wallets')
    .select('currency')
    .where('tenant_id', '=', tenantId)
    .where('parent_id', '=', parentId)
    .orderBy('currency')
    .execute();
  return rows.map((r) => r.currency);
}

export async function listWallets(db: Executor, access: AccessFilter, page: PageRequest, filters: { parentId?: string | undefined }): Promise<WalletsTable[]> {
  let query = visible(db, access);
  if (filters.parentId !== undefined) query = query.where('parent_id', '=', filters.parentId);
  return pageQuery(query, page).execute();
}

export async function insertWallet(db: Executor, row: WalletsTable): Promise<void> {
  await db.insertInto('wallets').values(row).execute();
}

/** Appends a transaction; a trigger moves the wallet's balance to its balance_after (CHECK ≥ 0). */
export async function insertWalletTransaction(db: Executor, row: WalletTransactionsTable): Promise<void> {
  await db.insertInto('wallet_transactions').values(row).execute();
}

export async function listWalletTransactions(db: Executor, walletId: string, page: PageRequest): Promise<WalletTransactionsTable[]> {
  return pageQuery(db.selectFrom('wallet_transactions').selectAll().where('wallet_id', '=', walletId), page).execute();
}

/** The balance as it stands inside the caller's transaction. */
export async function walletBalance(db: Executor, walletId: string): Promise<number> {
  const row = await db.selectFrom('wallets').select('balance').where('id', '=', walletId).executeTakeFirstOrThrow();
  return row.balance;
}
