import { DateTime } from 'luxon';
import type { Executor } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import { isoAt } from '../../clock.js';
import { addDays, isCalendarDate, localDate } from '../../calendar-dates.js';
import { wholeTenant, type AccessFilter } from '../../http/actor.js';
import { AppError, foundOr404, missingReference, validationFailed } from '../../http/errors.js';
import { emit } from '../events/index.js';
import { findLocation } from '../locations/index.js';
import { findPetParent } from '../pet-parents/index.js';
import { findPet } from '../pets/index.js';
import { createInvoice } from './invoices.service.js';
import { isCurrency } from './money.js';
import type { InvoicesTable, SubscriptionsTable, SubscriptionStatus } from './payments.table.js';
import { recordPayment } from './payments.service.js';
import { findSubscription, insertSubscription, insertSubscriptionInvoice, openSubscriptionInvoices, updateSubscription } from './subscriptions.repository.js';
import type { CreateSubscriptionInput, UpdateSubscriptionInput } from './subscriptions.schema.js';
import { findParentWallet, walletBalance } from './wallets.repository.js';

/** Days a send_invoice subscription's invoice may stay open before the subscription is past_due. */
export const sendInvoiceDueDays = 30;

/** The subscription state machine of DESIGN §9: only these moves happen, each in one place. */
const transitions: Record<SubscriptionStatus, readonly SubscriptionStatus[]> = {
  trialing: ['active', 'past_due', 'canceled'],
  active: ['past_due', 'paused', 'canceled'],
  past_due: ['active', 'canceled'],
  paused: ['active', 'canceled'],
  canceled: [],
};

function assertTransition(sub: Pick<SubscriptionsTable, 'id' | 'status'>, to: SubscriptionStatus, action = `become ${to}`): void {
  if (transitions[sub.status].includes(to)) return;
  const allowed = transitions[sub.status].length ? transitions[sub.status].join(', ') : 'none (final state)';
  throw new AppError('invalid_state_transition', `Subscription ${sub.id} is ${sub.status} and cannot ${action}; allowed: ${allowed}.`, {
    extensions: { currentStatus: sub.status },
  });
}

/** Period n starts at the anchor plus n × intervalCount intervals, computed from the anchor (31 Jan → 28 Feb → 31 Mar). */
export function periodStart(sub: Pick<SubscriptionsTable, 'anchor_date' | 'interval' | 'interval_count'>, n: number): string {
  const anchor = DateTime.fromISO(sub.anchor_date, { zone: 'utc' });
  const steps = n * sub.interval_count;
  const date =
    sub.interval === 'week' ? anchor.plus({ weeks: steps }) : sub.interval === 'month' ? anchor.plus({ months: steps }) : anchor.plus({ years: steps });
  return date.toISODate() ?? sub.anchor_date;
}

const eventData = (sub: SubscriptionsTable) => ({
  subscriptionId: sub.id,
  parentId: sub.parent_id,
  status: sub.status,
  latestInvoiceId: sub.latest_invoice_id,
});

export async function getSubscription(db: Executor, access: AccessFilter, id: string): Promise<SubscriptionsTable> {
  return foundOr404(await findSubscription(db, access, id), 'subscription', id);
}

/**
 * Creates a subscription (trialing with trialDays, else active) and bills at once every period
 * that has already started, the same way the subscription-billing job bills the later ones.
 */
export async function createSubscription(trx: Executor, access: AccessFilter, input: CreateSubscriptionInput, now: number): Promise<SubscriptionsTable> {
  const parent = await findPetParent(trx, access, input.parentId);
  if (!parent) throw missingReference('parentId', 'pet parent', input.parentId);
  const location = await findLocation(trx, access, input.locationId);
  if (!location) throw missingReference('locationId', 'location', input.locationId);
  if (input.petId != null) {
    const pet = await findPet(trx, access, input.petId);
    if (!pet) throw missingReference('petId', 'pet', input.petId);
    if (pet.owner_id !== parent.id) throw validationFailed([{ field: 'petId', message: `pet ${pet.id} belongs to another pet parent` }]);
  }
  const currency = input.currency ?? location.currency;
  if (!isCurrency(currency)) throw validationFailed([{ field: 'currency', message: `'${currency}' is not an ISO 4217 currency code` }]);
  const today = localDate(now, location.timezone);
  const startDate = input.startDate ?? today;
  if (!isCalendarDate(startDate)) throw validationFailed([{ field: 'startDate', message: `'${startDate}' is not a calendar date` }]);
  if (startDate < addDays(today, -366) || startDate > addDays(today, 5 * 366)) {
    throw validationFailed([{ field: 'startDate', message: `must be within a year before and five years after today (${today} at the location)` }]);
  }
  const trialDays = input.trialDays ?? 0;
  const anchor = addDays(startDate, trialDays);
  const at = isoAt(now);
  const row: SubscriptionsTable = {
    id: newId('sub'),
    tenant_id: access.tenantId,
    location_id: location.id,
    parent_id: parent.id,
    pet_id: input.petId ?? null,
    description: input.description.trim(),
    amount: input.amount,
    currency,
    interval: input.interval,
    interval_count: input.intervalCount ?? 1,
    collection: input.collection,
    status: trialDays > 0 ? 'trialing' : 'active',
    start_date: startDate,
    trial_end: trialDays > 0 ? anchor : null,
    anchor_date: anchor,
    next_period_index: 0,
    current_period_start: trialDays > 0 ? startDate : anchor,
    current_period_end: trialDays > 0 ? anchor : '',
    latest_invoice_id: null,
    cancel_at_period_end: 0,
    canceled_at: null,
    created_at: at,
    updated_at: at,
  };
  if (trialDays === 0) row.current_period_end = periodStart(row, 1);
  await insertSubscription(trx, access, row);
  await emit(trx, 'subscription.created', eventData(row), access.tenantId, now);
  while (await billNextPeriod(trx, wholeTenant(access), row.id, now)) {
    // every period already started is billed now, oldest first
  }
  return getSubscription(trx, access, row.id);
}

/** PATCH: pause or resume (active ⇄ paused only), cancelAtPeriodEnd, description and amount of later periods. */
export async function patchSubscription(
  trx: Executor,
  access: AccessFilter,
  id: string,
  input: UpdateSubscriptionInput,
  now: number,
): Promise<SubscriptionsTable> {
  const sub = await getSubscription(trx, access, id);
  if (sub.status === 'canceled') assertTransition(sub, 'active', 'be changed');
  const patch: Partial<SubscriptionsTable> = { updated_at: isoAt(now) };
  if (input.status !== undefined && input.status !== sub.status) {
    const allowed = (sub.status === 'active' && input.status === 'paused') || (sub.status === 'paused' && input.status === 'active');
    if (!allowed) {
      throw new AppError('invalid_state_transition', `Subscription ${id} is ${sub.status}: status moves only between active and paused.`, {
        extensions: { currentStatus: sub.status },
      });
    }
    patch.status = input.status;
    if (input.status === 'active') {
      // Periods that started while paused are not billed: billing resumes with the next period start.
      const location = await findLocation(trx, { tenantId: sub.tenant_id, locationIds: null }, sub.location_id);
      const today = localDate(now, location?.timezone ?? 'UTC');
      let next = sub.next_period_index;
      while (periodStart(sub, next) < today) next++;
      patch.next_period_index = next;
    }
  }
  if (input.cancelAtPeriodEnd !== undefined) patch.cancel_at_period_end = input.cancelAtPeriodEnd ? 1 : 0;
  if (input.description !== undefined) patch.description = input.description.trim();
  if (input.amount !== undefined) patch.amount = input.amount;
  await updateSubscription(trx, access, id, patch);
  return { ...sub, ...patch };
}

/** Cancels now (any live state → canceled; emits subscription.canceled), or at the end of the current period. */
export async function cancelSubscription(trx: Executor, access: AccessFilter, id: string, atPeriodEnd: boolean, now: number): Promise<SubscriptionsTable> {
  const sub = await getSubscription(trx, access, id);
  assertTransition(sub, 'canceled', 'be canceled');
  if (atPeriodEnd) return patchSubscription(trx, access, id, { cancelAtPeriodEnd: true }, now);
  return endSubscription(trx, sub, now);
}

/** The whole tenant of a subscription the caller (or the billing job) already holds. */
const tenantOf = (sub: Pick<SubscriptionsTable, 'tenant_id'>): AccessFilter => ({ tenantId: sub.tenant_id, locationIds: null });

async function endSubscription(trx: Executor, sub: SubscriptionsTable, now: number): Promise<SubscriptionsTable> {
  const at = isoAt(now);
  const patch: Partial<SubscriptionsTable> = { status: 'canceled', canceled_at: at, updated_at: at };
  await updateSubscription(trx, tenantOf(sub), sub.id, patch);
  const ended = { ...sub, ...patch };
  await emit(trx, 'subscription.canceled', eventData(ended), sub.tenant_id, now);
  return ended;
}

async function markPastDue(trx: Executor, sub: SubscriptionsTable, now: number): Promise<SubscriptionsTable> {
  if (sub.status === 'past_due') return sub;
  const patch: Partial<SubscriptionsTable> = { status: 'past_due', updated_at: isoAt(now) };
  await updateSubscription(trx, tenantOf(sub), sub.id, patch);
  const moved = { ...sub, ...patch };
  await emit(trx, 'subscription.past_due', eventData(moved), sub.tenant_id, now);
  return moved;
}

/** Pays an invoice from the parent's wallet when it holds the whole amount; false (nothing taken) otherwise. */
async function collectFromWallet(
  trx: Executor,
  sub: SubscriptionsTable,
  invoice: Pick<InvoicesTable, 'id' | 'total' | 'amount_paid'>,
  now: number,
): Promise<boolean> {
  const due = invoice.total - invoice.amount_paid;
  if (due <= 0) return true;
  const wallet = await findParentWallet(trx, tenantOf(sub), sub.parent_id, sub.currency);
  if (!wallet || (await walletBalance(trx, tenantOf(sub), wallet.id)) < due) return false;
  await recordPayment(
    trx,
    tenantOf(sub),
    { parentId: sub.parent_id, invoiceId: invoice.id, amount: due, currency: sub.currency, method: 'wallet', reference: `subscription ${sub.id}` },
    now,
  );
  return true;
}

/** What one billing step did: invoiced a period (sent, paid from the wallet, or left open), retried a collection, canceled, or marked past_due. */
export type BillingStep = 'invoiced' | 'paid_from_wallet' | 'left_open' | 'retried_collection' | 'canceled' | 'marked_past_due';

/**
 * Does the next due piece of work of one subscription in the caller's transaction and says what
 * it did, or null when nothing is due: retry a past-due wallet collection, cancel at period end,
 * invoice the next period that has started (claimed once: UNIQUE subscription + period start),
 * or mark a send_invoice subscription past_due when an invoice is open past its due date.
 * The job calls it in a fresh transaction per step, so parallel runs never bill a period twice;
 * `access` is the whole tenant of the subscription.
 */
export async function billNextPeriod(trx: Executor, access: AccessFilter, subscriptionId: string, now: number): Promise<BillingStep | null> {
  const sub = await findSubscription(trx, access, subscriptionId);
  if (!sub || sub.status === 'canceled' || sub.status === 'paused') return null;
  const location = await findLocation(trx, { tenantId: sub.tenant_id, locationIds: null }, sub.location_id);
  const today = localDate(now, location?.timezone ?? 'UTC');

  if (sub.status === 'past_due' && sub.collection === 'wallet') {
    const open = await openSubscriptionInvoices(trx, tenantOf(sub), sub.id);
    let recovered = false;
    for (const invoice of open) {
      if (!(await collectFromWallet(trx, sub, invoice, now))) break;
      recovered = true;
    }
    // Paying the last open invoice made it active again (recordPayment recovers it).
    if (recovered) return 'retried_collection';
  }

  const start = periodStart(sub, sub.next_period_index);
  if (start <= today) {
    if (sub.cancel_at_period_end === 1) {
      await endSubscription(trx, sub, now);
      return 'canceled';
    }
    return invoicePeriod(trx, sub, start, now);
  }

  if (sub.collection === 'send_invoice' && sub.status !== 'past_due') {
    const overdue = (await openSubscriptionInvoices(trx, tenantOf(sub), sub.id)).some((i) => i.due_on !== null && i.due_on < today);
    if (overdue) {
      await markPastDue(trx, sub, now);
      return 'marked_past_due';
    }
  }
  return null;
}

async function invoicePeriod(trx: Executor, sub: SubscriptionsTable, start: string, now: number): Promise<BillingStep> {
  const end = periodStart(sub, sub.next_period_index + 1);
  const access = tenantOf(sub);
  // The pet named on the invoice only while it is still this parent's.
  const pet = sub.pet_id ? await findPet(trx, access, sub.pet_id) : null;
  const invoice = await createInvoice(
    trx,
    access,
    {
      parentId: sub.parent_id,
      locationId: sub.location_id,
      petId: pet?.owner_id === sub.parent_id ? sub.pet_id : null,
      currency: sub.currency,
      dueOn: sub.collection === 'wallet' ? start : addDays(start, sendInvoiceDueDays),
      lines: [{ description: `${sub.description} (${start} to ${addDays(end, -1)})`, quantity: 1, unitAmount: sub.amount, sourceId: sub.id }],
      finalize: true,
    },
    now,
    { subscriptionId: sub.id },
  );
  // The primary key (subscription, period start) is the last word: a second claim aborts this transaction.
  await insertSubscriptionInvoice(trx, access, {
    subscription_id: sub.id,
    period_start: start,
    period_end: end,
    invoice_id: invoice.id,
    tenant_id: sub.tenant_id,
    created_at: isoAt(now),
  });
  const billed: SubscriptionsTable = {
    ...sub,
    status: sub.status === 'trialing' ? 'active' : sub.status,
    next_period_index: sub.next_period_index + 1,
    current_period_start: start,
    current_period_end: end,
    latest_invoice_id: invoice.id,
    updated_at: isoAt(now),
  };
  await updateSubscription(trx, access, sub.id, {
    status: billed.status,
    next_period_index: billed.next_period_index,
    current_period_start: start,
    current_period_end: end,
    latest_invoice_id: invoice.id,
    updated_at: billed.updated_at,
  });
  if (sub.collection !== 'wallet' || invoice.status === 'paid') return 'invoiced';
  if (await collectFromWallet(trx, billed, invoice, now)) return 'paid_from_wallet';
  await markPastDue(trx, billed, now);
  return 'left_open';
}
