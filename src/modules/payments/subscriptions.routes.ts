import type { Clock } from '../../clock.js';
import { pageRequest, pageSchema, toPage } from '../../http/paging.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { businessNow } from '../business-clock/index.js';
import { IdParams } from './payment-fields.js';
import { presentSubscription } from './subscriptions.presenter.js';
import { listSubscriptions } from './subscriptions.repository.js';
import {
  CancelSubscriptionSchema,
  CreateSubscriptionSchema,
  ListSubscriptionsQuery,
  SubscriptionSchema,
  UpdateSubscriptionSchema,
} from './subscriptions.schema.js';
import { cancelSubscription, createSubscription, getSubscription, patchSubscription, sendInvoiceDueDays } from './subscriptions.service.js';

const tags = ['Subscriptions'];
const access = 'Scope `payments` to write, `payments.read` to read; a location-scoped client sees its locations only (others answer 404). ';
const states =
  'States: trialing → active ⇄ past_due → canceled; active ⇄ paused; any live state → canceled. A forbidden move is 409 `invalid_state_transition` with `currentStatus`. ';
const billing =
  'Each period is invoiced in advance at its start (a local date at the location, on the business clock), exactly once, by the `subscription-billing` job — and at creation for periods already started. ' +
  'Periods are computed from the first period start (31 Jan, 28 Feb, 31 Mar); currentPeriodEnd is exclusive. Tax is added at the location’s rate. ' +
  `collection wallet pays each invoice from the parent’s wallet, the whole amount or nothing: a short balance leaves it open and the subscription past_due (retried on later runs; any payment of the open invoices makes it active again). send_invoice leaves invoices open, due after ${sendInvoiceDueDays} days; past that the subscription is past_due. `;
const SubscriptionParams = IdParams('Subscription id (sub_…).');

export function subscriptionRoutes(deps: { clock: Clock }): AnyRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/subscriptions',
      operationId: 'createSubscription',
      emits: ['subscription.created'],
      summary: 'Create a subscription',
      description: access + states + billing + 'Emits `subscription.created` (and the invoice and payment events of any period billed at once).',
      tags,
      access: { scope: 'payments' },
      body: CreateSubscriptionSchema,
      response: { status: 201, description: 'The new subscription', schema: SubscriptionSchema },
      errors: ['resource_missing'],
      handler: async ({ db, actor, body }) => {
        const now = await businessNow(db, actor.env, deps.clock);
        return { body: presentSubscription(await createSubscription(db, actor, body, now)) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/subscriptions',
      operationId: 'listSubscriptions',
      summary: 'List subscriptions',
      description: access + 'Newest first; filters parentId and status.',
      tags,
      access: { scope: 'payments.read' },
      query: ListSubscriptionsQuery,
      response: { status: 200, description: 'A page of subscriptions', schema: pageSchema(SubscriptionSchema) },
      errors: ['invalid_cursor'],
      handler: async ({ db, actor, query }) => {
        const page = pageRequest(query);
        return { body: toPage(await listSubscriptions(db, actor, page, { parentId: query.parentId, status: query.status }), page, presentSubscription) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/subscriptions/:id',
      operationId: 'getSubscription',
      summary: 'Get a subscription',
      tags,
      access: { scope: 'payments.read' },
      params: SubscriptionParams,
      response: { status: 200, description: 'The subscription', schema: SubscriptionSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params }) => ({ body: presentSubscription(await getSubscription(db, actor, params.id)) }),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/subscriptions/:id',
      operationId: 'updateSubscription',
      summary: 'Pause, resume or change a subscription',
      description:
        access +
        states +
        'status moves only active ⇄ paused (anything else 409). Periods that start while paused are not billed; billing resumes with the next period start. ' +
        'cancelAtPeriodEnd: true cancels it when the current period ends instead of billing the next; description and amount apply from the next invoice.',
      tags,
      access: { scope: 'payments' },
      params: SubscriptionParams,
      body: UpdateSubscriptionSchema,
      response: { status: 200, description: 'The subscription', schema: SubscriptionSchema },
      errors: ['not_found', 'invalid_state_transition'],
      handler: async ({ db, actor, params, body }) => {
        const now = await businessNow(db, actor.env, deps.clock);
        return { body: presentSubscription(await patchSubscription(db, actor, params.id, body, now)) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/subscriptions/:id/cancel',
      operationId: 'cancelSubscription',
      emits: ['subscription.canceled'],
      summary: 'Cancel a subscription',
      description:
        access +
        'Now (default: status canceled, emits `subscription.canceled`; open invoices stay open), or with atPeriodEnd: true when the current period ends. A canceled subscription is 409.',
      tags,
      access: { scope: 'payments' },
      params: SubscriptionParams,
      body: CancelSubscriptionSchema,
      response: { status: 200, description: 'The subscription', schema: SubscriptionSchema },
      errors: ['not_found', 'invalid_state_transition'],
      handler: async ({ db, actor, params, body }) => {
        const now = await businessNow(db, actor.env, deps.clock);
        return { body: presentSubscription(await cancelSubscription(db, actor, params.id, body?.atPeriodEnd ?? false, now)) };
      },
    }),
  ];
}
