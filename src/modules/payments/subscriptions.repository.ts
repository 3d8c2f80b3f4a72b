import { acrossTenants, scoped } from '../../db/access-policy.js';
import type { Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { SubscriptionInvoicesTable, SubscriptionsTable, SubscriptionStatus } from './payments.table.js';

export async function findSubscription(db: Executor, access: AccessFilter, id: string): Promise<SubscriptionsTable | null> {
  return (await scoped(db, access).selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
}

export async function listSubscriptions(
  db: Executor,
  access: AccessFilter,
  page: PageRequest,
  filters: { parentId?: string | undefined; status?: SubscriptionStatus | undefined },
): Promise<SubscriptionsTable[]> {
  let query = scoped(db, access).selectFrom('subscriptions').selectAll();
  if (filters.parentId !== undefined) query = query.where('parent_id', '=', filters.parentId);
  if (filters.status !== undefined) query = query.where('status', '=', filters.status);
  return pageQuery(query, page).execute();
}

export async function insertSubscription(db: Executor, access: AccessFilter, row: SubscriptionsTable): Promise<void> {
  await scoped(db, access).insert('subscriptions', row);
}

export async function updateSubscription(db: Executor, access: AccessFilter, id: string, patch: Partial<SubscriptionsTable>): Promise<void> {
  await scoped(db, access).updateTable('subscriptions').set(patch).where('id', '=', id).execute();
}

/** Subscriptions the billing job may have work for, oldest first (every tenant of the environment), each with its tenant. */
export async function billableSubscriptions(db: Executor): Promise<Array<{ id: string; tenant_id: string }>> {
  return acrossTenants(db, 'the billing job finds the subscriptions with work in every tenant')
    .selectFrom('subscriptions')
    .select(['id', 'tenant_id'])
    .where('status', 'in', ['trialing', 'active', 'past_due'])
    .orderBy('id')
    .execute();
}

/** Open invoices a subscription still has (past_due lasts while one is left). */
export async function countOpenSubscriptionInvoices(db: Executor, access: AccessFilter, subscriptionId: string): Promise<number> {
  const rows = await scoped(db, access)
    .selectFrom('invoices')
    .select('id')
    .where('subscription_id', '=', subscriptionId)
    .where('status', '=', 'open')
    .execute();
  return rows.length;
}

/** Open invoices of a subscription, oldest first. */
export async function openSubscriptionInvoices(db: Executor, access: AccessFilter, subscriptionId: string) {
  return scoped(db, access)
    .selectFrom('invoices')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .where('status', '=', 'open')
    .orderBy('id')
    .execute();
}

/** past_due → active once the subscription owes nothing more (a later payment settled it). */
export async function recoverIfSettled(db: Executor, access: AccessFilter, subscriptionId: string, updatedAt: string): Promise<boolean> {
  if ((await countOpenSubscriptionInvoices(db, access, subscriptionId)) > 0) return false;
  const result = await scoped(db, access)
    .updateTable('subscriptions')
    .set({ status: 'active', updated_at: updatedAt })
    .where('id', '=', subscriptionId)
    .where('status', '=', 'past_due')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Claims one period of a subscription for its invoice: the primary key (subscription, period start) refuses a second claim. */
export async function insertSubscriptionInvoice(db: Executor, access: AccessFilter, row: SubscriptionInvoicesTable): Promise<void> {
  await scoped(db, access).insert('subscription_invoices', row);
}
