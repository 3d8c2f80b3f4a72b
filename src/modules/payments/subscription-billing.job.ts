import type { JobDefinition } from '../../jobs/job-definition.js';
import { businessNow } from '../business-clock/index.js';
import { billNextPeriod, type BillingStep } from './subscriptions.service.js';
import { billableSubscriptions } from './subscriptions.repository.js';

/** Steps one subscription may take in one run: enough to catch up years of missed weekly periods, never an endless loop. */
const maxStepsPerSubscription = 1_000;

/**
 * Hourly (so each location's local midnight is met within the hour), and on demand: invoices each
 * subscription period at its start exactly once, catching up missed periods; collects from the
 * wallet or leaves the invoice open (past_due); cancels at period end. Reads the business clock
 * (the sandbox test clock). One transaction per step: a run that stops half-way loses nothing.
 */
export function subscriptionBillingJob(): JobDefinition {
  return {
    name: 'subscription-billing',
    description:
      'Hourly. Invoices every subscription period that has started (at the location, on the business clock — the sandbox test clock in the sandbox) exactly once, ' +
      'catching up missed periods; collection wallet pays it from the wallet (the whole amount or nothing: a short balance leaves it open and the subscription past_due, retried on later runs); ' +
      'cancels subscriptions set to cancel at period end; marks send_invoice subscriptions past_due when an invoice is open past its due date.',
    schedule: { cron: '5 * * * *' },
    maxAttempts: 3,
    async run(ctx) {
      const { db } = ctx.store;
      const now = await businessNow(db, ctx.env, ctx.clock);
      const counts: Record<BillingStep, number> = { invoiced: 0, paid_from_wallet: 0, left_open: 0, retried_collection: 0, canceled: 0, marked_past_due: 0 };
      let subscriptions = 0;
      for (const { id, tenant_id } of await billableSubscriptions(db)) {
        if (ctx.signal.aborted) break;
        subscriptions++;
        for (let step = 0; step < maxStepsPerSubscription; step++) {
          const done = await db.transaction().execute((trx) => billNextPeriod(trx, { tenantId: tenant_id, locationIds: null }, id, now));
          if (done === null) break;
          counts[done]++;
        }
      }
      const invoices = counts.invoiced + counts.paid_from_wallet + counts.left_open;
      return { subscriptions, invoices, ...counts, businessNow: new Date(now).toISOString() };
    },
  };
}
