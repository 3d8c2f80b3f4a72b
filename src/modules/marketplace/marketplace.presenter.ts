import type { Static } from '@sinclair/typebox';
import type { BookingsTable } from '../bookings/index.js';
import type {
  CommissionSchema,
  MarketplaceBookingSchema,
  OrderSchema,
  OrdersPage,
  OrdersPage20250601Schema,
  PayoutStatementSchema,
} from './marketplace.schema.js';
import type { MarketplaceBookingStatus } from './marketplace.schema.js';
import type { MarketplaceCommissionLinesTable, MarketplaceOrderLinesTable } from './marketplace.table.js';
import type { OrderRecord } from './marketplace.repository.js';
import type { Statement } from './payouts.service.js';

/** The order exactly as DESIGN §12 shapes it. */
export const presentOrder = (order: OrderRecord): Static<typeof OrderSchema> => ({
  id: order.id,
  status: order.status,
  parentId: order.parent_id,
  petId: order.pet_id,
  lines: order.lines.map((l) => ({
    id: l.id,
    providerId: l.provider_id,
    listingId: l.listing_id,
    bookingId: l.booking_id,
    startsAt: l.starts_at,
    amount: l.amount,
    commissionAmount: l.commission_amount,
  })),
  subtotal: order.subtotal,
  total: order.total,
  currency: order.currency,
  invoiceId: order.invoice_id,
  createdAt: order.created_at,
});

/** GET /v1/orders in the 2025-06-01 shape: `{orders, page, totalPages}` (the current answer always carries page and totalPages unless paged by cursor). */
export const presentOrdersPage20250601 = (body: OrdersPage): Static<typeof OrdersPage20250601Schema> => ({
  orders: body.data,
  page: body.page ?? 1,
  totalPages: body.totalPages ?? (body.hasMore ? 2 : 1),
});

export const presentMarketplaceBooking = (booking: BookingsTable, line: MarketplaceOrderLinesTable): Static<typeof MarketplaceBookingSchema> => ({
  id: booking.id,
  kind: 'marketplace',
  status: booking.status as MarketplaceBookingStatus,
  orderId: line.order_id,
  orderLineId: line.id,
  providerId: line.provider_id,
  listingId: line.listing_id,
  service: line.category,
  petId: booking.pet_id,
  parentId: booking.parent_id,
  locationId: booking.location_id,
  startsAt: booking.starts_at,
  endsAt: booking.ends_at,
  amount: booking.amount,
  currency: booking.currency,
  completedAt: line.completed_at,
  createdAt: booking.created_at,
});

export const presentCommission = (row: MarketplaceCommissionLinesTable): Static<typeof CommissionSchema> => ({
  id: row.id,
  orderId: row.order_id,
  orderLineId: row.order_line_id,
  providerId: row.provider_id,
  kind: row.kind,
  refundId: row.refund_id,
  gross: row.gross,
  rateBps: row.rate_bps,
  commission: row.commission,
  currency: row.currency,
  status: row.status,
  settlementId: row.settlement_id,
  createdAt: row.created_at,
});

export const presentStatement = ({ row, lines }: Statement): Static<typeof PayoutStatementSchema> => ({
  id: row.id,
  kind: 'provider_payout',
  providerId: row.provider_id ?? '',
  periodStart: row.period_start,
  periodEnd: row.period_end,
  currency: row.currency,
  gross: row.gross,
  refunds: row.refunds,
  commission: row.commission,
  net: row.net,
  lines: lines.map(presentCommission),
  status: row.status === 'paid' ? 'paid' : 'pending',
  createdAt: row.created_at,
  paidAt: row.paid_at,
});
