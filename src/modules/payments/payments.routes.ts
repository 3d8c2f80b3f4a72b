import type { Clock } from '../../clock.js';
import { pageRequest, pageSchema, toPage } from '../../http/paging.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { businessNow } from '../business-clock/index.js';
import { IdParams } from './payment-fields.js';
import { presentPayment, presentRefund } from './payments.presenter.js';
import { listPayments, listRefunds } from './payments.repository.js';
import { CreatePaymentSchema, CreateRefundSchema, ListPaymentsQuery, ListRefundsQuery, PaymentSchema, RefundSchema } from './payments.schema.js';
import { createRefund, getPayment, getRefund, recordPayment } from './payments.service.js';
import { timeRange } from './time-range.js';

const access =
  'Scope `payments` to write, `payments.read` to read; a location-scoped client sees the payments and refunds of its locations only (others answer 404). ';

export function paymentAndRefundRoutes(deps: { clock: Clock }): AnyRoute[] {
  const tags = ['Payments'];
  return [
    defineRoute({
      method: 'post',
      path: '/v1/payments',
      operationId: 'createPayment',
      emits: ['payment.completed', 'invoice.paid', 'order.paid'],
      summary: 'Record a payment',
      description:
        access +
        'Money the clinic received (cash, card_terminal, bank_transfer, check) or taken from the parent’s wallet in the currency (`wallet`; a short balance is 422 `insufficient_funds`). ' +
        'With invoiceId (the invoice must be visible, else 404) it is applied to that invoice: the parent and currency must be the invoice’s (400), the invoice open (a draft, void, paid or uncollectible one is 409 `invalid_state_transition` with `currentStatus`), ' +
        'and the amount at most amountDue (422 `amount_exceeds_due`); reaching 0 makes the invoice paid (`invoice.paid`). ' +
        'The payment belongs to its invoice’s location, else to locationId, else to the parent’s location. Emits `payment.completed`. Posts funds against the parent’s receivable.',
      tags,
      access: { scope: 'payments' },
      body: CreatePaymentSchema,
      response: { status: 201, description: 'The payment', schema: PaymentSchema },
      errors: ['not_found', 'resource_missing', 'invalid_state_transition', 'amount_exceeds_due', 'insufficient_funds'],
      handler: async ({ db, actor, body }) => {
        const now = await businessNow(db, actor.env, deps.clock);
        return { body: presentPayment(await recordPayment(db, actor, body, now)) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/payments',
      operationId: 'listPayments',
      summary: 'List payments',
      description:
        access + 'Newest first; filters parentId, invoiceId, method, from and to (createdAt). Also served, deprecated, as GET /v0/payments until its sunset.',
      tags,
      access: { scope: 'payments.read' },
      query: ListPaymentsQuery,
      response: { status: 200, description: 'A page of payments', schema: pageSchema(PaymentSchema) },
      errors: ['invalid_cursor'],
      handler: async ({ db, actor, query }) => {
        const page = pageRequest(query);
        const rows = await listPayments(db, actor, page, {
          parentId: query.parentId,
          invoiceId: query.invoiceId,
          method: query.method,
          range: timeRange(query),
        });
        return { body: toPage(rows, page, presentPayment) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/payments/:id',
      operationId: 'getPayment',
      summary: 'Get a payment',
      tags,
      access: { scope: 'payments.read' },
      params: IdParams('Payment id (pay_…).'),
      response: { status: 200, description: 'The payment', schema: PaymentSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params }) => ({ body: presentPayment(await getPayment(db, actor, params.id)) }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/refunds',
      operationId: 'createRefund',
      emits: ['refund.created', 'order.refunded'],
      summary: 'Refund a payment',
      description:
        access +
        'amount defaults to what is left of the payment. The refunds of a payment never sum past its amount, also under parallel requests (422 `refund_exceeds_payment`, also for a payment already fully refunded). ' +
        'A wallet payment is refunded to the wallet. The invoice’s amountRefunded grows and its revenue and tax are credited (the invoice’s status does not change). The payment must be visible (else 404). ' +
        'A refund of a paid marketplace order’s payment is mapped to the order’s lines in line order, each up to what is left of it (its amount plus its tax share), each line’s commission reversed in proportion ' +
        '(a negative commission line; round-half-up, a fully refunded line reverses all of it); the order becomes partially_refunded or refunded (`order.refunded`). ' +
        'Before the order is paid, a refund of part paid on its invoice stays a plain refund (the order can then be cancelled). Emits `refund.created`.',
      tags: ['Refunds'],
      access: { scope: 'payments' },
      body: CreateRefundSchema,
      response: { status: 201, description: 'The refund', schema: RefundSchema },
      errors: ['not_found', 'refund_exceeds_payment'],
      handler: async ({ db, actor, body }) => {
        const now = await businessNow(db, actor.env, deps.clock);
        return { body: presentRefund(await createRefund(db, actor, body, now)) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/refunds',
      operationId: 'listRefunds',
      summary: 'List refunds',
      description: access + 'Newest first; filters paymentId, invoiceId, from and to (createdAt).',
      tags: ['Refunds'],
      access: { scope: 'payments.read' },
      query: ListRefundsQuery,
      response: { status: 200, description: 'A page of refunds', schema: pageSchema(RefundSchema) },
      errors: ['invalid_cursor'],
      handler: async ({ db, actor, query }) => {
        const page = pageRequest(query);
        const rows = await listRefunds(db, actor, page, { paymentId: query.paymentId, invoiceId: query.invoiceId, range: timeRange(query) });
        return { body: toPage(rows, page, presentRefund) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/refunds/:id',
      operationId: 'getRefund',
      summary: 'Get a refund',
      tags: ['Refunds'],
      access: { scope: 'payments.read' },
      params: IdParams('Refund id (ref_…).'),
      response: { status: 200, description: 'The refund', schema: RefundSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params }) => ({ body: presentRefund(await getRefund(db, actor, params.id)) }),
    }),
  ];
}
