import test from 'ava';
import { walk } from '../gateway/gateway-support.js';
import { TestClock, useTestApp } from '../helpers/test-app.js';
import { expectStatus, market, mondayAt, order, payOrder } from '../marketplace/orders-support.js';

/** marketplace_gmv and commission_earned over orders made, paid and refunded through the marketplace routes. */
const november = 'from=2026-11-01&to=2026-11-30';

const t = useTestApp(test, { clock: new TestClock(Date.parse('2026-11-16T09:00:00.000Z')) });

test('gmv counts paid order lines (refunds not deducted); commission_earned nets the refund lines; records sum to each value', async (a) => {
  const admin = await t.adminToken();
  const m = await market(t, { amount: 2_000, commissionBps: 1_500 });
  const scope = `${november}&locationId=${m.location.id}`;
  const read = async () => {
    const res = await t.request('GET', `/v1/analytics/summary?${scope}`, { token: admin });
    a.is(res.status, 200, res.text);
    const of = (name: string) => res.body.metrics.find((x: { name: string }) => x.name === name);
    return { gmv: of('marketplace_gmv').value, commission: of('commission_earned').value, basis: of('marketplace_gmv').basis.date as string };
  };
  const unpaid = expectStatus(await order(t, m, [mondayAt(t, 10), mondayAt(t, 11)]), 201, 'order').body;
  a.like(await read(), { gmv: 0, commission: 0 }, 'an unpaid order counts nowhere');
  await payOrder(t, unpaid);
  const paid = await read();
  a.like(paid, { gmv: 4_000, commission: 600 });
  a.regex(paid.basis, /paidAt/);
  expectStatus(
    await t.request('POST', `/v1/orders/${unpaid.id}/refund`, { token: admin, body: { lineIds: [unpaid.lines[0].id], amount: 1_000, reason: 'short walk' } }),
    200,
    'refund',
  );
  a.like(await read(), { gmv: 4_000, commission: 450 });

  const lines = await walk<{ sourceType: string; amount: number; currency: string }>(t, `/v1/analytics/metrics/marketplace_gmv/records?${scope}`, admin);
  a.deepEqual(
    lines.map((r) => [r.sourceType, r.amount, r.currency]),
    [
      ['order_line', 2_000, 'USD'],
      ['order_line', 2_000, 'USD'],
    ],
  );
  const commission = await walk<{ sourceType: string; amount: number; status: string }>(t, `/v1/analytics/metrics/commission_earned/records?${scope}`, admin);
  a.is(
    commission.reduce((sum, r) => sum + r.amount, 0),
    450,
  );
  a.deepEqual(commission.map((r) => r.status).sort(), ['refund', 'sale', 'sale']);
  const december = await t.request('GET', `/v1/analytics/metrics/marketplace_gmv?from=2026-12-01&to=2026-12-31&locationId=${m.location.id}&interval=month`, {
    token: admin,
  });
  a.deepEqual(
    december.body.points.map((p: { value: number }) => p.value),
    [0],
  );
});
