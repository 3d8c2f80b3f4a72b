import type { Clock } from '../../clock.js';
import type { Config, Environment } from '../../config.js';
import type { Executor } from '../../db/database.js';
import { apiVersionOf } from '../../http/api-versions.js';
import { validationFailed } from '../../http/errors.js';
import { defaultPageSize, pageRequest, pageSchema, toPage } from '../../http/paging.js';
import type { AppContext } from '../../http/request-context.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { businessNow } from '../business-clock/index.js';
import { presentCommission, presentMarketplaceBooking, presentOrder, presentOrdersPage20250601, presentStatement } from './marketplace.presenter.js';
import { countOrders, listCommissionLines, listOrders, listOrdersAt } from './marketplace.repository.js';
import {
  CancelOrderSchema,
  CommissionSchema,
  CreateOrderSchema,
  CreatePayoutsSchema,
  IdParams,
  ListCommissionsQuery,
  ListOrdersQuery,
  MarketplaceBookingSchema,
  OrderSchema,
  OrdersPage20250601Schema,
  OrdersPageSchema,
  PayoutListSchema,
  PayoutStatementSchema,
  RefundOrderSchema,
  type OrdersPage,
} from './marketplace.schema.js';
import { cancelOrder, completeBooking, createOrder, getMarketplaceBooking, getOrder, refundOrder } from './orders.service.js';
import { createPayouts, getStatement, markPayoutPaid, payoutsSpanTenant } from './payouts.service.js';

const tags = ['Marketplace'];
const orderAccess =
  'Scope `marketplace` to write, `marketplace.read` to read; a location-scoped client sees orders of its locations only (others answer 404). ';
const orderStates =
  'States: pending_payment → paid (its invoice paid through POST /v1/payments) → fulfilled (every line completed); pending_payment → cancelled; paid | fulfilled → partially_refunded → refunded (POST /v1/orders/{id}/refund, or POST /v1/refunds of the order’s payment). A forbidden move is 409 `invalid_state_transition` with `currentStatus`. ';
const payoutAbout =
  'A provider_payout statement (stl_, in GET /v1/settlements too) per provider and currency: every unsettled sale and refund commission line of order lines completed by the end of periodEnd (UTC); ' +
  'net = gross − refunds − commission. A refund after a payout is a negative line on the next statement. Tenant-wide clients only (403 `tenant_wide_only`). ';

export function marketplaceRouteList(deps: { config: Config; clock: Clock }): AnyRoute[] {
  const settings = { bookingMinNoticeMinutes: deps.config.bookingMinNoticeMinutes, commissionBps: deps.config.commissionBps };
  const now = (db: Executor, env: Environment) => businessNow(db, env, deps.clock);
  return [
    // ------------------------------------------------------------ orders
    defineRoute({
      method: 'post',
      path: '/v1/orders',
      operationId: 'createOrder',
      emits: ['booking.created', 'marketplace.booking_created', 'order.created'],
      summary: 'Order marketplace services',
      description:
        orderAccess +
        'Each line books an approved provider’s listing at startsAt: the slot is claimed atomically in the provider’s calendar (working hours of its schedule at the pet’s location, time off, appointments, grooms and other marketplace bookings), ' +
        'else 409 `slot_unavailable`; a provider that is not approved (or a deactivated listing) is 422 `provider_not_bookable`. Creates one booking per line (bkg_, kind marketplace, reserved) and a finalized invoice at the pet’s location ' +
        '(its tax rules; one line per order line, sourceId = the booking). The commission rate (provider override, else PETCARE_COMMISSION_BPS) is snapshotted per line. ' +
        'Emits booking.created and marketplace.booking_created per line, and order.created. ' +
        orderStates,
      tags,
      access: { scope: ['marketplace', 'bookings'] },
      body: CreateOrderSchema,
      response: { status: 201, description: 'The new order, pending payment', schema: OrderSchema },
      errors: ['resource_missing', 'slot_unavailable', 'provider_not_bookable'],
      handler: async ({ db, actor, body }) => ({ body: presentOrder(await createOrder(db, actor, body, await now(db, actor.env), settings)) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/orders',
      operationId: 'listOrders',
      summary: 'List orders',
      description:
        orderAccess +
        'Newest first; filters status, parentId, petId. Pages by cursor (limit, cursor) like every list; `page` and `perPage` are the 2025-06-01 form and are refused (400) in this version. ' +
        'Petcare-Version 2025-06-01 pages by number (page, perPage) and answers `{orders, page, totalPages}`; it takes no cursor (400).',
      tags,
      access: { scope: ['marketplace.read', 'bookings.read'] },
      query: ListOrdersQuery,
      response: { status: 200, description: 'A page of orders', schema: OrdersPageSchema },
      versions: {
        '2025-06-01': {
          description: 'Page-number paging: `{orders, page, totalPages}` (page and perPage in the query).',
          schema: OrdersPage20250601Schema,
          query: { only: ['page', 'perPage'], refused: ['cursor'] },
          response: presentOrdersPage20250601,
        },
      },
      errors: ['invalid_cursor'],
      handler: async ({ db, actor, query, ctx }) => {
        const filters = { status: query.status, parentId: query.parentId, petId: query.petId };
        // The request side of the version change: 2025-06-01 pages by number and had no cursors (its
        // answer {orders, page, totalPages} cannot say where a cursor page is); 2026-11-01 pages by cursor only.
        if (apiVersionOf(ctx as AppContext) !== '2025-06-01') {
          for (const field of ['page', 'perPage'] as const) {
            if (query[field] !== undefined)
              throw validationFailed([{ field, message: 'is the Petcare-Version 2025-06-01 form; this version pages by cursor (limit, cursor)' }]);
          }
          const page = pageRequest({ limit: query.limit, cursor: query.cursor });
          return { body: toPage(await listOrders(db, actor, page, filters), page, presentOrder) };
        }
        if (query.cursor !== undefined) {
          throw validationFailed([
            { field: 'cursor', message: 'is not part of Petcare-Version 2025-06-01, which pages by number (page, perPage); cursors need 2026-11-01' },
          ]);
        }
        const perPage = query.perPage ?? query.limit ?? defaultPageSize;
        const number = query.page ?? 1;
        const rows = await listOrdersAt(db, actor, number, perPage, filters);
        const total = await countOrders(db, actor, filters);
        const body: OrdersPage = {
          ...toPage(rows, { limit: perPage, afterId: undefined }, presentOrder),
          page: number,
          totalPages: Math.max(1, Math.ceil(total / perPage)),
        };
        return { body };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/orders/:id',
      operationId: 'getOrder',
      summary: 'Get an order',
      description: orderAccess + orderStates,
      tags,
      access: { scope: ['marketplace.read', 'bookings.read'] },
      params: IdParams,
      response: { status: 200, description: 'The order', schema: OrderSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params }) => ({ body: presentOrder(await getOrder(db, actor, params.id)) }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/orders/:id/cancel',
      operationId: 'cancelOrder',
      emits: ['booking.cancelled', 'order.cancelled'],
      summary: 'Cancel an unpaid order',
      description:
        orderAccess +
        'pending_payment → cancelled: voids the invoice and cancels every booking, releasing the slots. Emits booking.cancelled per line and order.cancelled. Any other state: 409. ' +
        'An invoice with part paid and not refunded cannot be voided: 409 `invalid_state_transition` with the invoice’s `currentStatus` (open); refund that payment first with POST /v1/refunds.',
      tags,
      access: { scope: ['marketplace', 'bookings'] },
      params: IdParams,
      body: CancelOrderSchema,
      response: { status: 200, description: 'The cancelled order', schema: OrderSchema },
      errors: ['not_found', 'invalid_state_transition'],
      handler: async ({ db, actor, params, body }) => ({ body: presentOrder(await cancelOrder(db, actor, params.id, body?.reason, await now(db, actor.env))) }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/orders/:id/refund',
      operationId: 'refundOrder',
      emits: ['refund.created', 'order.refunded'],
      summary: 'Refund lines of a paid order',
      description:
        orderAccess +
        'Refunds a paid, fulfilled or partially refunded order through §9 refunds of its invoice’s payments (oldest payment first): each named line (default: every line) for what is left of it ' +
        '(its amount plus its tax share), or `amount` (gross, before tax) of the one line named with its tax share, round-half-up(amount × taxRateBps / 10000) cumulatively. ' +
        'Each line’s commission is reversed in proportion (rate snapshot, round-half-up, cumulative: a fully refunded line reverses all of it) by a negative commission line that the provider’s next payout statement carries; ' +
        'a line refunded in full before completion has its booking cancelled (slot released, booking.cancelled). More than is left: 422 `refund_exceeds_payment`. Emits refund.created per §9 refund and order.refunded. ' +
        'A convenience over POST /v1/refunds of the order’s payment, which maps money to the lines by the same rules, in line order; this route picks the lines.',
      tags,
      access: { scope: 'marketplace' },
      params: IdParams,
      body: RefundOrderSchema,
      response: { status: 200, description: 'The order after the refund', schema: OrderSchema },
      errors: ['not_found', 'invalid_state_transition', 'refund_exceeds_payment'],
      handler: async ({ db, actor, params, body }) => ({ body: presentOrder(await refundOrder(db, actor, params.id, body, await now(db, actor.env))) }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/marketplace/bookings/:id/complete',
      operationId: 'completeMarketplaceBooking',
      emits: ['marketplace.booking_completed'],
      summary: 'Complete a marketplace booking',
      description:
        orderAccess +
        'The provider’s word that the service was done: confirmed → completed, allowed once the order is paid, even before startsAt (reserved, i.e. unpaid, or any other state: 409 `invalid_state_transition`). ' +
        'The order becomes fulfilled when every line is completed. The line then counts for the provider’s next payout statement. Emits marketplace.booking_completed.',
      tags,
      access: { scope: ['marketplace', 'bookings'] },
      params: IdParams,
      response: { status: 200, description: 'The completed booking', schema: MarketplaceBookingSchema },
      errors: ['not_found', 'invalid_state_transition'],
      handler: async ({ db, actor, params }) => {
        const done = await completeBooking(db, actor, params.id, await now(db, actor.env));
        return { body: presentMarketplaceBooking(done.booking, done.line) };
      },
    }),

    defineRoute({
      method: 'get',
      path: '/v1/marketplace/bookings/:id',
      operationId: 'getMarketplaceBooking',
      summary: 'Get a marketplace booking',
      description:
        orderAccess +
        'A booking of kind marketplace with its order and line: reserved (order unpaid) → confirmed (paid) → completed; reserved | confirmed → cancelled.',
      tags,
      access: { scope: ['marketplace.read', 'bookings.read'] },
      params: IdParams,
      response: { status: 200, description: 'The booking', schema: MarketplaceBookingSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params }) => {
        const found = await getMarketplaceBooking(db, actor, params.id);
        return { body: presentMarketplaceBooking(found.booking, found.line) };
      },
    }),

    // ------------------------------------------------------------ commissions
    defineRoute({
      method: 'get',
      path: '/v1/commissions',
      operationId: 'listCommissions',
      summary: 'List commission lines',
      description:
        'Scope `marketplace.read`; a location-scoped client sees lines of its locations’ orders only. One sale line per paid order line (gross, rateBps snapshot, commission = round-half-up(gross × rateBps / 10000)), ' +
        'one negative line per refund of a line; status accrued until a payout statement settles it. Newest first; filters providerId, status, from and to (creation instants).',
      tags,
      access: { scope: 'marketplace.read' },
      query: ListCommissionsQuery,
      response: { status: 200, description: 'A page of commission lines', schema: pageSchema(CommissionSchema) },
      errors: ['invalid_cursor'],
      handler: async ({ db, actor, query }) => {
        const page = pageRequest(query);
        const rows = await listCommissionLines(db, actor, page, {
          providerId: query.providerId,
          status: query.status,
          from: query.from === undefined ? undefined : new Date(query.from).toISOString(),
          to: query.to === undefined ? undefined : new Date(query.to).toISOString(),
        });
        return { body: toPage(rows, page, presentCommission) };
      },
    }),

    // ------------------------------------------------------------ payouts
    defineRoute({
      method: 'post',
      path: '/v1/marketplace/settlements',
      operationId: 'createProviderPayouts',
      summary: 'Create provider payout statements for a period',
      description:
        payoutAbout +
        'Role admin. periodStart and periodEnd are UTC dates, inclusive (periodEnd not after today). 201 with the statements created plus any that already existed for exactly this period; ' +
        'asked again for the same period (and provider), 200 with the same list. Statements of other periods, paid ones above all, are never changed.',
      tags,
      access: { scope: 'marketplace', roles: ['admin'] },
      tenantWide: payoutsSpanTenant,
      body: CreatePayoutsSchema,
      response: {
        status: 201,
        description: 'The statements of the period',
        schema: PayoutListSchema,
        also: [{ status: 200, description: 'The period was asked for before (or has nothing new to settle): the same statements' }],
      },
      errors: ['resource_missing', 'tenant_wide_only'],
      handler: async ({ db, actor, body }) => {
        const result = await createPayouts(db, actor, body, await now(db, actor.env));
        return { status: result.created ? 201 : 200, body: { data: result.statements.map(presentStatement) } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/marketplace/settlements/:id',
      operationId: 'getProviderPayout',
      summary: 'Get a provider payout statement with its lines',
      description:
        payoutAbout +
        'Scope `marketplace.read`. The statement with every commission line it settled, so anyone can recompute it. Daily closes are not provider payouts: 404.',
      tags,
      access: { scope: 'marketplace.read' },
      tenantWide: payoutsSpanTenant,
      params: IdParams,
      response: { status: 200, description: 'The statement', schema: PayoutStatementSchema },
      errors: ['not_found', 'tenant_wide_only'],
      handler: async ({ db, actor, params }) => ({ body: presentStatement(await getStatement(db, actor, params.id)) }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/settlements/:id/mark-paid',
      operationId: 'markProviderPayoutPaid',
      summary: 'Mark a provider payout statement paid',
      description:
        payoutAbout +
        'Role admin. pending → paid; a paid statement and its lines are immutable (SQLite triggers), so asking again is 409 `invalid_state_transition`. ' +
        'Posts the payout to the journal: provider_payable:<prv_> debited by net, cash:bank_transfer credited. Daily closes are not provider payouts: 404.',
      tags: ['Settlements'],
      access: { scope: 'marketplace', roles: ['admin'] },
      tenantWide: payoutsSpanTenant,
      params: IdParams,
      response: { status: 200, description: 'The paid statement', schema: PayoutStatementSchema },
      errors: ['not_found', 'invalid_state_transition', 'tenant_wide_only'],
      handler: async ({ db, actor, params }) => ({ body: presentStatement(await markPayoutPaid(db, actor, params.id, await now(db, actor.env))) }),
    }),
  ];
}
