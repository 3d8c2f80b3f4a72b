import type { Clock } from '../../clock.js';
import { pageRequest, pageSchema, toPage } from '../../http/paging.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { businessNow } from '../business-clock/index.js';
import { presentInvoice } from './invoices.presenter.js';
import { listInvoices } from './invoices.repository.js';
import { CreateInvoiceSchema, InvoiceSchema, ListInvoicesQuery, UpdateInvoiceSchema } from './invoices.schema.js';
import { createInvoice, finalizeInvoice, getInvoice, markInvoiceUncollectible, updateDraftInvoice, voidInvoice } from './invoices.service.js';
import { IdParams } from './payment-fields.js';
import { timeRange } from './time-range.js';

const tags = ['Invoices'];
const access = 'Scope `payments` to write, `payments.read` to read; a location-scoped client sees its locations only (others answer 404). ';
const InvoiceParams = IdParams('Invoice id (inv_…).');
const lifecycle =
  'States: draft → open (finalize: the number is taken then, gapless per location, e.g. DC-000042) → paid (amountDue reaches 0) | void (open with nothing left paid) | uncollectible (written off; final). ' +
  'A total of 0 finalizes straight to paid. A forbidden move is 409 `invalid_state_transition` with `currentStatus`: finalizing a non-draft, voiding or writing off a non-open invoice, voiding one with payments not refunded, ' +
  'paying (POST /v1/payments) a draft, void, paid or uncollectible one. ';
const rounding =
  'Line tax = round-half-up(quantity × unitAmount × taxRateBps / 10000) per line, taxRateBps defaulting to the location’s; tax = the sum of line taxes. ';

export function invoiceRoutes(deps: { clock: Clock }): AnyRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/invoices',
      operationId: 'createInvoice',
      emits: ['invoice.finalized', 'invoice.paid'],
      summary: 'Create an invoice',
      description:
        access +
        rounding +
        lifecycle +
        'currency defaults to the location’s. The parent (and pet, which must be theirs) and the location must be visible to the caller (else 400 resource_missing). ' +
        'With finalize: true the invoice is finalized at once and emits `invoice.finalized` (and `invoice.paid` for a zero total).',
      tags,
      access: { scope: 'payments' },
      body: CreateInvoiceSchema,
      response: { status: 201, description: 'The new invoice', schema: InvoiceSchema },
      errors: ['resource_missing'],
      handler: async ({ db, actor, body }) => {
        const now = await businessNow(db, actor.env, deps.clock);
        return { body: presentInvoice(await createInvoice(db, actor, body, now)) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/invoices',
      operationId: 'listInvoices',
      summary: 'List invoices',
      description: access + 'Newest first; filters status, parentId, locationId, from and to (createdAt).',
      tags,
      access: { scope: 'payments.read' },
      query: ListInvoicesQuery,
      response: { status: 200, description: 'A page of invoices', schema: pageSchema(InvoiceSchema) },
      errors: ['invalid_cursor'],
      handler: async ({ db, actor, query }) => {
        const page = pageRequest(query);
        const rows = await listInvoices(db, actor, page, {
          status: query.status,
          parentId: query.parentId,
          locationId: query.locationId,
          range: timeRange(query),
        });
        return { body: toPage(rows, page, presentInvoice) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/invoices/:id',
      operationId: 'getInvoice',
      summary: 'Get an invoice',
      tags,
      access: { scope: 'payments.read' },
      params: InvoiceParams,
      response: { status: 200, description: 'The invoice', schema: InvoiceSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params }) => ({ body: presentInvoice(await getInvoice(db, actor, params.id)) }),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/invoices/:id',
      operationId: 'updateInvoice',
      summary: 'Edit a draft invoice',
      description:
        access + rounding + 'Only a draft can be edited (lines, when given, replace every line); any other status is 409 `invalid_state_transition`.',
      tags,
      access: { scope: 'payments' },
      params: InvoiceParams,
      body: UpdateInvoiceSchema,
      response: { status: 200, description: 'The updated draft', schema: InvoiceSchema },
      errors: ['not_found', 'resource_missing', 'invalid_state_transition'],
      handler: async ({ db, actor, params, body }) => {
        const now = await businessNow(db, actor.env, deps.clock);
        return { body: presentInvoice(await updateDraftInvoice(db, actor, params.id, body, now)) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/invoices/:id/finalize',
      operationId: 'finalizeInvoice',
      emits: ['invoice.finalized', 'invoice.paid'],
      summary: 'Finalize a draft invoice',
      description: access + lifecycle + 'Emits `invoice.finalized` (and `invoice.paid` for a zero total). Posts receivable against revenue and tax payable.',
      tags,
      access: { scope: 'payments' },
      params: InvoiceParams,
      response: { status: 200, description: 'The finalized invoice', schema: InvoiceSchema },
      errors: ['not_found', 'invalid_state_transition'],
      handler: async ({ db, actor, params }) => {
        const now = await businessNow(db, actor.env, deps.clock);
        return { body: presentInvoice(await finalizeInvoice(db, actor, params.id, now)) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/invoices/:id/void',
      operationId: 'voidInvoice',
      summary: 'Void an open invoice',
      description:
        access +
        lifecycle +
        'Only while nothing stays paid: an invoice with payments not refunded is 409 `invalid_state_transition` (`currentStatus` open; refund them first). Reverses what the invoice still carries in revenue and tax (refund credits already reversed their share).',
      tags,
      access: { scope: 'payments' },
      params: InvoiceParams,
      response: { status: 200, description: 'The voided invoice', schema: InvoiceSchema },
      errors: ['not_found', 'invalid_state_transition'],
      handler: async ({ db, actor, params }) => {
        const now = await businessNow(db, actor.env, deps.clock);
        return { body: presentInvoice(await voidInvoice(db, actor, params.id, now)) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/invoices/:id/mark-uncollectible',
      operationId: 'markInvoiceUncollectible',
      summary: 'Write an open invoice off',
      description: access + lifecycle + 'Posts what is due to bad debt. Final: the invoice takes no payment after that (409 `invalid_state_transition`).',
      tags,
      access: { scope: 'payments' },
      params: InvoiceParams,
      response: { status: 200, description: 'The uncollectible invoice', schema: InvoiceSchema },
      errors: ['not_found', 'invalid_state_transition'],
      handler: async ({ db, actor, params }) => {
        const now = await businessNow(db, actor.env, deps.clock);
        return { body: presentInvoice(await markInvoiceUncollectible(db, actor, params.id, now)) };
      },
    }),
  ];
}
