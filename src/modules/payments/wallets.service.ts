import type { Executor } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import { isoAt } from '../../clock.js';
import { wholeTenant, type AccessFilter } from '../../http/actor.js';
import { AppError, foundOr404, missingReference, validationFailed } from '../../http/errors.js';
import { findPetParent } from '../pet-parents/index.js';
import { accounts } from './ledger-accounts.js';
import { postJournal } from './ledger.service.js';
import { isCurrency } from './money.js';
import type { PaymentMethod, WalletsTable, WalletTransactionsTable, WalletTransactionType } from './payments.table.js';
import { findParentWallet, findWallet, insertWallet, insertWalletTransaction, walletBalance } from './wallets.repository.js';
import type { AdjustWalletInput, CreateWalletInput, TopUpWalletInput } from './wallets.schema.js';

export async function getWallet(db: Executor, access: AccessFilter, id: string): Promise<WalletsTable> {
  return foundOr404(await findWallet(db, access, id), 'wallet', id);
}

/** One wallet per parent and currency: a second is 409 wallet_exists naming the first. */
export async function createWallet(trx: Executor, access: AccessFilter, input: CreateWalletInput, now: number): Promise<WalletsTable> {
  if (!isCurrency(input.currency)) throw validationFailed([{ field: 'currency', message: `'${input.currency}' is not an ISO 4217 currency code` }]);
  const parent = await findPetParent(trx, access, input.parentId);
  if (!parent) throw missingReference('parentId', 'pet parent', input.parentId);
  const existing = await findParentWallet(trx, wholeTenant(access), parent.id, input.currency);
  if (existing) {
    throw new AppError('wallet_exists', `Pet parent ${parent.id} already has the ${input.currency} wallet ${existing.id}.`, {
      extensions: { walletId: existing.id },
    });
  }
  const at = isoAt(now);
  const row: WalletsTable = {
    id: newId('wal'),
    tenant_id: access.tenantId,
    parent_id: parent.id,
    currency: input.currency,
    balance: 0,
    created_at: at,
    updated_at: at,
  };
  await insertWallet(trx, access, row);
  return row;
}

export interface WalletMove {
  type: WalletTransactionType;
  /** Signed: positive adds to the balance. */
  amount: number;
  sourceId: string | null;
  method?: string | null;
  reference?: string | null;
  reason?: string | null;
}

const insufficient = (wallet: Pick<WalletsTable, 'id' | 'currency'>, balance: number, amount: number) =>
  new AppError('insufficient_funds', `Wallet ${wallet.id} holds ${balance} ${wallet.currency}; ${-amount} cannot be taken from it.`, {
    extensions: { walletId: wallet.id, balance },
  });

/**
 * Moves a wallet's balance by one appended transaction, read and written in the caller's
 * transaction (so parallel debits cannot both pass the check). The database refuses a negative
 * balance too (CHECK); that refusal is reported as the same 422.
 */
export async function moveWallet(
  trx: Executor,
  wallet: Pick<WalletsTable, 'id' | 'tenant_id' | 'currency'>,
  move: WalletMove,
  now: number,
): Promise<WalletTransactionsTable> {
  // The wallet was found by the caller (or follows a payment it found): its tenant is enough.
  const access: AccessFilter = { tenantId: wallet.tenant_id, locationIds: null };
  const balance = await walletBalance(trx, access, wallet.id);
  if (balance + move.amount < 0) throw insufficient(wallet, balance, move.amount);
  const row: WalletTransactionsTable = {
    id: newId('wtx'),
    tenant_id: wallet.tenant_id,
    wallet_id: wallet.id,
    type: move.type,
    amount: move.amount,
    balance_after: balance + move.amount,
    source_id: move.sourceId,
    method: move.method ?? null,
    reference: move.reference ?? null,
    reason: move.reason ?? null,
    created_at: isoAt(now),
  };
  try {
    await insertWalletTransaction(trx, access, row);
  } catch (err) {
    if ((err as { code?: string }).code?.startsWith('SQLITE_CONSTRAINT')) throw insufficient(wallet, balance, move.amount);
    throw err;
  }
  return row;
}

async function parentLocation(trx: Executor, tenantId: string, parentId: string): Promise<string | null> {
  const parent = await findPetParent(trx, { tenantId, locationIds: null }, parentId);
  return parent?.location_id ?? null;
}

/** Money paid in at the desk: cash (or card, transfer, check) in, the wallet owes that much more. */
function checkWalletCurrency(wallet: Pick<WalletsTable, 'id' | 'currency'>, currency: string | undefined): void {
  if (currency !== undefined && currency !== wallet.currency)
    throw validationFailed([{ field: 'currency', message: `wallet ${wallet.id} is in ${wallet.currency}` }]);
}

export async function topUpWallet(
  trx: Executor,
  access: AccessFilter,
  walletId: string,
  input: TopUpWalletInput,
  now: number,
): Promise<WalletTransactionsTable> {
  const wallet = await getWallet(trx, access, walletId);
  checkWalletCurrency(wallet, input.currency);
  const move = await moveWallet(
    trx,
    wallet,
    { type: 'top_up', amount: input.amount, sourceId: null, method: input.method, reference: input.reference ?? null },
    now,
  );
  await postJournal(
    trx,
    {
      tenantId: wallet.tenant_id,
      locationId: await parentLocation(trx, wallet.tenant_id, wallet.parent_id),
      sourceType: 'wallet_transaction',
      sourceId: move.id,
      currency: wallet.currency,
      memo: `top-up of wallet ${wallet.id} by ${input.method}`,
      lines: [
        { account: accounts.cash(input.method as Exclude<PaymentMethod, 'wallet'>), amount: input.amount },
        { account: accounts.wallet(wallet.id), amount: -input.amount },
      ],
    },
    now,
  );
  return move;
}

/** An admin's signed correction (goodwill credit, fix); taking the balance below 0 is 422 insufficient_funds. */
export async function adjustWallet(
  trx: Executor,
  access: AccessFilter,
  walletId: string,
  input: AdjustWalletInput,
  now: number,
): Promise<WalletTransactionsTable> {
  if (input.amount === 0) throw validationFailed([{ field: 'amount', message: 'must not be 0' }]);
  const wallet = await getWallet(trx, access, walletId);
  checkWalletCurrency(wallet, input.currency);
  const move = await moveWallet(trx, wallet, { type: 'adjustment', amount: input.amount, sourceId: null, reason: input.reason }, now);
  const locationId = await parentLocation(trx, wallet.tenant_id, wallet.parent_id);
  await postJournal(
    trx,
    {
      tenantId: wallet.tenant_id,
      locationId,
      sourceType: 'wallet_transaction',
      sourceId: move.id,
      currency: wallet.currency,
      memo: `adjustment of wallet ${wallet.id}: ${input.reason}`,
      lines: [
        { account: accounts.walletAdjustments(locationId ?? 'tenant'), amount: input.amount },
        { account: accounts.wallet(wallet.id), amount: -input.amount },
      ],
    },
    now,
  );
  return move;
}
