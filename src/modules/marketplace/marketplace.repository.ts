import { sql } from 'kysely';
import { acrossTenants, scoped } from '../../db/access-policy.js';
import { selectRows, type Executor } from '../../db/database.js';
import { type AccessFilter, wholeTenant } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { SettlementsTable } from '../payments/index.js';
import type { MarketplaceCommissionLinesTable, MarketplaceOrderLinesTable, MarketplaceOrdersTable, OrderStatus } from './marketplace.table.js';

/** An order with its lines, in position order. */
export interface OrderRecord extends MarketplaceOrdersTable {
  lines: MarketplaceOrderLinesTable[];
}

/** Orders the caller sees: its tenant, and its locations when location-scoped (the order's location is the pet's). */
function visibleOrders(db: Executor, actor: AccessFilter) {
  return scoped(db, actor).selectFrom('marketplace_orders').selectAll();
}

export async function insertOrder(db: Executor, access: AccessFilter, order: MarketplaceOrdersTable, lines: MarketplaceOrderLinesTable[]): Promise<void> {
  const queries = scoped(db, access);
  await queries.insert('marketplace_orders', order);
  await queries.insert('marketplace_order_lines', lines);
}

/** The lines of orders already found visible: the tenant is the only condition they still need. */
async function withLines(db: Executor, access: AccessFilter, orders: MarketplaceOrdersTable[]): Promise<OrderRecord[]> {
  if (orders.length === 0) return [];
  const lines = await scoped(db, wholeTenant(access))
    .selectFrom('marketplace_order_lines')
    .selectAll()
    .where(
      'order_id',
      'in',
      orders.map((o) => o.id),
    )
    .orderBy('order_id')
    .orderBy('position')
    .execute();
  const byOrder = new Map<string, MarketplaceOrderLinesTable[]>();
  for (const line of lines) byOrder.set(line.order_id, [...(byOrder.get(line.order_id) ?? []), line]);
  return orders.map((o) => ({ ...o, lines: byOrder.get(o.id) ?? [] }));
}

export async function findOrder(db: Executor, actor: AccessFilter, id: string): Promise<OrderRecord | null> {
  const row = await visibleOrders(db, actor).where('id', '=', id).executeTakeFirst();
  return row ? ((await withLines(db, actor, [row]))[0] ?? null) : null;
}

/** The order an invoice bills (the invoice-paid hook: the payment already passed the caller's filter). */
export async function findOrderByInvoice(db: Executor, tenantId: string, invoiceId: string): Promise<OrderRecord | null> {
  // Asked on every payment and refund (most invoices bill no order): prepared text, not the builder.
  // Tenant-wide by design (the hook follows a payment or refund the caller could see), so the tenant is its only condition.
  const [row] = await selectRows<MarketplaceOrdersTable>(
    acrossTenants(db, 'hand-written: tenant_id and locations in its text'),
    'select * from marketplace_orders where tenant_id = ? and invoice_id = ?',
    [tenantId, invoiceId],
  );
  return row ? ((await withLines(db, { tenantId, locationIds: null }, [row]))[0] ?? null) : null;
}

export interface OrderFilters {
  status?: OrderStatus | undefined;
  parentId?: string | undefined;
  petId?: string | undefined;
}

function filteredOrders(db: Executor, actor: AccessFilter, filters: OrderFilters) {
  let query = visibleOrders(db, actor);
  if (filters.status !== undefined) query = query.where('status', '=', filters.status);
  if (filters.parentId !== undefined) query = query.where('parent_id', '=', filters.parentId);
  if (filters.petId !== undefined) query = query.where('pet_id', '=', filters.petId);
  return query;
}

/** Newest first by cursor. */
export async function listOrders(db: Executor, actor: AccessFilter, page: PageRequest, filters: OrderFilters): Promise<OrderRecord[]> {
  return withLines(db, actor, await pageQuery(filteredOrders(db, actor, filters), page).execute());
}

/** Newest first by page number (1-based), one extra row to tell whether more follow. */
export async function listOrdersAt(db: Executor, actor: AccessFilter, pageNumber: number, perPage: number, filters: OrderFilters): Promise<OrderRecord[]> {
  const rows = await filteredOrders(db, actor, filters)
    .orderBy('id', 'desc')
    .limit(perPage + 1)
    .offset((pageNumber - 1) * perPage)
    .execute();
  return withLines(db, actor, rows);
}

export async function countOrders(db: Executor, actor: AccessFilter, filters: OrderFilters): Promise<number> {
  const row = await filteredOrders(db, actor, filters).clearSelect().select(sql<number>`count(*)`.as('n')).executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function updateOrder(db: Executor, access: AccessFilter, id: string, patch: Partial<MarketplaceOrdersTable>): Promise<void> {
  await scoped(db, access).updateTable('marketplace_orders').set(patch).where('id', '=', id).execute();
}

export async function updateOrderLine(
  db: Executor,
  access: AccessFilter,
  id: string,
  patch: Partial<Pick<MarketplaceOrderLinesTable, 'amount_refunded' | 'tax_refunded' | 'completed_at'>>,
): Promise<void> {
  await scoped(db, access).updateTable('marketplace_order_lines').set(patch).where('id', '=', id).execute();
}

/** The order line holding a booking, through the booking's visibility (tenant, locations). */
export async function findLineOfBooking(db: Executor, actor: AccessFilter, bookingId: string): Promise<MarketplaceOrderLinesTable | null> {
  const row = await scoped(db, actor)
    .selectFrom('bookings as b')
    .innerJoin('marketplace_order_lines as l', 'l.booking_id', 'b.id')
    .selectAll('l')
    .where('b.id', '=', bookingId)
    .where('b.kind', '=', 'marketplace')
    .executeTakeFirst();
  return row ?? null;
}

// ---------------------------------------------------------------- commission lines

export async function insertCommissionLines(db: Executor, access: AccessFilter, rows: MarketplaceCommissionLinesTable[]): Promise<void> {
  await scoped(db, access).insert('marketplace_commission_lines', rows);
}

export interface CommissionFilters {
  providerId?: string | undefined;
  status?: 'accrued' | 'settled' | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

/** Commission lines the caller sees: through their order's location when location-scoped. */
export async function listCommissionLines(
  db: Executor,
  actor: AccessFilter,
  page: PageRequest,
  filters: CommissionFilters,
): Promise<MarketplaceCommissionLinesTable[]> {
  let query = scoped(db, actor).selectFrom('marketplace_commission_lines as c').selectAll('c');
  if (filters.providerId !== undefined) query = query.where('c.provider_id', '=', filters.providerId);
  if (filters.status !== undefined) query = query.where('c.status', '=', filters.status);
  if (filters.from !== undefined) query = query.where('c.created_at', '>=', filters.from);
  if (filters.to !== undefined) query = query.where('c.created_at', '<', filters.to);
  return pageQuery(query, page, 'c.id').execute();
}

/**
 * The lines a statement takes: unsettled sale and refund lines of order lines completed before
 * `completedBefore` (the UTC instant after periodEnd). A refund of a line never completed waits
 * with the line's sale, so a statement never carries a refund without its sale.
 */
export async function payableLines(
  db: Executor,
  access: AccessFilter,
  completedBefore: string,
  providerId?: string,
): Promise<MarketplaceCommissionLinesTable[]> {
  let query = scoped(db, access)
    .selectFrom('marketplace_commission_lines as c')
    .innerJoin('marketplace_order_lines as l', 'l.id', 'c.order_line_id')
    .selectAll('c')
    .where('c.settlement_id', 'is', null)
    .where('l.completed_at', 'is not', null)
    .where('l.completed_at', '<', completedBefore);
  if (providerId !== undefined) query = query.where('c.provider_id', '=', providerId);
  return query.orderBy('c.id').execute();
}

export async function claimLines(db: Executor, access: AccessFilter, settlementId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await scoped(db, access)
    .updateTable('marketplace_commission_lines')
    .set({ settlement_id: settlementId, status: 'settled' })
    .where('id', 'in', ids)
    .where('settlement_id', 'is', null)
    .execute();
}

export async function linesOfStatements(db: Executor, access: AccessFilter, settlementIds: string[]): Promise<MarketplaceCommissionLinesTable[]> {
  if (settlementIds.length === 0) return [];
  return scoped(db, access).selectFrom('marketplace_commission_lines').selectAll().where('settlement_id', 'in', settlementIds).orderBy('id').execute();
}

// ---------------------------------------------------------------- payout statements (payments' settlements table, kind provider_payout)

export async function insertStatement(db: Executor, access: AccessFilter, row: SettlementsTable): Promise<void> {
  await scoped(db, access).insert('settlements', row);
}

export async function statementsOfPeriod(
  db: Executor,
  access: AccessFilter,
  periodStart: string,
  periodEnd: string,
  providerId?: string,
): Promise<SettlementsTable[]> {
  let query = scoped(db, access)
    .selectFrom('settlements')
    .selectAll()
    .where('kind', '=', 'provider_payout')
    .where('period_start', '=', periodStart)
    .where('period_end', '=', periodEnd);
  if (providerId !== undefined) query = query.where('provider_id', '=', providerId);
  return query.orderBy('id').execute();
}

export async function findStatement(db: Executor, access: AccessFilter, id: string): Promise<SettlementsTable | null> {
  return (await scoped(db, access).selectFrom('settlements').selectAll().where('kind', '=', 'provider_payout').where('id', '=', id).executeTakeFirst()) ?? null;
}

export async function markStatementPaid(db: Executor, access: AccessFilter, id: string, paidAt: string): Promise<void> {
  await scoped(db, access).updateTable('settlements').set({ status: 'paid', paid_at: paidAt }).where('id', '=', id).execute();
}

/** Sandbox reset: a tenant's orders, lines and commission lines (before money records, bookings and providers go). */
export async function deleteMarketplaceRows(db: Executor, tenantId: string): Promise<void> {
  const tenant = scoped(db, { tenantId, locationIds: null });
  for (const table of ['marketplace_commission_lines', 'marketplace_order_lines', 'marketplace_orders'] as const) {
    await tenant.deleteFrom(table).execute();
  }
}
