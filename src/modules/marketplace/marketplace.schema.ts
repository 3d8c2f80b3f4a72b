import { Type, type Static, type TLiteral, type TSchema, type TUnion } from '@sinclair/typebox';
import { onlyInVersionKeyword } from '../../http/api-versions.js';
import { pageQueryFields, pageSchema } from '../../http/paging.js';
import { Instant, NonBlankText, RecordId as Id } from '../../http/schema-fields.js';
import { PositiveAmount } from '../payments/index.js';

export const orderStatuses = ['pending_payment', 'paid', 'fulfilled', 'cancelled', 'partially_refunded', 'refunded'] as const;
export const marketplaceBookingStatuses = ['reserved', 'confirmed', 'completed', 'cancelled'] as const;
export type MarketplaceBookingStatus = (typeof marketplaceBookingStatuses)[number];

/** The most lines one order takes. */
export const maxOrderLines = 20;

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Money = (description = 'Integer minor units.') => Type.Integer({ description });
const DateTime = Instant('ISO 8601 date-time with Z or an offset.');
const Literals = <T extends readonly string[]>(values: T) => Type.Union(values.map((v) => Type.Literal(v))) as unknown as TUnion<Array<TLiteral<T[number]>>>;

export const IdParams = Type.Object({ id: Type.String({ maxLength: 100, description: 'The record id.' }) }, { additionalProperties: false });

// ---------------------------------------------------------------- orders

export const CreateOrderSchema = Type.Object(
  {
    parentId: Id('usr', 'Pet parent'),
    petId: Id('pet', 'Pet'),
    lines: Type.Array(
      Type.Object(
        {
          providerId: Id('prv', 'Marketplace provider'),
          listingId: Id('lst', 'Listing of that provider'),
          startsAt: DateTime,
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: maxOrderLines, description: `1–${maxOrderLines} lines; each claims its provider's slot and becomes a booking.` },
    ),
  },
  { additionalProperties: false },
);
export type CreateOrderInput = Static<typeof CreateOrderSchema>;

export const OrderLineSchema = Type.Object(
  {
    id: Type.String({ description: 'Order line id (oln_…).' }),
    providerId: Type.String(),
    listingId: Type.String(),
    bookingId: Type.String({ description: 'The booking (bkg_…, kind marketplace) the line holds.' }),
    startsAt: Type.String({ format: 'date-time' }),
    amount: Money('The listing price when ordered (before tax).'),
    commissionAmount: Money('round-half-up(amount × commission rate / 10000), the rate snapshotted at order time.'),
  },
  { additionalProperties: false },
);

export const OrderSchema = Type.Object(
  {
    id: Type.String({ description: 'Order id (ord_…).' }),
    status: Literals(orderStatuses),
    parentId: Type.String(),
    petId: Type.String(),
    lines: Type.Array(OrderLineSchema),
    subtotal: Money('Sum of the lines.'),
    total: Money('subtotal plus the location’s tax, as the invoice bills it.'),
    currency: Type.String(),
    invoiceId: Type.String({ description: 'The order’s invoice (inv_…): pay it with POST /v1/payments.' }),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);
export type OrderOut = Static<typeof OrderSchema>;

export const ListOrdersQuery = Type.Object(
  {
    ...pageQueryFields,
    page: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100_000,
        description: 'Page number: Petcare-Version 2025-06-01 only (400 in later versions, which page by cursor).',
      }),
    ),
    perPage: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 100, description: 'Page size of the page-number form (default 25): Petcare-Version 2025-06-01 only.' }),
    ),
    status: Type.Optional(Literals(orderStatuses)),
    parentId: Type.Optional(Type.String({ maxLength: 100 })),
    petId: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);
export type ListOrdersQueryInput = Static<typeof ListOrdersQuery>;

export const OrdersPageSchema = Type.Object(
  {
    ...pageSchema(OrderSchema).properties,
    page: Type.Optional(
      Type.Integer({ description: 'Never in this version: the page number the 2025-06-01 answer carries as `page`.', [onlyInVersionKeyword]: '2025-06-01' }),
    ),
    totalPages: Type.Optional(
      Type.Integer({ description: 'Never in this version: what the 2025-06-01 answer carries as `totalPages`.', [onlyInVersionKeyword]: '2025-06-01' }),
    ),
  },
  { additionalProperties: false },
);
export type OrdersPage = Static<typeof OrdersPageSchema>;

/** GET /v1/orders as 2025-06-01 answers it. */
export const OrdersPage20250601Schema = Type.Object(
  { orders: Type.Array(OrderSchema), page: Type.Integer(), totalPages: Type.Integer() },
  { additionalProperties: false },
);

export const CancelOrderSchema = Type.Object({ reason: Type.Optional(NonBlankText(500)) }, { additionalProperties: false });

export const RefundOrderSchema = Type.Object(
  {
    lineIds: Type.Optional(
      Type.Array(Id('oln', 'Order line'), { minItems: 1, maxItems: maxOrderLines, uniqueItems: true, description: 'Lines to refund; default every line.' }),
    ),
    amount: Type.Optional(
      PositiveAmount(
        'Gross (pre-tax) amount to refund of the one line named in lineIds; default what is left of each line. Its tax share is refunded with it.',
      ),
    ),
    reason: Type.Optional(NonBlankText(500)),
  },
  { additionalProperties: false },
);
export type RefundOrderInput = Static<typeof RefundOrderSchema>;

// ---------------------------------------------------------------- marketplace bookings

export const MarketplaceBookingSchema = Type.Object(
  {
    id: Type.String({ description: 'Booking id (bkg_…).' }),
    kind: Type.Literal('marketplace'),
    status: Literals(marketplaceBookingStatuses),
    orderId: Type.String(),
    orderLineId: Type.String(),
    providerId: Type.String(),
    listingId: Type.String(),
    service: Type.String({ description: 'The listing’s category.' }),
    petId: Type.String(),
    parentId: Type.String(),
    locationId: Type.String(),
    startsAt: Type.String({ format: 'date-time' }),
    endsAt: Type.String({ format: 'date-time' }),
    amount: Money(),
    currency: Type.String(),
    completedAt: Nullable(Type.String({ format: 'date-time' })),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

// ---------------------------------------------------------------- commissions

export const commissionStatuses = ['accrued', 'settled'] as const;

export const CommissionSchema = Type.Object(
  {
    id: Type.String({ description: 'Commission line id (cml_…).' }),
    orderId: Type.String(),
    orderLineId: Type.String(),
    providerId: Type.String(),
    kind: Type.Union([Type.Literal('sale'), Type.Literal('refund')], {
      description: 'sale: accrued when the line was paid; refund: the negative line of a refund.',
    }),
    refundId: Nullable(Type.String({ description: 'The §9 refund (ref_…) of a refund line.' })),
    gross: Money('Signed: the line’s price (sale) or minus the gross refunded (refund).'),
    rateBps: Type.Integer({ description: 'The rate snapshotted on the order line.' }),
    commission: Money('Signed as gross.'),
    currency: Type.String(),
    status: Literals(commissionStatuses),
    settlementId: Nullable(Type.String({ description: 'The payout statement (stl_…) that settled it.' })),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const ListCommissionsQuery = Type.Object(
  {
    ...pageQueryFields,
    providerId: Type.Optional(Type.String({ maxLength: 100 })),
    status: Type.Optional(Literals(commissionStatuses)),
    from: Type.Optional(Type.String({ format: 'date-time', maxLength: 40, description: 'Lines created at or after this instant.' })),
    to: Type.Optional(Type.String({ format: 'date-time', maxLength: 40, description: 'Lines created before this instant.' })),
  },
  { additionalProperties: false },
);

// ---------------------------------------------------------------- payout statements

const DateOnly = (description: string) => Type.String({ format: 'date', maxLength: 10, description: `${description} (YYYY-MM-DD, UTC).` });

export const CreatePayoutsSchema = Type.Object(
  {
    periodStart: DateOnly('First day of the period'),
    periodEnd: DateOnly('Last day of the period, inclusive'),
    providerId: Type.Optional(Id('prv', 'Only this provider')),
  },
  { additionalProperties: false },
);
export type CreatePayoutsInput = Static<typeof CreatePayoutsSchema>;

export const PayoutStatementSchema = Type.Object(
  {
    id: Type.String({ description: 'Settlement id (stl_…).' }),
    kind: Type.Literal('provider_payout'),
    providerId: Type.String(),
    periodStart: Type.String({ format: 'date' }),
    periodEnd: Type.String({ format: 'date' }),
    currency: Type.String(),
    gross: Money('Sum of the sale lines.'),
    refunds: Money('Gross refunded: minus the sum of the refund lines (≥ 0).'),
    commission: Money('Sum of the lines’ commission (refund lines count negative).'),
    net: Money('gross − refunds − commission: what the provider is paid.'),
    lines: Type.Array(CommissionSchema),
    status: Type.Union([Type.Literal('pending'), Type.Literal('paid')]),
    createdAt: Type.String({ format: 'date-time' }),
    paidAt: Nullable(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);

export const PayoutListSchema = Type.Object({ data: Type.Array(PayoutStatementSchema) }, { additionalProperties: false });
