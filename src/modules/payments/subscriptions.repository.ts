import type { Executor } from '../../db/database.js';
import { inList } from '../../db/in-list.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { SubscriptionsTable, SubscriptionStatus } from './payments.table.js';

function visible(db: Executor, access: AccessFilter) {
  let query = db.selectFrom('subscriptions').selectAll().where('tenant_id', '=', access.tenantId);
  if (access.locationIds !== null) query = query.where('location_id', 'in', inList(access.locationIds));
  return query;
}

export async function findSubscription(db: Executor, access: AccessFilter, id: string): Promise<SubscriptionsTable | null> {
  return (await visible(db, access).where('id', '=', id).executeTakeFirst()) ?? null;
}

export async function listSubscriptions(
  db: Executor,
  access: AccessFilter,
  page: PageRequest,
  filters: { parentId?: string | undefined; status?: SubscriptionStatus | undefined },
): Promise<SubscriptionsTable[]> {
  let query = visible(db, access);
  if (filters.parentId !== undefined) query = query.where('parent_id', '=', filters.parentId);
  if (filters.status !== undefined) query = query.where('status', '=', filters.status);
  return pageQuery(query, page).execute();
}

export async function insertSubscription(db: Executor, row: SubscriptionsTable): Promise<void> {
  await db.insertInto('subscriptions').values(row).execute();
}

export async function updateSubscription(db: Executor, id: string, patch: Partial<SubscriptionsTable>): Promise<void> {
  await db.updateTable('subscriptions').set(patch).where('id', '=', id).execute();
}

/** Subscriptions the billing job may have work for, oldest first (every tenant of the environment). */
export async function billableSubscriptionIds(db: Executor): Promise<string[]> {
  const rows = await db.selectFrom('subscriptions').select('id').where('status', 'in', ['trialing', 'active', 'past_due']).orderBy('id').execute();
  return rows.map((r) => r.id);
}

/** Open invoices a subscription still has (past_due lasts while one is left). */
export async function countOpenSubscriptionInvoices(db: Executor, subscriptionId: string): Promise<number> {
  const rows = await db.selectFrom('invoices').select('id').where('subscription_id', '=', subscriptionId).where('status', '=', 'open').execute();
  return rows.length;
}

/** past_due → active once the subscription owes nothing more (a later payment settled it). */
export async function recoverIfSettled(db: Executor, subscriptionId: string, updatedAt: string): Promise<boolean> {
  if ((await countOpenSubscriptionInvoices(db, subscriptionId)) > 0) return false;
  const result = await db
    .updateTable('subscriptions')
    .set({ status: 'active', updated_at: updatedAt })
    .where('id', '=', subscriptionId)
    .where('status', '=', 'past_due')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
