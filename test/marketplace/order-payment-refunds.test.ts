import test, { type ExecutionContext } from 'ava';
import { useTestApp } from '../helpers/test-app.js';
import { eventsWith } from '../appointments/scheduling-support.js';
import { assertBooksBalance } from '../payments/payments-support.js';
import { expectStatus, market, mondayAt, order, payOrder, type Market } from './orders-support.js';

/**
 * POST /v1/refunds of a marketplace order's payment (DESIGN §12, issue 24.3): it works, is
 * allocated to the order's lines in line order (each up to its amount plus its tax share), reverses
 * each line's commission in proportion, and moves the order to partially_refunded / refunded — by
 * the same allocation as POST /v1/orders/{id}/refund.
 */

let token: string;
// A few hundred calls per test: the rate limit is not what these tests are about.
const t = useTestApp(test, { jobs: false, config: { rateLimitPerMinute: 100_000 } });
test.before(async () => {
  token = await t.adminToken();
});

const db = () => t.stores.get('live').db;

/** The journal balance of one account (signed: debit positive). */
async function balance(account: string): Promise<number> {
  const row = await db()
    .selectFrom('ledger_lines')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount'), eb.lit(0)).as('sum'))
    .where('account', '=', account)
    .executeTakeFirstOrThrow();
  return Number(row.sum);
}

/** provider_payable, commission, tax_payable and revenue of a market (one location, one walker). */
async function books(m: Market) {
  return {
    providerPayable: await balance(`provider_payable:${m.walker.id}`),
    commission: await balance(`commission:${m.location.id}`),
    taxPayable: await balance(`tax_payable:${m.location.id}`),
    revenue: await balance(`revenue:${m.location.id}`),
  };
}

const lineRows = (orderId: string) =>
  db()
    .selectFrom('marketplace_order_lines')
    .select(['id', 'position', 'amount', 'amount_refunded', 'tax_refunded'])
    .where('order_id', '=', orderId)
    .orderBy('position')
    .execute();

const refundCommissionLines = (orderId: string) =>
  db().selectFrom('marketplace_commission_lines').selectAll().where('order_id', '=', orderId).where('kind', '=', 'refund').orderBy('id').execute();

/** Sum of gross and commission of the order's refund commission lines, per order line. */
async function reversedByLine(orderId: string): Promise<Map<string, { gross: number; commission: number }>> {
  const sums = new Map<string, { gross: number; commission: number }>();
  for (const l of await refundCommissionLines(orderId)) {
    const s = sums.get(l.order_line_id) ?? { gross: 0, commission: 0 };
    sums.set(l.order_line_id, { gross: s.gross + l.gross, commission: s.commission + l.commission });
  }
  return sums;
}

const refund = (body: Record<string, unknown>, idempotencyKey?: string) =>
  t.request('POST', '/v1/refunds', { token, body, ...(idempotencyKey ? { idempotencyKey } : {}) });

async function paidOrder(tt: ExecutionContext, m: Market, starts: string[]) {
  const o = expectStatus(await order(t, m, starts, token), 201, 'order').body;
  const payment = await payOrder(t, o, token);
  tt.is((await t.request('GET', `/v1/orders/${o.id}`, { token })).body.status, 'paid');
  return { o, payment };
}

test.serial(
  'POST /v1/refunds of a paid order’s payment is allocated to its lines in line order with their tax shares, reverses commission in proportion, and refunds the order',
  async (tt) => {
    const m = await market(t, { taxRateBps: 1000, amount: 10_000, commissionBps: 2000 });
    const { o, payment } = await paidOrder(tt, m, [mondayAt(t, 10), mondayAt(t, 11)]);
    tt.is(o.total, 22_000); // two lines of 10,000 + 1,000 tax, commission 2,000 each

    // 13,755: line 0 in full (11,000), then 2,755 of line 1: 2,504 gross + 251 tax (round-half-up of 250.4 is 250: the spare unit is tax).
    const first = expectStatus(await refund({ paymentId: payment.id, amount: 13_755, reason: 'rained off' }), 201, 'refund');
    tt.like(first.body, { paymentId: payment.id, invoiceId: o.invoiceId, amount: 13_755, status: 'succeeded', reason: 'rained off' });
    tt.deepEqual(
      (await lineRows(o.id)).map((l) => [l.amount_refunded, l.tax_refunded]),
      [
        [10_000, 1_000],
        [2_504, 251],
      ],
    );
    const [line0, line1] = o.lines;
    const reversed = await reversedByLine(o.id);
    tt.deepEqual(reversed.get(line0.id), { gross: -10_000, commission: -2_000 }); // a fully refunded line reverses all of it
    tt.deepEqual(reversed.get(line1.id), { gross: -2_504, commission: -501 }); // round-half-up(2,504 × 20 %) = 501
    tt.true((await refundCommissionLines(o.id)).every((l) => l.refund_id === first.body.id && l.status === 'accrued'));
    tt.like((await t.request('GET', `/v1/orders/${o.id}`, { token })).body, { status: 'partially_refunded' });
    const [created] = await eventsWith(t, 'refund.created', 'refundId', first.body.id);
    tt.like(created?.data, { paymentId: payment.id, invoiceId: o.invoiceId, amount: 13_755, currency: 'USD' });
    const refundedEvents = await eventsWith(t, 'order.refunded', 'orderId', o.id);
    tt.is(refundedEvents.length, 1);
    tt.like(refundedEvents[0]?.data, { status: 'partially_refunded', amount: 13_755, amountRefunded: 13_755, refundIds: [first.body.id] });
    // Line 0 was paid back in full before it was done: its slot is free again.
    tt.is((await eventsWith(t, 'booking.cancelled', 'bookingId', line0.bookingId)).length, 1);
    tt.is((await eventsWith(t, 'booking.cancelled', 'bookingId', line1.bookingId)).length, 0);
    // The books: line 1 still owes its provider 7,496 − 1,499 and carries 1,000 − 251 of tax; revenue holds nothing of a paid order.
    tt.deepEqual(await books(m), { providerPayable: -5_997, commission: -1_499, taxPayable: -749, revenue: 0 });

    // The rest (amount defaults to what is left of the payment): the order is refunded and every account is back at 0.
    const rest = expectStatus(await refund({ paymentId: payment.id }), 201, 'refund the rest');
    tt.is(rest.body.amount, 8_245);
    tt.deepEqual(
      (await lineRows(o.id)).map((l) => [l.amount_refunded, l.tax_refunded]),
      [
        [10_000, 1_000],
        [10_000, 1_000],
      ],
    );
    tt.deepEqual((await reversedByLine(o.id)).get(line1.id), { gross: -10_000, commission: -2_000 });
    tt.like((await t.request('GET', `/v1/orders/${o.id}`, { token })).body, { status: 'refunded' });
    tt.deepEqual(await books(m), { providerPayable: 0, commission: 0, taxPayable: 0, revenue: 0 });
    const again = await refund({ paymentId: payment.id, amount: 1 });
    tt.is(again.status, 422);
    tt.is(again.body.code, 'refund_exceeds_payment');
    await assertBooksBalance(tt, t);
  },
);

test.serial(
  '25 parallel partial refunds of one order’s payment: their sum never exceeds the payment, and the lines, commission lines and journal agree with what was accepted',
  async (tt) => {
    const m = await market(t, { taxRateBps: 825, amount: 10_000, commissionBps: 1500 });
    const { o, payment } = await paidOrder(tt, m, [mondayAt(t, 10, 0, 2), mondayAt(t, 11, 0, 2), mondayAt(t, 12, 0, 2)]);
    tt.is(o.total, 32_475); // 3 × (10,000 + 825)

    const results = await Promise.all(Array.from({ length: 25 }, () => refund({ paymentId: payment.id, amount: 1_400 })));
    const accepted = results.filter((r) => r.status === 201);
    // 23 × 1,400 = 32,200 fit; with 275 left, the other two are refused whole.
    tt.is(accepted.length, 23);
    tt.true(
      results.filter((r) => r.status !== 201).every((r) => r.status === 422 && r.body.code === 'refund_exceeds_payment'),
      results.map((r) => r.status).join(),
    );

    const refunds = await db().selectFrom('refunds').select(['id', 'amount']).where('payment_id', '=', payment.id).execute();
    tt.is(refunds.length, 23);
    const refunded = refunds.reduce((s, r) => s + r.amount, 0);
    tt.is(refunded, 32_200);
    tt.true(refunded <= o.total); // the payment paid the whole order
    tt.like((await t.request('GET', `/v1/payments/${payment.id}`, { token })).body, { amount: 32_475, amountRefunded: 32_200 });
    tt.like((await t.request('GET', `/v1/orders/${o.id}`, { token })).body, { status: 'partially_refunded' });
    const orderRow = await db().selectFrom('marketplace_orders').select('amount_refunded').where('id', '=', o.id).executeTakeFirstOrThrow();
    tt.is(orderRow.amount_refunded, 32_200);

    // In line order: lines 0 and 1 in full, then 10,550 of line 2 = 9,746 gross + 804 tax (round-half-up(9,746 × 8.25 %) = 804).
    const lines = await lineRows(o.id);
    tt.deepEqual(
      lines.map((l) => [l.amount_refunded, l.tax_refunded]),
      [
        [10_000, 825],
        [10_000, 825],
        [9_746, 804],
      ],
    );
    tt.is(
      lines.reduce((s, l) => s + l.amount_refunded + l.tax_refunded, 0),
      refunded,
    );

    // Commission lines: each line's reversals add up to round-half-up(gross refunded × 15 %), all of it for a full line.
    const reversed = await reversedByLine(o.id);
    tt.deepEqual(
      lines.map((l) => reversed.get(l.id)),
      [
        { gross: -10_000, commission: -1_500 },
        { gross: -10_000, commission: -1_500 },
        { gross: -9_746, commission: -1_462 },
      ],
    );
    const refundIds = new Set(refunds.map((r) => r.id));
    tt.true((await refundCommissionLines(o.id)).every((l) => refundIds.has(l.refund_id!) && l.gross < 0 && l.commission <= 0));

    // The journal: every entry balanced; the provider is owed line 2's rest, the location keeps its commission and tax.
    await assertBooksBalance(tt, t);
    tt.deepEqual(await books(m), { providerPayable: -(254 - 38), commission: -38, taxPayable: -21, revenue: 0 });
    const orderEvents = await eventsWith(t, 'order.refunded', 'orderId', o.id);
    tt.is(orderEvents.length, 23);
    tt.is(
      orderEvents.reduce((s, e) => s + (e.data.amount as number), 0),
      32_200,
    );
    tt.is((await db().selectFrom('events').select('id').where('type', '=', 'refund.created').where('data', 'like', `%${payment.id}%`).execute()).length, 23);
  },
);

test.serial('Idempotency-Key: a replayed refund of an order’s payment answers the first and maps the money once', async (tt) => {
  const m = await market(t, { taxRateBps: 1000, amount: 5_000, commissionBps: 1000 });
  const { o, payment } = await paidOrder(tt, m, [mondayAt(t, 13, 0, 3)]);
  const key = `refund-${o.id}`;
  const first = expectStatus(await refund({ paymentId: payment.id, amount: 1_100 }, key), 201, 'refund');
  const replay = await refund({ paymentId: payment.id, amount: 1_100 }, key);
  tt.is(replay.status, 201);
  tt.is(replay.headers.get('idempotent-replayed'), 'true');
  tt.deepEqual(replay.body, first.body);
  tt.deepEqual(
    (await lineRows(o.id)).map((l) => [l.amount_refunded, l.tax_refunded]),
    [[1_000, 100]],
  );
  tt.is((await refundCommissionLines(o.id)).length, 1);
  tt.is((await eventsWith(t, 'order.refunded', 'orderId', o.id)).length, 1);
  tt.is((await eventsWith(t, 'refund.created', 'paymentId', payment.id)).length, 1);
  tt.like((await t.request('GET', `/v1/payments/${payment.id}`, { token })).body, { amountRefunded: 1_100 });
  const mismatch = await refund({ paymentId: payment.id, amount: 1_000 }, key);
  tt.is(mismatch.status, 422);
  tt.is(mismatch.body.code, 'idempotency_key_mismatch');
});

test.serial(
  'both refund routes share one allocation: a line refunded through the order, then POST /v1/refunds takes the rest of the other lines in line order',
  async (tt) => {
    const m = await market(t, { taxRateBps: 825, amount: 3_333, commissionBps: 3333 });
    const { o, payment } = await paidOrder(tt, m, [mondayAt(t, 10, 0, 4), mondayAt(t, 11, 0, 4), mondayAt(t, 12, 0, 4)]);
    // Line 1 in full through the order route, then 1,000 of gross of line 2 (with its tax share, 83).
    expectStatus(await t.request('POST', `/v1/orders/${o.id}/refund`, { token, body: { lineIds: [o.lines[1].id] } }), 200, 'line 1');
    expectStatus(await t.request('POST', `/v1/orders/${o.id}/refund`, { token, body: { lineIds: [o.lines[2].id], amount: 1_000 } }), 200, 'part of line 2');
    tt.deepEqual(
      (await lineRows(o.id)).map((l) => [l.amount_refunded, l.tax_refunded]),
      [
        [0, 0],
        [3_333, 275],
        [1_000, 83],
      ],
    );
    // The payment route skips line 1 (nothing left) and fills line 0, then line 2.
    const rest = expectStatus(await refund({ paymentId: payment.id }), 201, 'the rest');
    tt.is(rest.body.amount, o.total - (3_333 + 275) - (1_000 + 83));
    tt.deepEqual(
      (await lineRows(o.id)).map((l) => [l.amount_refunded, l.tax_refunded]),
      [
        [3_333, 275],
        [3_333, 275],
        [3_333, 275],
      ],
    );
    const reversed = await reversedByLine(o.id);
    tt.true(
      o.lines.every(
        (l: { id: string; commissionAmount: number }) => reversed.get(l.id)?.commission === -l.commissionAmount && reversed.get(l.id)?.gross === -3_333,
      ),
    );
    tt.like((await t.request('GET', `/v1/orders/${o.id}`, { token })).body, { status: 'refunded' });
    tt.deepEqual(await books(m), { providerPayable: 0, commission: 0, taxPayable: 0, revenue: 0 });
    await assertBooksBalance(tt, t);
  },
);

test.serial('money a rounding step skips is tax: after 4 of gross at 10 %, 1 more is the tax of the 5th unit and moves no gross or commission', async (tt) => {
  const m = await market(t, { taxRateBps: 1000, amount: 100, commissionBps: 2500 });
  const { o, payment } = await paidOrder(tt, m, [mondayAt(t, 14, 0, 4)]);
  expectStatus(await refund({ paymentId: payment.id, amount: 4 }), 201, '4');
  expectStatus(await refund({ paymentId: payment.id, amount: 1 }), 201, '1');
  tt.deepEqual(
    (await lineRows(o.id)).map((l) => [l.amount_refunded, l.tax_refunded]),
    [[4, 1]],
  );
  // One commission line (round-half-up(4 × 25 %) = 1), none for the unit of tax.
  tt.deepEqual(
    (await refundCommissionLines(o.id)).map((l) => [l.gross, l.commission]),
    [[-4, -1]],
  );
  expectStatus(await refund({ paymentId: payment.id, amount: 1 }), 201, 'the 5th unit of gross');
  tt.deepEqual(
    (await lineRows(o.id)).map((l) => [l.amount_refunded, l.tax_refunded]),
    [[5, 1]],
  );
  tt.is((await books(m)).taxPayable, -(10 - 1));
  await assertBooksBalance(tt, t);
});

test.serial(
  'an unpaid order: cancelling with part of its invoice paid is 409 (the invoice’s currentStatus); that payment refunds as a plain §9 refund, then the order cancels',
  async (tt) => {
    const m = await market(t, { taxRateBps: 0, amount: 4_000 });
    const o = expectStatus(await order(t, m, mondayAt(t, 15, 0, 4), token), 201, 'order').body;
    const part = expectStatus(
      await t.request('POST', '/v1/payments', {
        token,
        body: { parentId: o.parentId, invoiceId: o.invoiceId, amount: 1_000, currency: o.currency, method: 'cash' },
      }),
      201,
      'part payment',
    ).body;
    const refused = await t.request('POST', `/v1/orders/${o.id}/cancel`, { token, body: {} });
    tt.is(refused.status, 409);
    tt.is(refused.body.code, 'invalid_state_transition');
    tt.is(refused.body.currentStatus, 'open');
    expectStatus(await refund({ paymentId: part.id }), 201, 'refund the part paid');
    tt.like((await t.request('GET', `/v1/orders/${o.id}`, { token })).body, { status: 'pending_payment' });
    tt.deepEqual(await refundCommissionLines(o.id), []);
    tt.is((await eventsWith(t, 'order.refunded', 'orderId', o.id)).length, 0);
    expectStatus(await t.request('POST', `/v1/orders/${o.id}/cancel`, { token, body: {} }), 200, 'cancel');
    tt.like((await t.request('GET', `/v1/orders/${o.id}`, { token })).body, { status: 'cancelled' });
    await assertBooksBalance(tt, t);
  },
);
