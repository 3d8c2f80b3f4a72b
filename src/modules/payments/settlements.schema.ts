import { Type } from '@sinclair/typebox';
import { pageQueryFields } from '../../http/paging.js';
import { Nullable } from './payment-fields.js';

export const SettlementSchema = Type.Object(
  {
    id: Type.String({ description: 'Settlement id (stl_…).' }),
    kind: Type.Union([Type.Literal('daily_close'), Type.Literal('provider_payout')]),
    locationId: Nullable(Type.String()),
    providerId: Nullable(Type.String({ description: 'provider_payout only.' })),
    periodStart: Type.String({ format: 'date', description: 'daily_close: the local date closed (periodStart = periodEnd).' }),
    periodEnd: Type.String({ format: 'date' }),
    currency: Type.String(),
    gross: Type.Integer({ description: 'Payments counted, integer minor units.' }),
    refunds: Type.Integer({ description: 'Refunds counted.' }),
    net: Type.Integer({ description: 'gross − refunds.' }),
    byMethod: Type.Record(Type.String(), Type.Integer(), {
      description: 'Net amount per payment method (refunds count against the method of the payment they pay back).',
    }),
    paymentCount: Type.Integer(),
    refundCount: Type.Integer(),
    status: Type.String({ description: 'closed (daily_close); pending | paid (provider_payout).' }),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const ListSettlementsQuery = Type.Object(
  {
    ...pageQueryFields,
    kind: Type.Optional(Type.Union([Type.Literal('daily_close'), Type.Literal('provider_payout')])),
    locationId: Type.Optional(Type.String({ maxLength: 100 })),
    providerId: Type.Optional(Type.String({ maxLength: 100 })),
    from: Type.Optional(Type.String({ format: 'date', description: 'Periods starting on or after this date.' })),
    to: Type.Optional(Type.String({ format: 'date', description: 'Periods ending on or before this date.' })),
  },
  { additionalProperties: false },
);
