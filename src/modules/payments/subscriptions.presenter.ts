import type { Static } from '@sinclair/typebox';
import type { SubscriptionsTable } from './payments.table.js';
import type { SubscriptionSchema } from './subscriptions.schema.js';

export const presentSubscription = (row: SubscriptionsTable): Static<typeof SubscriptionSchema> => ({
  id: row.id,
  status: row.status,
  parentId: row.parent_id,
  petId: row.pet_id,
  locationId: row.location_id,
  description: row.description,
  amount: row.amount,
  currency: row.currency,
  interval: row.interval,
  intervalCount: row.interval_count,
  collection: row.collection,
  startDate: row.start_date,
  trialEnd: row.trial_end,
  currentPeriodStart: row.current_period_start,
  currentPeriodEnd: row.current_period_end,
  latestInvoiceId: row.latest_invoice_id,
  cancelAtPeriodEnd: row.cancel_at_period_end === 1,
  canceledAt: row.canceled_at,
  createdAt: row.created_at,
});
