import { Type, type Static } from '@sinclair/typebox';
import { pageQueryFields } from '../../http/paging.js';
import { NonBlankText } from '../../http/schema-fields.js';
import { LocationId } from '../locations/index.js';
import { CurrencyCode, PositiveAmount } from './money.js';
import { InvoiceId, Nullable, ParentId, PaymentId, Reference } from './payment-fields.js';
import { timeRangeFields } from './time-range.js';

export const paymentMethods = ['cash', 'card_terminal', 'bank_transfer', 'check', 'wallet'] as const;
const Method = Type.Union(
  paymentMethods.map((m) => Type.Literal(m)),
  { description: 'How the clinic received it; wallet debits the parent’s wallet in the currency.' },
);

export const PaymentSchema = Type.Object(
  {
    id: Type.String({ description: 'Payment id (pay_…).' }),
    status: Type.Literal('succeeded'),
    parentId: Type.String(),
    invoiceId: Nullable(Type.String()),
    amount: Type.Integer({ description: 'Integer minor units.' }),
    amountRefunded: Type.Integer({ description: 'Sum of its refunds; never above amount.' }),
    currency: Type.String(),
    method: Method,
    reference: Nullable(Type.String()),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const CreatePaymentSchema = Type.Object(
  {
    parentId: ParentId,
    amount: PositiveAmount(),
    currency: CurrencyCode,
    method: Method,
    invoiceId: Type.Optional(Nullable(InvoiceId)),
    reference: Type.Optional(Nullable(Reference)),
    locationId: Type.Optional(Nullable(LocationId)),
  },
  { additionalProperties: false },
);

export const ListPaymentsQuery = Type.Object(
  {
    ...pageQueryFields,
    parentId: Type.Optional(Type.String({ maxLength: 100 })),
    invoiceId: Type.Optional(Type.String({ maxLength: 100 })),
    method: Type.Optional(Method),
    ...timeRangeFields,
  },
  { additionalProperties: false },
);

export const RefundSchema = Type.Object(
  {
    id: Type.String({ description: 'Refund id (ref_…).' }),
    paymentId: Type.String(),
    invoiceId: Nullable(Type.String()),
    amount: Type.Integer({ description: 'Integer minor units.' }),
    currency: Type.String(),
    reason: Nullable(Type.String()),
    status: Type.Literal('succeeded'),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const CreateRefundSchema = Type.Object(
  {
    paymentId: PaymentId,
    amount: Type.Optional(PositiveAmount('Integer minor units; default: everything not yet refunded.')),
    reason: Type.Optional(Nullable(NonBlankText(500))),
  },
  { additionalProperties: false },
);

export const ListRefundsQuery = Type.Object(
  {
    ...pageQueryFields,
    paymentId: Type.Optional(Type.String({ maxLength: 100 })),
    invoiceId: Type.Optional(Type.String({ maxLength: 100 })),
    ...timeRangeFields,
  },
  { additionalProperties: false },
);

export type CreatePaymentInput = Static<typeof CreatePaymentSchema>;
export type CreateRefundInput = Static<typeof CreateRefundSchema>;
export type ListPaymentsFilters = Static<typeof ListPaymentsQuery>;
export type ListRefundsFilters = Static<typeof ListRefundsQuery>;
