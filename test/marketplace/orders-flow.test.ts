import test from 'ava';
import { useTestApp } from '../helpers/test-app.js';
import { eventsWith } from '../appointments/scheduling-support.js';
import { complete, expectStatus, market, mondayAt, order, orderKeys, orderLineKeys, payOrder, settle, today } from './orders-support.js';

const t = useTestApp(test);

test('order → pay → complete → settle → mark-paid, with the §12 shape, commissions, events and a balanced journal', async (tt) => {
  const m = await market(t, { taxRateBps: 825, amount: 2_000 });
  const starts = [mondayAt(t, 10), mondayAt(t, 11)];
  const created = expectStatus(await order(t, m, starts), 201, 'order');
  const o = created.body;
  tt.deepEqual(Object.keys(o).sort(), orderKeys);
  tt.deepEqual(Object.keys(o.lines[0]).sort(), orderLineKeys);
  tt.is(o.status, 'pending_payment');
  tt.is(o.subtotal, 4_000);
  tt.is(o.total, 4_000 + 2 * 165); // 8.25 % of 2,000 = 165 per line
  tt.is(o.lines[0].commissionAmount, 300); // default 1500 bps
  for (const line of o.lines) {
    tt.is((await eventsWith(t, 'booking.created', 'bookingId', line.bookingId)).length, 1);
    const [mkt] = await eventsWith(t, 'marketplace.booking_created', 'bookingId', line.bookingId);
    tt.is(mkt?.data.providerId, m.walker.id);
  }
  const invoice = await t.request('GET', `/v1/invoices/${o.invoiceId}`, { token: await t.adminToken() });
  tt.is(invoice.body.status, 'open');
  tt.deepEqual(
    invoice.body.lines.map((l: { sourceId: string }) => l.sourceId),
    o.lines.map((l: { bookingId: string }) => l.bookingId),
  );

  // Unpaid: completion refused.
  const early = await complete(t, o.lines[0].bookingId);
  tt.is(early.status, 409);
  tt.is(early.body.code, 'invalid_state_transition');
  tt.is(early.body.currentStatus, 'reserved');

  await payOrder(t, o);
  const paid = await t.request('GET', `/v1/orders/${o.id}`, { token: await t.adminToken() });
  tt.is(paid.body.status, 'paid');
  tt.is((await eventsWith(t, 'order.paid', 'orderId', o.id)).length, 1);
  const commissions = await t.request('GET', `/v1/commissions?providerId=${m.walker.id}`, { token: await t.adminToken() });
  tt.is(commissions.status, 200);
  tt.is(commissions.body.data.length, 2);
  tt.true(
    commissions.body.data.every(
      (c: { status: string; gross: number; commission: number; rateBps: number }) =>
        c.status === 'accrued' && c.gross === 2_000 && c.commission === 300 && c.rateBps === 1500,
    ),
  );

  // Completion is allowed before startsAt once paid; every line done → fulfilled.
  const done = expectStatus(await complete(t, o.lines[0].bookingId), 200, 'complete');
  tt.is(done.body.status, 'completed');
  tt.is(done.body.kind, 'marketplace');
  tt.is((await complete(t, o.lines[0].bookingId)).status, 409);
  expectStatus(await complete(t, o.lines[1].bookingId), 200, 'complete 2');
  tt.is((await t.request('GET', `/v1/orders/${o.id}`, { token: await t.adminToken() })).body.status, 'fulfilled');
  tt.is((await eventsWith(t, 'marketplace.booking_completed', 'orderId', o.id)).length, 2);

  // The payout: 4,000 gross − 600 commission.
  const period = { periodStart: today(t), periodEnd: today(t), providerId: m.walker.id };
  const first = expectStatus(await settle(t, period), 201, 'settle');
  tt.is(first.body.data.length, 1);
  const statement = first.body.data[0];
  tt.like(statement, { kind: 'provider_payout', providerId: m.walker.id, gross: 4_000, refunds: 0, commission: 600, net: 3_400, status: 'pending' });
  tt.is(statement.lines.length, 2);
  const again = expectStatus(await settle(t, period), 200, 'settle again');
  tt.deepEqual(again.body, first.body);
  const settled = await t.request('GET', `/v1/commissions?providerId=${m.walker.id}&status=settled`, { token: await t.adminToken() });
  tt.is(settled.body.data.length, 2);

  const markPaid = expectStatus(await t.request('POST', `/v1/settlements/${statement.id}/mark-paid`, { token: await t.adminToken() }), 200, 'mark paid');
  tt.is(markPaid.body.status, 'paid');
  tt.truthy(markPaid.body.paidAt);
  const twice = await t.request('POST', `/v1/settlements/${statement.id}/mark-paid`, { token: await t.adminToken() });
  tt.is(twice.status, 409);
  tt.is(twice.body.currentStatus, 'paid');
  const withLines = await t.request('GET', `/v1/marketplace/settlements/${statement.id}`, { token: await t.adminToken() });
  tt.like(withLines.body, { status: 'paid', gross: 4_000, commission: 600, net: 3_400 });
  tt.is(withLines.body.lines.length, 2);
  const booking = await t.request('GET', `/v1/marketplace/bookings/${o.lines[1].bookingId}`, { token: await t.adminToken() });
  tt.like(booking.body, { status: 'completed', orderId: o.id, providerId: m.walker.id, service: 'walking' });
  const listed = await t.request('GET', `/v1/settlements/${statement.id}`, { token: await t.adminToken() });
  tt.like(listed.body, { kind: 'provider_payout', status: 'paid', net: 3_400 });

  // The journal: the provider is owed 3,400 at payment and paid 3,400 out: its payable nets to 0.
  const ledger = await t.request('GET', `/v1/ledger/entries?account=${encodeURIComponent(`provider_payable:${m.walker.id}`)}`, { token: await t.adminToken() });
  tt.is(ledger.status, 200);
  const payable = ledger.body.data
    .flatMap((e: { lines: Array<{ account: string; amount: number }> }) => e.lines)
    .filter((l: { account: string }) => l.account === `provider_payable:${m.walker.id}`);
  tt.is(
    payable.reduce((s: number, l: { amount: number }) => s + l.amount, 0),
    0,
  );
  for (const entry of ledger.body.data)
    tt.is(
      entry.lines.reduce((s: number, l: { amount: number }) => s + l.amount, 0),
      0,
    );

  // A paid statement cannot be touched, even in SQL.
  const db = t.stores.get('live').db;
  await tt.throwsAsync(db.updateTable('settlements').set({ net: 0 }).where('id', '=', statement.id).execute(), { message: /immutable/ });
  await tt.throwsAsync(
    db.updateTable('marketplace_commission_lines').set({ status: 'accrued', settlement_id: null }).where('settlement_id', '=', statement.id).execute(),
    { message: /money fact/ },
  );
});

test('cancelling an unpaid order voids its invoice and releases the slots; a paid one cannot be cancelled', async (tt) => {
  const m = await market(t);
  const at = mondayAt(t, 12);
  const o = expectStatus(await order(t, m, at), 201, 'order').body;
  tt.is((await order(t, m, at)).status, 409);
  const cancelled = expectStatus(
    await t.request('POST', `/v1/orders/${o.id}/cancel`, { token: await t.adminToken(), body: { reason: 'changed plans' } }),
    200,
    'cancel',
  );
  tt.is(cancelled.body.status, 'cancelled');
  tt.is((await t.request('GET', `/v1/invoices/${o.invoiceId}`, { token: await t.adminToken() })).body.status, 'void');
  const [event] = await eventsWith(t, 'booking.cancelled', 'bookingId', o.lines[0].bookingId);
  tt.is(event?.data.kind, 'marketplace');
  const again = await t.request('POST', `/v1/orders/${o.id}/cancel`, { token: await t.adminToken(), body: {} });
  tt.is(again.status, 409);
  tt.is(again.body.currentStatus, 'cancelled');

  const second = expectStatus(await order(t, m, at), 201, 'the released slot');
  await payOrder(t, second.body);
  const refused = await t.request('POST', `/v1/orders/${second.body.id}/cancel`, { token: await t.adminToken(), body: {} });
  tt.is(refused.status, 409);
  tt.is(refused.body.currentStatus, 'paid');
});

test('20 parallel orders for one provider slot: exactly one wins', async (tt) => {
  const m = await market(t);
  const at = mondayAt(t, 14, 0, 2);
  const token = await t.adminToken();
  const results = await Promise.all(Array.from({ length: 20 }, () => order(t, m, at, token)));
  tt.is(results.filter((r) => r.status === 201).length, 1);
  tt.is(results.filter((r) => r.status === 409 && r.body.code === 'slot_unavailable').length, 19);
  const bookings = await t.stores
    .get('live')
    .db.selectFrom('bookings')
    .selectAll()
    .where('provider_id', '=', m.walker.id)
    .where('kind', '=', 'marketplace')
    .execute();
  tt.is(bookings.length, 1);
});

test('marketplace bookings and appointments block each other; overlapping lines of one order conflict', async (tt) => {
  const m = await market(t);
  const at = mondayAt(t, 10, 0, 3);
  expectStatus(await order(t, m, at), 201, 'order');
  // The walker's appointment at the same time is refused: one busy time per provider.
  const appointment = await t.request('POST', '/v1/appointments', {
    token: await t.adminToken(),
    body: { petId: m.pet.id, providerId: m.walker.id, locationId: m.location.id, type: 'vet_consultation', startsAt: at },
  });
  tt.is(appointment.status, 409);
  tt.is(appointment.body.code, 'slot_unavailable');
  const overlapping = await order(t, m, [mondayAt(t, 11, 0, 3), mondayAt(t, 11, 15, 3)]);
  tt.is(overlapping.status, 409);
  tt.is(overlapping.body.code, 'slot_unavailable');
});
