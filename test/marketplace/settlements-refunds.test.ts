import test from 'ava';
import { useTestApp } from '../helpers/test-app.js';
import { eventsWith } from '../appointments/scheduling-support.js';
import { complete, expectStatus, market, mondayAt, order, payOrder, settle, today } from './orders-support.js';

const t = useTestApp(test);

const day = 86_400_000;

test.serial(
  'partial refund of a line: §9 refund with its tax share, a negative commission line, partially_refunded; a refund after the payout is a negative line on the next statement',
  async (tt) => {
    const token = await t.adminToken();
    const m = await market(t, { taxRateBps: 1000, amount: 10_000, commissionBps: 2000 });
    const o = expectStatus(await order(t, m, [mondayAt(t, 10), mondayAt(t, 11)]), 201, 'order').body;
    tt.is(o.lines[0].commissionAmount, 2_000); // the provider's own 20 %
    tt.is(o.total, 22_000);
    const refuseUnpaid = await t.request('POST', `/v1/orders/${o.id}/refund`, { token, body: {} });
    tt.is(refuseUnpaid.status, 409);
    tt.is(refuseUnpaid.body.currentStatus, 'pending_payment');
    await payOrder(t, o);

    // 2,500 of line 0 (gross) → 2,750 paid back with its 10 % tax.
    const partial = expectStatus(
      await t.request('POST', `/v1/orders/${o.id}/refund`, { token, body: { lineIds: [o.lines[0].id], amount: 2_500, reason: 'short walk' } }),
      200,
      'refund',
    );
    tt.is(partial.body.status, 'partially_refunded');
    const [event] = await eventsWith(t, 'order.refunded', 'orderId', o.id);
    tt.is(event?.data.amount, 2_750);
    const refunds = await t.request('GET', `/v1/refunds?invoiceId=${o.invoiceId}`, { token });
    tt.deepEqual(
      refunds.body.data.map((r: { amount: number }) => r.amount),
      [2_750],
    );
    const negative = (await t.request('GET', `/v1/commissions?providerId=${m.walker.id}`, { token })).body.data.find(
      (c: { kind: string }) => c.kind === 'refund',
    );
    tt.like(negative, { gross: -2_500, commission: -500, rateBps: 2000, status: 'accrued' });
    tt.is(
      (await t.request('POST', `/v1/orders/${o.id}/refund`, { token, body: { lineIds: [o.lines[0].id], amount: 7_501 } })).body.code,
      'refund_exceeds_payment',
    );
    tt.is((await t.request('POST', `/v1/orders/${o.id}/refund`, { token, body: { amount: 5 } })).status, 400);

    // Line 0 completed and paid out: 10,000 − 2,500 refunded − (2,000 − 500) commission = 6,000.
    expectStatus(await complete(t, o.lines[0].bookingId), 200, 'complete');
    const first = expectStatus(await settle(t, { periodStart: today(t), periodEnd: today(t) }), 201, 'settle').body.data;
    const mine = first.find((s: { providerId: string }) => s.providerId === m.walker.id);
    tt.like(mine, { gross: 10_000, refunds: 2_500, commission: 1_500, net: 6_000 });
    expectStatus(await t.request('POST', `/v1/settlements/${mine.id}/mark-paid`, { token }), 200, 'mark paid');

    // After the payout: the rest of line 0 is refunded; line 1 is completed.
    expectStatus(await t.request('POST', `/v1/orders/${o.id}/refund`, { token, body: { lineIds: [o.lines[0].id] } }), 200, 'refund rest');
    expectStatus(await complete(t, o.lines[1].bookingId), 200, 'complete 2');
    // A period overlapping the paid one: the paid statement is unchanged, the new one carries the negative line.
    const next = expectStatus(
      await settle(t, { periodStart: new Date(t.clock.now() - day).toISOString().slice(0, 10), periodEnd: today(t), providerId: m.walker.id }),
      201,
      'settle next',
    ).body.data;
    tt.is(next.length, 1);
    tt.like(next[0], { gross: 10_000, refunds: 7_500, commission: 2_000 - 1_500, net: 10_000 - 7_500 - 500 });
    tt.true(next[0].lines.some((l: { kind: string; gross: number }) => l.kind === 'refund' && l.gross === -7_500));
    const paid = await t.request('GET', `/v1/settlements/${mine.id}`, { token });
    tt.like(paid.body, { status: 'paid', gross: 10_000, refunds: 2_500, net: 6_000 });

    // Everything refunded: the order is refunded and its money is all back.
    const rest = expectStatus(await t.request('POST', `/v1/orders/${o.id}/refund`, { token, body: {} }), 200, 'refund all');
    tt.is(rest.body.status, 'refunded');
    const invoice = await t.request('GET', `/v1/invoices/${o.invoiceId}`, { token });
    tt.is(invoice.body.amountRefunded, invoice.body.amountPaid);
  },
);

test.serial('a line refunded in full before completion releases its slot and never reaches a statement alone', async (tt) => {
  const token = await t.adminToken();
  const m = await market(t, { amount: 3_000 });
  const at = mondayAt(t, 13, 0, 2);
  const o = expectStatus(await order(t, m, at), 201, 'order').body;
  await payOrder(t, o);
  expectStatus(await t.request('POST', `/v1/orders/${o.id}/refund`, { token, body: {} }), 200, 'refund');
  tt.is((await eventsWith(t, 'booking.cancelled', 'bookingId', o.lines[0].bookingId)).length, 1);
  expectStatus(await order(t, m, at), 201, 'the slot is free again');
  const statements = await settle(t, { periodStart: today(t), periodEnd: today(t), providerId: m.walker.id });
  tt.is(statements.status, 200);
  tt.deepEqual(statements.body.data, []);
  tt.is((await complete(t, o.lines[0].bookingId)).status, 409);
});

test.serial('20 parallel settlement requests for one period create one statement per provider', async (tt) => {
  const token = await t.adminToken();
  const m = await market(t, { amount: 1_000 });
  const o = expectStatus(await order(t, m, mondayAt(t, 14, 0, 3)), 201, 'order').body;
  await payOrder(t, o);
  expectStatus(await complete(t, o.lines[0].bookingId), 200, 'complete');
  const period = { periodStart: '2026-01-01', periodEnd: today(t), providerId: m.walker.id };
  const results = await Promise.all(Array.from({ length: 20 }, () => settle(t, period, token)));
  tt.is(results.filter((r) => r.status === 201).length, 1);
  tt.is(results.filter((r) => r.status === 200).length, 19);
  const ids = new Set(results.flatMap((r) => r.body.data.map((s: { id: string }) => s.id)));
  tt.is(ids.size, 1);
  tt.is((await settle(t, { ...period, periodEnd: '2999-01-01' })).status, 400);
  tt.is((await settle(t, { periodStart: today(t), periodEnd: '2026-01-01' })).status, 400);
});

test.serial('20 parallel partial refunds of one line never pay back more than the line', async (tt) => {
  const token = await t.adminToken();
  const m = await market(t, { amount: 10_000, taxRateBps: 0 });
  const o = expectStatus(await order(t, m, mondayAt(t, 15, 0, 3)), 201, 'order').body;
  await payOrder(t, o);
  const results = await Promise.all(
    Array.from({ length: 20 }, () => t.request('POST', `/v1/orders/${o.id}/refund`, { token, body: { lineIds: [o.lines[0].id], amount: 1_000 } })),
  );
  tt.is(results.filter((r) => r.status === 200).length, 10);
  tt.true(results.filter((r) => r.status !== 200).every((r) => r.status === 409 || r.body.code === 'refund_exceeds_payment'));
  const refunds = await t.request('GET', `/v1/refunds?invoiceId=${o.invoiceId}&limit=100`, { token });
  tt.is(
    refunds.body.data.reduce((s: number, r: { amount: number }) => s + r.amount, 0),
    10_000,
  );
  tt.is((await t.request('GET', `/v1/orders/${o.id}`, { token })).body.status, 'refunded');
  const lines = (await t.request('GET', `/v1/commissions?providerId=${m.walker.id}&limit=100`, { token })).body.data;
  tt.is(
    lines.filter((l: { kind: string }) => l.kind === 'refund').reduce((s: number, l: { commission: number }) => s + l.commission, 0),
    -1_500,
  );
});
