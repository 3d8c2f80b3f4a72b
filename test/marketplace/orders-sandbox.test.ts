import test from 'ava';
import { useTestApp } from '../helpers/test-app.js';
import { complete, expectStatus, market, mondayAt, order, payOrder, settle, today } from './orders-support.js';

const t = useTestApp(test, { jobs: false });

test.serial('a sandbox order runs through payout, and a sandbox reset erases orders, commission lines and statements', async (tt) => {
  const token = await t.adminToken('sandbox');
  const m = await market(t, { env: 'sandbox', amount: 5_000 });
  const o = expectStatus(await order(t, m, mondayAt(t, 10), token), 201, 'sandbox order').body;
  await payOrder(t, o, token);
  expectStatus(await complete(t, o.lines[0].bookingId, token), 200, 'complete');
  const statements = expectStatus(await settle(t, { periodStart: today(t), periodEnd: today(t) }, token), 201, 'settle').body.data;
  expectStatus(await t.request('POST', `/v1/settlements/${statements[0].id}/mark-paid`, { token }), 200, 'mark paid');
  // The live database never saw it.
  tt.is((await t.request('GET', `/v1/orders/${o.id}`, { token: await t.adminToken() })).status, 404);

  const reset = await t.request('POST', '/v1/sandbox/reset', { token, body: {} });
  tt.is(reset.status, 200, reset.text);
  const db = t.stores.get('sandbox').db;
  // The test's order is gone with its lines and commission; the demo practice's orders are seeded again.
  tt.is((await db.selectFrom('marketplace_orders').select('id').where('id', '=', o.id).execute()).length, 0);
  for (const table of ['marketplace_order_lines', 'marketplace_commission_lines'] as const) {
    tt.is((await db.selectFrom(table).select('id').where('order_id', '=', o.id).execute()).length, 0, table);
  }
  tt.true((await db.selectFrom('marketplace_orders').select('id').execute()).length > 0, 'the demo orders are back');
  tt.is((await t.request('GET', `/v1/orders/${o.id}`, { token })).status, 404);
});

test.serial(
  'the sandbox test clock moves open slots as it moves orders: the first slot offered after an advance can be ordered; reviews are dated by it',
  async (tt) => {
    const token = await t.adminToken('sandbox');
    const m = await market(t, { env: 'sandbox' });
    const advanceTo = new Date(t.clock.now() + 23 * 86_400_000).toISOString();
    expectStatus(await t.request('POST', '/v1/sandbox/clock', { token, body: { advanceTo } }), 200, 'advance');
    const slots = expectStatus(await t.request('GET', `/v1/providers/availability?providerIds=${m.walker.id}`, { token }), 200, 'slots').body.data;
    tt.true(slots.length > 0);
    tt.true(slots[0].startsAt >= advanceTo, `${slots[0].startsAt} is before the sandbox's now ${advanceTo}`);
    const placed = expectStatus(await order(t, m, slots[0].startsAt, token), 201, 'order the first slot offered').body;
    await payOrder(t, placed, token);
    expectStatus(await complete(t, placed.lines[0].bookingId, token), 200, 'complete');
    const review = expectStatus(
      await t.request('POST', '/v1/providers/ratings', { token, body: { bookingId: placed.lines[0].bookingId, stars: 5 } }),
      201,
      'rate',
    ).body;
    tt.true(review.createdAt >= advanceTo);
    // The live environment keeps real time.
    const live = await market(t);
    const liveSlots = (await t.request('GET', `/v1/providers/availability?providerIds=${live.walker.id}`, { token: await t.adminToken() })).body.data;
    tt.true(liveSlots[0].startsAt < advanceTo);
  },
);
