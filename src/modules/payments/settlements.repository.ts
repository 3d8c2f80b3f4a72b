import { acrossTenants, scoped, visibleRowCondition } from '../../db/access-policy.js';
import type { Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { PaymentMethod, SettlementsTable } from './payments.table.js';

// Provider payouts have no location: only a tenant-wide caller sees them (the policy's location_id in (…) leaves a null out;
// the why is in the payments manifest, and test/security/settlements-null-location.test.ts holds it).
const visible = (db: Executor, access: AccessFilter) => scoped(db, access).selectFrom('settlements').selectAll();

export async function findSettlement(db: Executor, access: AccessFilter, id: string): Promise<SettlementsTable | null> {
  return (await visible(db, access).where('id', '=', id).executeTakeFirst()) ?? null;
}

export interface SettlementListFilters {
  kind?: SettlementsTable['kind'] | undefined;
  locationId?: string | undefined;
  providerId?: string | undefined;
  /** Dates: periods starting on or after `from` and ending on or before `to`. */
  from?: string | undefined;
  to?: string | undefined;
}

export async function listSettlements(db: Executor, access: AccessFilter, page: PageRequest, filters: SettlementListFilters): Promise<SettlementsTable[]> {
  let query = visible(db, access);
  if (filters.kind !== undefined) query = query.where('kind', '=', filters.kind);
  if (filters.locationId !== undefined) query = query.where('location_id', '=', filters.locationId);
  if (filters.providerId !== undefined) query = query.where('provider_id', '=', filters.providerId);
  if (filters.from !== undefined) query = query.where('period_start', '>=', filters.from);
  if (filters.to !== undefined) query = query.where('period_end', '<=', filters.to);
  return pageQuery(query, page).execute();
}

export interface UnsettledItem {
  id: string;
  amount: number;
  currency: string;
  method: PaymentMethod;
}

/** A location's payments not yet counted by a daily close, recorded before `before` (UTC instant). */
export async function unsettledPayments(db: Executor, access: AccessFilter, locationId: string, before: string): Promise<UnsettledItem[]> {
  return scoped(db, access)
    .selectFrom('payments')
    .select(['id', 'amount', 'currency', 'method'])
    .where('location_id', '=', locationId)
    .where('settlement_id', 'is', null)
    .where('created_at', '<', before)
    .orderBy('id')
    .execute();
}

/** The same for refunds, each with the method of the payment it pays back. */
export async function unsettledRefunds(db: Executor, access: AccessFilter, locationId: string, before: string): Promise<UnsettledItem[]> {
  return scoped(db, access)
    .selectFrom('refunds')
    .innerJoin('payments', (join) => join.onRef('payments.id', '=', 'refunds.payment_id').on(visibleRowCondition('payments', 'payments', access)))
    .select(['refunds.id as id', 'refunds.amount as amount', 'refunds.currency as currency', 'payments.method as method'])
    .where('refunds.location_id', '=', locationId)
    .where('refunds.settlement_id', 'is', null)
    .where('refunds.created_at', '<', before)
    .orderBy('refunds.id')
    .execute();
}

export async function insertSettlement(db: Executor, access: AccessFilter, row: SettlementsTable): Promise<void> {
  await scoped(db, access).insert('settlements', row);
}

export async function claimForSettlement(db: Executor, access: AccessFilter, settlementId: string, paymentIds: string[], refundIds: string[]): Promise<void> {
  const queries = scoped(db, access);
  if (paymentIds.length > 0)
    await queries.updateTable('payments').set({ settlement_id: settlementId }).where('id', 'in', paymentIds).where('settlement_id', 'is', null).execute();
  if (refundIds.length > 0)
    await queries.updateTable('refunds').set({ settlement_id: settlementId }).where('id', 'in', refundIds).where('settlement_id', 'is', null).execute();
}

export async function closedThrough(db: Executor, access: AccessFilter, locationId: string): Promise<string | null> {
  const row = await scoped(db, access).selectFrom('daily_close_marks').select('closed_through').where('location_id', '=', locationId).executeTakeFirst();
  return row?.closed_through ?? null;
}

export async function markClosed(db: Executor, access: AccessFilter, locationId: string, day: string, updatedAt: string): Promise<void> {
  // An upsert scoped() does not build: the mark is keyed by the caller's tenant and the location, both in its values.
  await acrossTenants(db, 'upsert of the daily close mark: tenant_id and location_id in its values')
    .insertInto('daily_close_marks')
    .values({ tenant_id: access.tenantId, location_id: locationId, closed_through: day, updated_at: updatedAt })
    .onConflict((oc) => oc.columns(['tenant_id', 'location_id']).doUpdateSet({ closed_through: day, updated_at: updatedAt }))
    .execute();
}
