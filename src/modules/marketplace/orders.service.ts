import type { Config } from '../../config.js';
import type { Executor, LocationsTable } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import { type Actor, type AccessFilter, wholeTenant } from '../../http/actor.js';
import { AppError, foundOr404, missingReference, validationFailed } from '../../http/errors.js';
import {
  busyIntervals,
  covers,
  dayMs,
  findSchedule,
  minuteMs,
  overlapsAny,
  parseInstant,
  timeOffIntervals,
  toIso,
  weeklyOf,
  workingIntervals,
  zoneClock,
} from '../scheduling/index.js';
import {
  assertTransition,
  emitBookingCancelled,
  emitBookingCreated,
  findBooking,
  insertBooking,
  updateBooking,
  type BookingsTable,
  type StateMachine,
} from '../bookings/index.js';
import { emit } from '../events/index.js';
import { findLocation } from '../locations/index.js';
import {
  accounts,
  createInvoice,
  createRefund,
  creditedSoFar,
  getInvoice,
  postJournal,
  refundablePaymentsOf,
  taxOf,
  voidInvoice,
  type JournalLine,
} from '../payments/index.js';
import type { InvoicesTable, RefundsTable } from '../payments/index.js';
import type { RefundRequest } from '../payments/index.js';
import { findPet } from '../pets/index.js';
import { BookableNotFound, findBookableListing, type BookableListing } from '../providers/index.js';
import type { CreateOrderInput, MarketplaceBookingStatus, RefundOrderInput } from './marketplace.schema.js';
import type { MarketplaceCommissionLinesTable, MarketplaceOrderLinesTable, MarketplaceOrdersTable, OrderStatus } from './marketplace.table.js';
import {
  findLineOfBooking,
  findOrder,
  findOrderByInvoice,
  insertCommissionLines,
  insertOrder,
  updateOrder,
  updateOrderLine,
  type OrderRecord,
} from './marketplace.repository.js';
import { allocateRefund, moneyForGross, moneyLeft, type LineRefund } from './order-refund-allocation.js';

/** DESIGN §12: the moves of an order; anything else is 409 invalid_state_transition with the current state. */
export const orderMachine: StateMachine<OrderStatus> = {
  pending_payment: ['paid', 'cancelled'],
  paid: ['fulfilled', 'partially_refunded', 'refunded'],
  fulfilled: ['partially_refunded', 'refunded'],
  partially_refunded: ['partially_refunded', 'refunded'],
  cancelled: [],
  refunded: [],
};

/** A marketplace booking: reserved while its order awaits payment, confirmed once paid, then completed; reserved or confirmed → cancelled. */
export const marketplaceBookingMachine: StateMachine<MarketplaceBookingStatus> = {
  reserved: ['confirmed', 'cancelled'],
  confirmed: ['completed', 'cancelled'],
  completed: [],
  cancelled: [],
};

/** Orders further ahead than this are refused (as appointments and grooms are). */
export const maxLeadDays = 730;

export type MarketplaceSettings = Pick<Config, 'bookingMinNoticeMinutes' | 'commissionBps'>;

export async function getOrder(db: Executor, actor: AccessFilter, id: string): Promise<OrderRecord> {
  return foundOr404(await findOrder(db, actor, id), 'order', id);
}

/** The provider and listing of one line; an unknown or unseen one is a bad reference in the body (400 resource_missing). */
async function bookableLine(db: Executor, actor: AccessFilter, line: CreateOrderInput['lines'][number], at: number): Promise<BookableListing> {
  try {
    return await findBookableListing(db, actor, line.providerId, line.listingId);
  } catch (err) {
    if (err instanceof BookableNotFound) {
      const field = err.missing === 'listing' ? 'listingId' : 'providerId';
      throw missingReference(`lines[${at}].${field}`, err.missing, line[field]);
    }
    throw err;
  }
}

interface Claim {
  start: number;
  end: number;
}

/**
 * Whether the provider can take [start, end) at the location, inside the write transaction:
 * working hours of its schedule there (§5), time off, and every busy time it has (appointments,
 * grooms, marketplace bookings), plus the claims earlier lines of this order made. 409 otherwise.
 */
async function claimSlot(
  db: Executor,
  actor: AccessFilter,
  found: BookableListing,
  location: Pick<LocationsTable, 'id' | 'name' | 'timezone'>,
  slot: Claim,
  earlier: Claim[],
): Promise<void> {
  const { provider } = found;
  const when = `${toIso(slot.start)}–${toIso(slot.end)}`;
  const schedule = await findSchedule(db, wholeTenant(actor), provider.id, location.id);
  if (!schedule || !covers(workingIntervals(weeklyOf(schedule), zoneClock(location.timezone), slot.start - dayMs, slot.end + dayMs), slot.start, slot.end)) {
    throw new AppError('slot_unavailable', `${when} is outside ${provider.name}'s working hours at ${location.name} (${location.timezone}).`);
  }
  if (overlapsAny(timeOffIntervals(schedule, slot.start, slot.end), slot.start, slot.end))
    throw new AppError('slot_unavailable', `${provider.name} is off at ${when}.`);
  const busy = (await busyIntervals(db, [provider.id], slot.start, slot.end)).get(provider.id) ?? [];
  if (
    busy.length > 0 ||
    overlapsAny(
      earlier.map((c) => ({ from: c.start, to: c.end })),
      slot.start,
      slot.end,
    )
  )
    throw new AppError('slot_unavailable', `${provider.name} is already booked at ${when}.`);
}

const orderEventData = (order: MarketplaceOrdersTable) => ({
  orderId: order.id,
  parentId: order.parent_id,
  petId: order.pet_id,
  locationId: order.location_id,
  status: order.status,
  total: order.total,
  amountRefunded: order.amount_refunded,
  currency: order.currency,
  invoiceId: order.invoice_id,
});

/**
 * POST /v1/orders in the route's write transaction: each line's provider and listing must be
 * bookable (422 provider_not_bookable), each slot free in the provider's calendar (409
 * slot_unavailable) — checked and taken in the same transaction, so parallel orders for one slot
 * cannot both win. Creates one booking per line (reserved), a finalized invoice at the pet's
 * location (tax by its rules, one line per order line, sourceId = the booking), and emits
 * booking.created and marketplace.booking_created per line.
 */
export async function createOrder(db: Executor, actor: Actor, input: CreateOrderInput, now: number, settings: MarketplaceSettings): Promise<OrderRecord> {
  const pet = await findPet(db, actor, input.petId);
  if (!pet) throw missingReference('petId', 'pet', input.petId);
  if (pet.owner_id !== input.parentId) throw validationFailed([{ field: 'parentId', message: `pet ${pet.id} belongs to another pet parent` }]);
  const location = await findLocation(db, wholeTenant(actor), pet.location_id);
  if (!location) throw missingReference('petId', 'pet', input.petId);

  const starts = input.lines.map((line, at) => {
    const start = parseInstant(line.startsAt);
    if (start === null) throw validationFailed([{ field: `lines[${at}].startsAt`, message: 'is not a date-time with Z or an offset' }]);
    if (start < now) throw validationFailed([{ field: `lines[${at}].startsAt`, message: 'is in the past' }]);
    if (start > now + maxLeadDays * dayMs) throw validationFailed([{ field: `lines[${at}].startsAt`, message: `is more than ${maxLeadDays} days ahead` }]);
    return start;
  });
  const found: BookableListing[] = [];
  for (const [at, line] of input.lines.entries()) found.push(await bookableLine(db, actor, line, at));
  const currency = found[0]!.listing.currency;
  found.forEach((f, at) => {
    if (f.listing.currency !== currency)
      throw validationFailed([
        { field: `lines[${at}].listingId`, message: `listing ${f.listing.id} is priced in ${f.listing.currency}; one order bills one currency (${currency})` },
      ]);
  });

  const earliest = now + settings.bookingMinNoticeMinutes * minuteMs;
  const claims = new Map<string, Claim[]>();
  const slots: Claim[] = [];
  for (const [at, f] of found.entries()) {
    const start = starts[at]!;
    if (start < earliest)
      throw new AppError(
        'slot_unavailable',
        `Bookings need at least ${settings.bookingMinNoticeMinutes} minutes' notice; the first bookable start is ${toIso(earliest)}.`,
      );
    const slot = { start, end: start + f.listing.durationMinutes * minuteMs };
    const earlier = claims.get(f.provider.id) ?? [];
    await claimSlot(db, actor, f, location, slot, earlier);
    claims.set(f.provider.id, [...earlier, slot]);
    slots.push(slot);
  }

  const at = toIso(now);
  const orderId = newId('ord');
  const bookingIds = found.map(() => newId('bkg'));
  const invoice = await createInvoice(
    db,
    wholeTenant(actor),
    {
      parentId: pet.owner_id,
      locationId: location.id,
      petId: pet.id,
      currency,
      lines: found.map((f, i) => ({
        description: `${f.listing.name} with ${f.provider.name} (${toIso(slots[i]!.start)})`.slice(0, 500),
        quantity: 1,
        unitAmount: f.listing.amount,
        sourceId: bookingIds[i]!,
      })),
      finalize: true,
    },
    now,
  );
  const bookings: BookingsTable[] = found.map((f, i) => ({
    id: bookingIds[i]!,
    tenant_id: actor.tenantId,
    kind: 'marketplace',
    status: 'reserved',
    pet_id: pet.id,
    parent_id: pet.owner_id,
    location_id: location.id,
    provider_id: f.provider.id,
    starts_at: toIso(slots[i]!.start),
    ends_at: toIso(slots[i]!.end),
    amount: f.listing.amount,
    currency,
    invoice_id: invoice.id,
    created_at: at,
    updated_at: at,
  }));
  const lines: MarketplaceOrderLinesTable[] = found.map((f, i) => {
    const rate = f.provider.commissionBps ?? settings.commissionBps;
    return {
      id: newId('oln'),
      tenant_id: actor.tenantId,
      order_id: orderId,
      position: i,
      provider_id: f.provider.id,
      listing_id: f.listing.id,
      listing_name: f.listing.name,
      category: f.listing.category,
      booking_id: bookingIds[i]!,
      starts_at: bookings[i]!.starts_at,
      ends_at: bookings[i]!.ends_at,
      amount: f.listing.amount,
      tax_rate_bps: invoice.lines[i]!.tax_rate_bps,
      currency,
      commission_bps: rate,
      commission_amount: taxOf(f.listing.amount, rate),
      amount_refunded: 0,
      tax_refunded: 0,
      completed_at: null,
    };
  });
  const order: MarketplaceOrdersTable = {
    id: orderId,
    tenant_id: actor.tenantId,
    location_id: location.id,
    parent_id: pet.owner_id,
    pet_id: pet.id,
    status: 'pending_payment',
    currency,
    subtotal: invoice.subtotal,
    tax: invoice.tax,
    total: invoice.total,
    amount_refunded: 0,
    invoice_id: invoice.id,
    created_at: at,
    updated_at: at,
    paid_at: null,
    cancelled_at: null,
  };
  for (const booking of bookings) await insertBooking(db, wholeTenant(actor), booking);
  await insertOrder(db, actor, order, lines);
  for (const [i, booking] of bookings.entries()) {
    const line = lines[i]!;
    await emitBookingCreated(db, booking, line.category, now);
    await emit(
      db,
      'marketplace.booking_created',
      {
        bookingId: booking.id,
        providerId: line.provider_id,
        petId: booking.pet_id,
        service: line.category,
        amount: booking.amount,
        currency,
        startsAt: booking.starts_at,
        orderId,
        listingId: line.listing_id,
      },
      actor.tenantId,
      now,
    );
  }
  await emit(db, 'order.created', orderEventData(order), actor.tenantId, now);
  const record: OrderRecord = { ...order, lines };
  // A zero total is paid on finalization (before the order existed for the hook to find).
  if (invoice.status === 'paid') return markOrderPaid(db, record, now);
  return record;
}

/**
 * pending_payment → paid when the order's invoice is paid (payments' invoice-paid hook, in the
 * paying transaction): bookings confirmed, one commission accrual per line, and the journal moves
 * the lines' revenue to what is owed to each provider and the group's commission.
 */
export async function markOrderPaid(db: Executor, order: OrderRecord, now: number): Promise<OrderRecord> {
  if (order.status !== 'pending_payment') return order;
  const at = toIso(now);
  const access: AccessFilter = { tenantId: order.tenant_id, locationIds: null };
  await updateOrder(db, access, order.id, { status: 'paid', paid_at: at, updated_at: at });
  for (const line of order.lines) await updateBooking(db, access, line.booking_id, { status: 'confirmed' }, at);
  await insertCommissionLines(
    db,
    access,
    order.lines.map((line) => commissionLine(line, 'sale', line.amount, line.commission_amount, null, now)),
  );
  await postPayables(
    db,
    order,
    `marketplace order ${order.id} paid: owed to providers and commission`,
    order.lines.map((l) => ({ providerId: l.provider_id, gross: l.amount, commission: l.commission_amount })),
    now,
  );
  const paid: OrderRecord = { ...order, status: 'paid', paid_at: at, updated_at: at };
  await emit(db, 'order.paid', orderEventData(paid), order.tenant_id, now);
  return paid;
}

/**
 * The journal lines moving `gross` of marketplace sales out of the location's revenue into each
 * provider's payable (gross − commission) and the location's commission. Negative amounts reverse it (refunds).
 */
function payableLines(locationId: string, parts: Array<{ providerId: string; gross: number; commission: number }>): JournalLine[] {
  const gross = parts.reduce((s, p) => s + p.gross, 0);
  const commission = parts.reduce((s, p) => s + p.commission, 0);
  return [
    { account: accounts.revenue(locationId), amount: gross },
    ...parts.map((p) => ({ account: accounts.providerPayable(p.providerId), amount: -(p.gross - p.commission) })),
    { account: accounts.commission(locationId), amount: -commission },
  ];
}

/** Posts the move of `parts` between revenue, the providers' payables and commission (one balanced entry for the order). */
async function postPayables(
  db: Executor,
  order: MarketplaceOrdersTable,
  memo: string,
  parts: Array<{ providerId: string; gross: number; commission: number }>,
  now: number,
): Promise<void> {
  await postJournal(
    db,
    {
      tenantId: order.tenant_id,
      locationId: order.location_id,
      sourceType: 'order',
      sourceId: order.id,
      currency: order.currency,
      memo,
      lines: payableLines(order.location_id, parts),
    },
    now,
  );
}

/** A commission line of an order line: its accrual (sale) or the negative line of a refund. */
function commissionLine(
  line: MarketplaceOrderLinesTable,
  kind: 'sale' | 'refund',
  gross: number,
  commission: number,
  refundId: string | null,
  now: number,
): MarketplaceCommissionLinesTable {
  return {
    id: newId('cml'),
    tenant_id: line.tenant_id,
    order_id: line.order_id,
    order_line_id: line.id,
    provider_id: line.provider_id,
    kind,
    refund_id: refundId,
    gross,
    rate_bps: line.commission_bps,
    commission,
    currency: line.currency,
    status: 'accrued',
    settlement_id: null,
    created_at: toIso(now),
  };
}

/** Cancels a line's booking unless it is already cancelled or completed: its slot is released (booking.cancelled). */
async function releaseBooking(db: Executor, actor: AccessFilter, line: MarketplaceOrderLinesTable, reason: string, now: number): Promise<void> {
  const booking = await findBooking(db, wholeTenant(actor), 'marketplace', line.booking_id);
  if (!booking || booking.status === 'cancelled' || booking.status === 'completed') return;
  await updateBooking(db, wholeTenant(actor), booking.id, { status: 'cancelled' }, toIso(now));
  await emitBookingCancelled(db, { ...booking, status: 'cancelled' }, line.category, 'cancelled', reason, now);
}

/** The invoice-paid hook payments calls: an order's invoice moves its order to paid; other invoices are not ours. */
export async function onOrderInvoicePaid(db: Executor, invoice: InvoicesTable, now: number): Promise<void> {
  const order = await findOrderByInvoice(db, invoice.tenant_id, invoice.id);
  if (order) await markOrderPaid(db, order, now);
}

/**
 * The refund hook payments calls once a §9 refund is written (POST /v1/refunds): a refund of a
 * paid order's payment is mapped to its lines in line order (recordOrderRefund). A refund while
 * the order awaits payment (part of its invoice paid, then paid back) is not the lines' money yet:
 * it stays a plain §9 refund, and is what lets such an order be cancelled. The order's own refund
 * route maps its refunds itself (initiator `marketplace`). Other payments are not ours.
 */
export async function onOrderPaymentRefunded(db: Executor, refund: RefundsTable, request: RefundRequest, now: number): Promise<void> {
  if (request.initiator === 'marketplace' || refund.invoice_id === null) return;
  const order = await findOrderByInvoice(db, refund.tenant_id, refund.invoice_id);
  if (!order || order.status === 'pending_payment' || order.status === 'cancelled') return;
  await recordOrderRefund(db, order, order.lines, refund.amount, [refund.id], refund.reason, now);
}

/** pending_payment → cancelled: voids the invoice (nothing may be paid on it), cancels every booking (slots released, booking.cancelled). */
export async function cancelOrder(db: Executor, actor: Actor, id: string, reason: string | undefined, now: number): Promise<OrderRecord> {
  const order = await getOrder(db, actor, id);
  assertTransition(orderMachine, 'Order', id, order.status, 'cancelled', 'be cancelled');
  await voidInvoice(db, wholeTenant(actor), order.invoice_id, now);
  const at = toIso(now);
  for (const line of order.lines) await releaseBooking(db, actor, line, reason?.trim() ?? 'order cancelled', now);
  const cancelled: OrderRecord = { ...order, status: 'cancelled', cancelled_at: at, updated_at: at };
  await updateOrder(db, actor, id, { status: 'cancelled', cancelled_at: at, updated_at: at });
  await emit(db, 'order.cancelled', orderEventData(cancelled), actor.tenantId, now);
  return cancelled;
}

/** Every line done: completed, or fully refunded (its booking cancelled). */
const allDone = (lines: readonly MarketplaceOrderLinesTable[]): boolean => lines.every((l) => l.completed_at !== null || l.amount_refunded === l.amount);

/**
 * The provider's word that a booking's service was done: confirmed → completed (the order must be
 * paid; allowed before startsAt). The order becomes fulfilled when every line is done. Emits
 * marketplace.booking_completed.
 */
export async function completeBooking(
  db: Executor,
  actor: Actor,
  bookingId: string,
  now: number,
): Promise<{ booking: BookingsTable; line: MarketplaceOrderLinesTable; order: OrderRecord }> {
  const line = foundOr404(await findLineOfBooking(db, actor, bookingId), 'marketplace booking', bookingId);
  const booking = foundOr404(await findBooking(db, actor, 'marketplace', bookingId), 'marketplace booking', bookingId);
  const current = booking.status as MarketplaceBookingStatus;
  if (current === 'reserved') {
    throw new AppError('invalid_state_transition', `Marketplace booking ${bookingId} is reserved: its order ${line.order_id} is not paid yet.`, {
      extensions: { currentStatus: current },
    });
  }
  assertTransition(marketplaceBookingMachine, 'Marketplace booking', bookingId, current, 'completed', 'be completed');
  const at = toIso(now);
  await updateBooking(db, actor, bookingId, { status: 'completed' }, at);
  // The line was found through its booking; its order may be billed at a location the caller does not cover.
  await updateOrderLine(db, wholeTenant(actor), line.id, { completed_at: at });
  const completedLine = { ...line, completed_at: at };
  let order = await getOrder(db, wholeTenant(actor), line.order_id);
  if (order.status === 'paid' && allDone(order.lines)) {
    await updateOrder(db, wholeTenant(actor), order.id, { status: 'fulfilled', updated_at: at });
    order = { ...order, status: 'fulfilled', updated_at: at };
  }
  await emit(
    db,
    'marketplace.booking_completed',
    { bookingId, orderId: line.order_id, providerId: line.provider_id, petId: booking.pet_id, completedAt: at },
    actor.tenantId,
    now,
  );
  return { booking: { ...booking, status: 'completed', updated_at: at }, line: completedLine, order };
}

/** The lines a refund request names and the money it pays back on them (gross plus tax share), or 400/422. */
function refundRequest(order: OrderRecord, input: RefundOrderInput): { lines: MarketplaceOrderLinesTable[]; money: number } {
  let targets = order.lines;
  if (input.lineIds !== undefined) {
    targets = input.lineIds.map((lineId, at) => {
      const line = order.lines.find((l) => l.id === lineId);
      if (!line) throw validationFailed([{ field: `lineIds[${at}]`, message: `order ${order.id} has no line ${lineId}` }]);
      return line;
    });
  }
  if (input.amount !== undefined) {
    if (input.lineIds === undefined || targets.length !== 1)
      throw validationFailed([{ field: 'amount', message: 'a partial amount needs exactly one line in lineIds' }]);
    const line = targets[0]!;
    const left = line.amount - line.amount_refunded;
    if (input.amount > left) {
      throw new AppError('refund_exceeds_payment', `Order line ${line.id} has ${left} ${line.currency} left to refund; ${input.amount} is more.`, {
        extensions: { amountRefundable: left },
      });
    }
    return { lines: targets, money: moneyForGross(line, input.amount) };
  }
  const money = targets.reduce((sum, line) => sum + moneyLeft(line), 0);
  if (money === 0)
    throw new AppError('refund_exceeds_payment', `Order ${order.id} has nothing left to refund on ${input.lineIds ? 'those lines' : 'any line'}.`, {
      extensions: { amountRefundable: 0 },
    });
  return { lines: targets, money };
}

/**
 * POST /v1/orders/{id}/refund: refunds lines of a paid (or fulfilled) order — each named line for
 * what is left of it, or `amount` of gross of the one line named, tax share included — through §9
 * refunds of the order's payments, oldest first, then maps them with recordOrderRefund.
 */
export async function refundOrder(db: Executor, actor: Actor, id: string, input: RefundOrderInput, now: number): Promise<OrderRecord> {
  const order = await getOrder(db, actor, id);
  // paid, fulfilled and partially_refunded may move on to (partially_)refunded; the machine names the rest.
  assertTransition(orderMachine, 'Order', id, order.status, 'refunded', 'be refunded');
  const { lines, money } = refundRequest(order, input);

  const access = wholeTenant(actor);
  const refundIds: string[] = [];
  let left = money;
  for (const payment of await refundablePaymentsOf(db, actor.tenantId, order.invoice_id)) {
    if (left === 0) break;
    const part = Math.min(left, payment.amount - payment.amount_refunded);
    const refund = await createRefund(db, access, { paymentId: payment.id, amount: part, ...(input.reason ? { reason: input.reason } : {}) }, now, {
      initiator: 'marketplace',
    });
    refundIds.push(refund.id);
    left -= part;
  }
  if (left > 0)
    throw new AppError('refund_exceeds_payment', `Order ${id}'s payments have ${money - left} ${order.currency} left to refund; ${money} is asked.`, {
      extensions: { amountRefundable: money - left },
    });
  return recordOrderRefund(db, order, lines, money, refundIds, input.reason?.trim() ?? null, now);
}

/**
 * Maps `money` that §9 refunds (`refundIds`, already written) paid back on an order to its lines:
 * allocated over `from` in the order given, each line up to what is left of it (order-refund-
 * allocation.ts, the one rule for both refund routes). Each line with gross refunded posts a
 * negative commission line and moves that gross back out of provider_payable and commission; a line
 * refunded in full before completion has its booking cancelled (its slot is released). The order
 * becomes partially_refunded, or refunded once all of it is paid back; emits order.refunded.
 */
async function recordOrderRefund(
  db: Executor,
  order: OrderRecord,
  from: readonly MarketplaceOrderLinesTable[],
  money: number,
  refundIds: string[],
  reason: string | null,
  now: number,
): Promise<OrderRecord> {
  const { shares, unallocated } = allocateRefund(from, money);
  if (unallocated > 0) {
    throw new AppError(
      'refund_exceeds_payment',
      `Order ${order.id} has ${money - unallocated} ${order.currency} left to refund on its lines; ${money} is more.`,
      { extensions: { amountRefundable: money - unallocated } },
    );
  }
  const amountRefunded = order.amount_refunded + money;
  const status: OrderStatus = amountRefunded === order.total ? 'refunded' : 'partially_refunded';
  assertTransition(orderMachine, 'Order', order.id, order.status, status, 'be refunded');

  const access: AccessFilter = { tenantId: order.tenant_id, locationIds: null };
  const lines = order.lines.map((l) => ({ ...l }));
  const negatives: MarketplaceCommissionLinesTable[] = [];
  for (const share of shares) {
    const line = lines.find((l) => l.id === share.line.id)!;
    line.amount_refunded += share.gross;
    line.tax_refunded += share.tax;
    await updateOrderLine(db, access, line.id, { amount_refunded: line.amount_refunded, tax_refunded: line.tax_refunded });
    // Money that only completes a tax unit moves no gross, hence no commission.
    if (share.gross > 0) negatives.push(commissionLine(line, 'refund', -share.gross, -share.commission, refundIds[0]!, now));
    if (line.amount_refunded === line.amount && line.completed_at === null) await releaseBooking(db, access, line, reason ?? 'refunded', now);
  }
  await insertCommissionLines(db, access, negatives);
  const moved = shares.filter((share) => share.gross > 0);
  if (moved.length > 0) {
    await postPayables(
      db,
      order,
      `marketplace order ${order.id}: refund ${refundIds.join(', ')} taken back from providers and commission`,
      moved.map((share) => ({ providerId: share.line.provider_id, gross: -share.gross, commission: -share.commission })),
      now,
    );
  }
  await postRefundTaxByLine(db, order, shares, money, refundIds, now);
  const at = toIso(now);
  await updateOrder(db, access, order.id, { amount_refunded: amountRefunded, status, updated_at: at });
  const refunded: OrderRecord = { ...order, lines, amount_refunded: amountRefunded, status, updated_at: at };
  await emit(db, 'order.refunded', { ...orderEventData(refunded), refundIds, amount: money }, order.tenant_id, now);
  return refunded;
}

/**
 * §9 refunds credit the invoice's revenue and tax back in the invoice's overall proportion (they
 * know no lines); the order pays back each line's own tax share (DESIGN §7: tax is per line). The
 * two roundings can differ by a unit or so on partial refunds: the difference for this `money`
 * (already applied to the invoice) moves between tax_payable and revenue in one balanced entry,
 * so tax_payable keeps exactly the tax the lines still carry (none when they agree; a full refund
 * always does).
 */
async function postRefundTaxByLine(
  db: Executor,
  order: OrderRecord,
  shares: readonly LineRefund[],
  money: number,
  refundIds: readonly string[],
  now: number,
): Promise<void> {
  const invoice = await getInvoice(db, { tenantId: order.tenant_id, locationIds: null }, order.invoice_id);
  const credited = creditedSoFar(invoice, invoice.amount_refunded).tax - creditedSoFar(invoice, invoice.amount_refunded - money).tax;
  const fix = shares.reduce((sum, share) => sum + share.tax, 0) - credited;
  if (fix === 0) return;
  const taxAccount = accounts.taxPayable(order.location_id);
  await postJournal(
    db,
    {
      tenantId: order.tenant_id,
      locationId: order.location_id,
      sourceType: 'order',
      sourceId: order.id,
      currency: order.currency,
      memo: `marketplace order ${order.id}: tax of refund ${refundIds.join(', ')} by line (the invoice's proportional split differs by ${Math.abs(fix)})`,
      lines: [
        { account: taxAccount, amount: fix },
        { account: accounts.revenue(order.location_id), amount: -fix },
      ],
    },
    now,
  );
}

/** A marketplace booking with its order line (GET-style read used by the complete route's answer). */
export async function getMarketplaceBooking(db: Executor, actor: AccessFilter, bookingId: string) {
  const line = foundOr404(await findLineOfBooking(db, actor, bookingId), 'marketplace booking', bookingId);
  const booking = foundOr404(await findBooking(db, actor, 'marketplace', bookingId), 'marketplace booking', bookingId);
  return { booking, line };
}
