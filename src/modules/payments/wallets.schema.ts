import { Type, type Static } from '@sinclair/typebox';
import { pageQueryFields } from '../../http/paging.js';
import { NonBlankText } from '../../http/schema-fields.js';
import { CurrencyCode, maxAmount, PositiveAmount } from './money.js';
import { Nullable, ParentId, Reference } from './payment-fields.js';

export const walletTransactionTypes = ['top_up', 'payment', 'refund', 'adjustment'] as const;
export const deskMethods = ['cash', 'card_terminal', 'bank_transfer', 'check'] as const;

export const WalletSchema = Type.Object(
  {
    id: Type.String({ description: 'Wallet id (wal_…).' }),
    parentId: Type.String(),
    currency: Type.String(),
    balance: Type.Integer({ minimum: 0, description: 'Integer minor units; never negative (a database CHECK).' }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const WalletTransactionSchema = Type.Object(
  {
    id: Type.String({ description: 'Wallet transaction id (wtx_…).' }),
    type: Type.Union(walletTransactionTypes.map((t) => Type.Literal(t))),
    amount: Type.Integer({ description: 'Signed minor units: positive adds to the balance.' }),
    balanceAfter: Type.Integer({ minimum: 0 }),
    sourceId: Nullable(Type.String({ description: 'The payment (pay_…) or refund (ref_…) behind it; null for top-ups and adjustments.' })),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const CreateWalletSchema = Type.Object({ parentId: ParentId, currency: CurrencyCode }, { additionalProperties: false });

/** currency is optional on wallet movements; when sent it must be the wallet's (a guard against topping up the wrong wallet). */
export const TopUpWalletSchema = Type.Object(
  {
    amount: PositiveAmount(),
    currency: Type.Optional(CurrencyCode),
    method: Type.Union(
      deskMethods.map((m) => Type.Literal(m)),
      { description: 'How the money came in.' },
    ),
    reference: Type.Optional(Nullable(Reference)),
  },
  { additionalProperties: false },
);

export const AdjustWalletSchema = Type.Object(
  {
    amount: Type.Integer({ minimum: -maxAmount, maximum: maxAmount, description: 'Signed minor units, not 0: positive credits the wallet.' }),
    currency: Type.Optional(CurrencyCode),
    reason: NonBlankText(500),
  },
  { additionalProperties: false },
);

export const ListWalletsQuery = Type.Object({ ...pageQueryFields, parentId: Type.Optional(Type.String({ maxLength: 100 })) }, { additionalProperties: false });
export const ListWalletTransactionsQuery = Type.Object({ ...pageQueryFields }, { additionalProperties: false });

export type CreateWalletInput = Static<typeof CreateWalletSchema>;
export type TopUpWalletInput = Static<typeof TopUpWalletSchema>;
export type AdjustWalletInput = Static<typeof AdjustWalletSchema>;
