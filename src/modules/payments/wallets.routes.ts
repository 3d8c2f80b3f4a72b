import type { Clock } from '../../clock.js';
import { wholeTenant } from '../../http/actor.js';
import { pageRequest, pageSchema, toPage } from '../../http/paging.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { businessNow } from '../business-clock/index.js';
import { IdParams } from './payment-fields.js';
import { presentWallet, presentWalletTransaction } from './wallets.presenter.js';
import { listWallets, listWalletTransactions } from './wallets.repository.js';
import {
  AdjustWalletSchema,
  CreateWalletSchema,
  ListWalletsQuery,
  ListWalletTransactionsQuery,
  TopUpWalletSchema,
  WalletSchema,
  WalletTransactionSchema,
} from './wallets.schema.js';
import { adjustWallet, createWallet, getWallet, topUpWallet } from './wallets.service.js';

const tags = ['Wallets'];
const access = 'Scope `payments` to write, `payments.read` to read; a wallet is visible when its pet parent is (another location’s answers 404). ';
const WalletParams = IdParams('Wallet id (wal_…).');

export function walletRoutes(deps: { clock: Clock }): AnyRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/wallets',
      operationId: 'createWallet',
      summary: 'Open a wallet',
      description:
        access +
        'One per pet parent and currency: a second is 409 `wallet_exists` with the existing `walletId`. The balance starts at 0 and never goes below (a database CHECK).',
      tags,
      access: { scope: 'payments' },
      body: CreateWalletSchema,
      response: { status: 201, description: 'The new wallet', schema: WalletSchema },
      errors: ['resource_missing', 'wallet_exists'],
      handler: async ({ db, actor, body }) => {
        const now = await businessNow(db, actor.env, deps.clock);
        return { body: presentWallet(await createWallet(db, actor, body, now)) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/wallets',
      operationId: 'listWallets',
      summary: 'List wallets',
      description: access + 'Newest first; filter parentId.',
      tags,
      access: { scope: 'payments.read' },
      query: ListWalletsQuery,
      response: { status: 200, description: 'A page of wallets', schema: pageSchema(WalletSchema) },
      errors: ['invalid_cursor'],
      handler: async ({ db, actor, query }) => {
        const page = pageRequest(query);
        return { body: toPage(await listWallets(db, actor, page, { parentId: query.parentId }), page, presentWallet) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/wallets/:id',
      operationId: 'getWallet',
      summary: 'Get a wallet',
      tags,
      access: { scope: 'payments.read' },
      params: WalletParams,
      response: { status: 200, description: 'The wallet', schema: WalletSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params }) => ({ body: presentWallet(await getWallet(db, actor, params.id)) }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/wallets/:id/top-ups',
      operationId: 'topUpWallet',
      summary: 'Top a wallet up',
      description:
        access + 'Money paid in at the desk (cash, card_terminal, bank_transfer, check) adds to the balance; posts the cash account against the wallet.',
      tags,
      access: { scope: 'payments' },
      params: WalletParams,
      body: TopUpWalletSchema,
      response: { status: 201, description: 'The wallet transaction', schema: WalletTransactionSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params, body }) => {
        const now = await businessNow(db, actor.env, deps.clock);
        return { body: presentWalletTransaction(await topUpWallet(db, actor, params.id, body, now)) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/wallets/:id/adjustments',
      operationId: 'adjustWallet',
      summary: 'Adjust a wallet (admin)',
      description:
        access +
        'A signed correction with its reason, admin role only. Taking the balance below 0 is 422 `insufficient_funds`. Posts the location’s wallet_adjustments account against the wallet.',
      tags,
      access: { scope: 'payments', roles: ['admin'] },
      params: WalletParams,
      body: AdjustWalletSchema,
      response: { status: 201, description: 'The wallet transaction', schema: WalletTransactionSchema },
      errors: ['not_found', 'insufficient_funds'],
      handler: async ({ db, actor, params, body }) => {
        const now = await businessNow(db, actor.env, deps.clock);
        return { body: presentWalletTransaction(await adjustWallet(db, actor, params.id, body, now)) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/wallets/:id/transactions',
      operationId: 'listWalletTransactions',
      summary: "List a wallet's transactions",
      description: access + 'Newest first, each with the balance after it: top_up, payment (negative), refund, adjustment (signed).',
      tags,
      access: { scope: 'payments.read' },
      params: WalletParams,
      query: ListWalletTransactionsQuery,
      response: { status: 200, description: 'A page of wallet transactions', schema: pageSchema(WalletTransactionSchema) },
      errors: ['not_found', 'invalid_cursor'],
      handler: async ({ db, actor, params, query }) => {
        const page = pageRequest(query);
        const wallet = await getWallet(db, actor, params.id);
        return { body: toPage(await listWalletTransactions(db, wholeTenant(actor), wallet.id, page), page, presentWalletTransaction) };
      },
    }),
  ];
}
