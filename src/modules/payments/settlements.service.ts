import { DateTime } from 'luxon';
import type { Executor, LocationsTable } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import { isoAt } from '../../clock.js';
import { addDays, localDate } from '../../calendar-dates.js';
import type { AccessFilter } from '../../http/actor.js';
import { foundOr404 } from '../../http/errors.js';
import type { SettlementsTable } from './payments.table.js';
import {
  claimForSettlement,
  closedThrough,
  findSettlement,
  insertSettlement,
  markClosed,
  unsettledPayments,
  unsettledRefunds,
  type UnsettledItem,
} from './settlements.repository.js';

export async function getSettlement(db: Executor, access: AccessFilter, id: string): Promise<SettlementsTable> {
  return foundOr404(await findSettlement(db, access, id), 'settlement', id);
}

/** The UTC instant a local date ends at (the next local midnight), as stored times are written. */
const endOfLocalDay = (day: string, timezone: string): string => isoAt(DateTime.fromISO(day, { zone: timezone }).plus({ days: 1 }).startOf('day').toMillis());

/** The last local date a location may close: yesterday at the location on the business clock. */
export const lastClosableDay = (now: number, timezone: string): string => addDays(localDate(now, timezone), -1);

/** The first day a location ever closes: the local date it was created. */
export const firstDayOf = (location: Pick<LocationsTable, 'created_at' | 'timezone'>): string => localDate(Date.parse(location.created_at), location.timezone);

function totalsOf(currency: string, payments: UnsettledItem[], refunds: UnsettledItem[]) {
  const mine = (items: UnsettledItem[]) => items.filter((i) => i.currency === currency);
  const p = mine(payments);
  const r = mine(refunds);
  const byMethod: Record<string, number> = {};
  for (const item of p) byMethod[item.method] = (byMethod[item.method] ?? 0) + item.amount;
  for (const item of r) byMethod[item.method] = (byMethod[item.method] ?? 0) - item.amount;
  const gross = p.reduce((s, i) => s + i.amount, 0);
  const refunded = r.reduce((s, i) => s + i.amount, 0);
  return { gross, refunds: refunded, net: gross - refunded, byMethod, payments: p, refundItems: r };
}

/** The settlement job works on one location's rows: its whole tenant. */
const tenantOf = (location: Pick<LocationsTable, 'tenant_id'>): AccessFilter => ({ tenantId: location.tenant_id, locationIds: null });

/**
 * Closes one local day of a location in the caller's transaction: every payment and refund of the
 * location not yet counted and recorded before the day ended (so one recorded late, after an
 * earlier close, falls into this one), one settlement per currency — always one in the location's
 * currency, even for a quiet day. The day is then immutable (a trigger) and the mark moves on.
 */
export async function closeDay(trx: Executor, location: LocationsTable, day: string, now: number): Promise<SettlementsTable[]> {
  const before = endOfLocalDay(day, location.timezone);
  const access = tenantOf(location);
  const [payments, refunds] = await Promise.all([unsettledPayments(trx, access, location.id, before), unsettledRefunds(trx, access, location.id, before)]);
  const currencies = new Set<string>([location.currency, ...payments.map((p) => p.currency), ...refunds.map((r) => r.currency)]);
  const created: SettlementsTable[] = [];
  for (const currency of [...currencies].sort()) {
    const totals = totalsOf(currency, payments, refunds);
    const row: SettlementsTable = {
      id: newId('stl'),
      tenant_id: location.tenant_id,
      kind: 'daily_close',
      location_id: location.id,
      provider_id: null,
      period_start: day,
      period_end: day,
      currency,
      gross: totals.gross,
      refunds: totals.refunds,
      net: totals.net,
      by_method: JSON.stringify(totals.byMethod),
      payment_count: totals.payments.length,
      refund_count: totals.refundItems.length,
      status: 'closed',
      created_at: isoAt(now),
      commission: 0,
      paid_at: null,
    };
    await insertSettlement(trx, access, row);
    await claimForSettlement(
      trx,
      access,
      row.id,
      totals.payments.map((p) => p.id),
      totals.refundItems.map((r) => r.id),
    );
    created.push(row);
  }
  await markClosed(trx, access, location.id, day, isoAt(now));
  return created;
}

/** The next day a location has to close, or null when it is closed through yesterday (re-read in the transaction). */
export async function nextDayToClose(trx: Executor, location: LocationsTable, now: number): Promise<string | null> {
  const through = await closedThrough(trx, tenantOf(location), location.id);
  const next = through === null ? firstDayOf(location) : addDays(through, 1);
  return next <= lastClosableDay(now, location.timezone) ? next : null;
}
