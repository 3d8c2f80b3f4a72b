import test from 'ava';
import { Value } from '@sinclair/typebox/value';
import { eventTypeInfo, type EventType } from '../../src/modules/events/event-types.js';
import { TestClock, useTestApp } from '../helpers/test-app.js';
import { moneyHousehold, openInvoice, pay, wallet } from './payments-support.js';

/** The payments module's event types: in GET /v1/event-types with data schemas, and every emitted event matches its schema. */
const moneyTypes = [
  'payment.completed',
  'invoice.finalized',
  'invoice.paid',
  'refund.created',
  'subscription.created',
  'subscription.past_due',
  'subscription.canceled',
];
let admin: string;

const t = useTestApp(test, { clock: new TestClock(Date.parse('2026-11-23T15:00:00.000Z')), jobs: false });
test.before(async () => {
  admin = await t.adminToken();
});

test('GET /v1/event-types lists every money event with its data schema; payment.succeeded stays its alias', async (a) => {
  const res = await t.request('GET', '/v1/event-types', { token: admin });
  a.is(res.status, 200, res.text);
  const byType = new Map((res.body.data as Array<{ type: string }>).map((e) => [e.type, e as Record<string, any>]));
  for (const type of moneyTypes) {
    const info = byType.get(type);
    a.truthy(info, type);
    a.true(info!.canonical);
    a.is(info!.dataSchema.type, 'object');
    a.truthy(info!.description);
    a.truthy(info!.emittedBy);
  }
  a.deepEqual(byType.get('invoice.paid')!.dataSchema.required, ['invoiceId', 'number', 'parentId', 'locationId', 'total', 'amountDue', 'currency']);
  a.deepEqual(byType.get('refund.created')!.dataSchema.required, ['refundId', 'paymentId', 'invoiceId', 'amount', 'currency']);
  a.deepEqual(byType.get('subscription.past_due')!.dataSchema.required, ['subscriptionId', 'parentId', 'status', 'latestInvoiceId']);
  a.like(byType.get('payment.succeeded'), { canonical: false, aliasOf: 'payment.completed' });
});

test('each money event emitted matches its catalogue schema', async (a) => {
  const h = await moneyHousehold(t);
  const invoice = await openInvoice(t, admin, h, 1_000);
  const p = await pay(t, admin, { parentId: h.parent.id, invoiceId: invoice.id, amount: 1_000 });
  await t.request('POST', '/v1/refunds', { token: admin, body: { paymentId: p.body.id, amount: 100 } });
  await wallet(t, admin, h.parent.id, 10);
  const sub = await t.request('POST', '/v1/subscriptions', {
    token: admin,
    body: { parentId: h.parent.id, locationId: h.location.id, description: 'Plan', amount: 500, interval: 'month', collection: 'wallet' },
  });
  await t.request('POST', `/v1/subscriptions/${sub.body.id}/cancel`, { token: admin });
  const rows = await t.stores.get('live').db.selectFrom('events').selectAll().where('type', 'in', moneyTypes).execute();
  a.deepEqual([...new Set(rows.map((r) => r.type))].sort(), [...moneyTypes].sort());
  for (const row of rows) a.true(Value.Check(eventTypeInfo(row.type as EventType).data, JSON.parse(row.data)), `${row.type} ${row.data}`);
});
