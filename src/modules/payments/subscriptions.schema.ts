import { Type, type Static } from '@sinclair/typebox';
import { pageQueryFields } from '../../http/paging.js';
import { NonBlankText } from '../../http/schema-fields.js';
import { LocationId } from '../locations/index.js';
import { CurrencyCode, PositiveAmount } from './money.js';
import { DateOnly, Nullable, ParentId, PetId } from './payment-fields.js';

export const subscriptionStatuses = ['trialing', 'active', 'past_due', 'paused', 'canceled'] as const;
export const subscriptionIntervals = ['week', 'month', 'year'] as const;
export const subscriptionCollections = ['wallet', 'send_invoice'] as const;

const Interval = Type.Union(subscriptionIntervals.map((i) => Type.Literal(i)));
const Collection = Type.Union(
  subscriptionCollections.map((c) => Type.Literal(c)),
  {
    description:
      'wallet: each invoice is paid from the parent’s wallet in the currency (the whole amount or nothing); send_invoice: it stays open for the parent to pay.',
  },
);

export const SubscriptionSchema = Type.Object(
  {
    id: Type.String({ description: 'Subscription id (sub_…).' }),
    status: Type.Union(subscriptionStatuses.map((s) => Type.Literal(s))),
    parentId: Type.String(),
    petId: Nullable(Type.String()),
    locationId: Type.String(),
    description: Type.String(),
    amount: Type.Integer({ description: 'Per period, integer minor units, before the location’s tax.' }),
    currency: Type.String(),
    interval: Interval,
    intervalCount: Type.Integer(),
    collection: Collection,
    startDate: Type.String({ format: 'date' }),
    trialEnd: Nullable(Type.String({ format: 'date', description: 'First day after the trial (the first period starts then).' })),
    currentPeriodStart: Type.String({ format: 'date', description: 'Local date at the location.' }),
    currentPeriodEnd: Type.String({ format: 'date', description: 'Exclusive: the next period starts that day.' }),
    latestInvoiceId: Nullable(Type.String()),
    cancelAtPeriodEnd: Type.Boolean(),
    canceledAt: Nullable(Type.String({ format: 'date-time' })),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const CreateSubscriptionSchema = Type.Object(
  {
    parentId: ParentId,
    locationId: LocationId,
    description: NonBlankText(500),
    amount: PositiveAmount('Per period, integer minor units (tax is added at the location’s rate).'),
    currency: Type.Optional(CurrencyCode),
    interval: Interval,
    intervalCount: Type.Optional(Type.Integer({ minimum: 1, maximum: 52, description: 'Intervals per period (default 1).' })),
    startDate: Type.Optional(
      DateOnly('First day, a local date at the location; default today there. At most a year back (missed periods are billed at once) or five years ahead'),
    ),
    trialDays: Type.Optional(Type.Integer({ minimum: 0, maximum: 730, description: 'Free days before the first period (default 0).' })),
    collection: Collection,
    petId: Type.Optional(Nullable(PetId)),
  },
  { additionalProperties: false },
);

export const UpdateSubscriptionSchema = Type.Object(
  {
    status: Type.Optional(Type.Union([Type.Literal('paused'), Type.Literal('active')], { description: 'Moves only active ⇄ paused; anything else is 409.' })),
    cancelAtPeriodEnd: Type.Optional(Type.Boolean()),
    description: Type.Optional(NonBlankText(500)),
    amount: Type.Optional(PositiveAmount('Per period from the next invoice on.')),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const CancelSubscriptionSchema = Type.Object(
  { atPeriodEnd: Type.Optional(Type.Boolean({ description: 'true: cancel when the current period ends (as PATCH cancelAtPeriodEnd); default: now.' })) },
  { additionalProperties: false },
);

export const ListSubscriptionsQuery = Type.Object(
  {
    ...pageQueryFields,
    parentId: Type.Optional(Type.String({ maxLength: 100 })),
    status: Type.Optional(Type.Union(subscriptionStatuses.map((s) => Type.Literal(s)))),
  },
  { additionalProperties: false },
);

export type CreateSubscriptionInput = Static<typeof CreateSubscriptionSchema>;
export type UpdateSubscriptionInput = Static<typeof UpdateSubscriptionSchema>;
