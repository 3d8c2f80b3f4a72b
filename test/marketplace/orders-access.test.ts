import test from 'ava';
import { createHousehold } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { approvedWalker, expectStatus, market, mondayAt, order, type Market } from './orders-support.js';

let m: Market;
const t = useTestApp(test);
test.before(async () => {
  m = await market(t);
});

test.serial('GET /v1/orders: cursors in 2026-11-01, {orders, page, totalPages} in 2025-06-01', async (tt) => {
  const token = await t.adminToken();
  const m = await market(t);
  const ids: string[] = [];
  for (let hour = 10; hour < 15; hour++) ids.push(expectStatus(await order(t, m, mondayAt(t, hour, 0, 4)), 201, 'order').body.id);
  const newestFirst = [...ids].reverse();

  const first = await t.request('GET', `/v1/orders?petId=${m.pet.id}&limit=2`, { token });
  tt.is(first.status, 200);
  tt.is(first.headers.get('petcare-version'), '2026-11-01');
  tt.deepEqual(
    first.body.data.map((o: { id: string }) => o.id),
    newestFirst.slice(0, 2),
  );
  tt.true(first.body.hasMore);
  const second = await t.request('GET', `/v1/orders?petId=${m.pet.id}&limit=2&cursor=${first.body.nextCursor}`, { token });
  tt.deepEqual(
    second.body.data.map((o: { id: string }) => o.id),
    newestFirst.slice(2, 4),
  );
  tt.is(second.body.page, undefined);

  const old = { 'Petcare-Version': '2025-06-01' };
  const page2 = await t.request('GET', `/v1/orders?petId=${m.pet.id}&page=2&perPage=2`, { token, headers: old });
  tt.is(page2.status, 200);
  tt.is(page2.headers.get('petcare-version'), '2025-06-01');
  tt.deepEqual(Object.keys(page2.body).sort(), ['orders', 'page', 'totalPages']);
  tt.is(page2.body.page, 2);
  tt.is(page2.body.totalPages, 3);
  tt.deepEqual(
    page2.body.orders.map((o: { id: string }) => o.id),
    newestFirst.slice(2, 4),
  );
  const defaults = await t.request('GET', `/v1/orders?petId=${m.pet.id}`, { token, headers: old });
  tt.like(defaults.body, { page: 1, totalPages: 1 });
  tt.is(defaults.body.orders.length, 5);
  const beyond = await t.request('GET', `/v1/orders?petId=${m.pet.id}&page=9&perPage=2`, { token, headers: old });
  tt.deepEqual(beyond.body, { orders: [], page: 9, totalPages: 3 });
  // 2025-06-01 had no cursors: {orders, page, totalPages} cannot say where a cursor page is.
  const cursorInOld = await t.request('GET', `/v1/orders?petId=${m.pet.id}&cursor=${first.body.nextCursor}`, { token, headers: old });
  tt.is(cursorInOld.status, 400, cursorInOld.text);
  tt.is(cursorInOld.body.errors[0].field, 'cursor');

  tt.is((await t.request('GET', '/v1/orders?perPage=0', { token, headers: old })).status, 400);
  // 2026-11-01 pages by cursor only: the page-number form is refused, naming the field.
  tt.deepEqual(Object.keys(first.body).sort(), ['data', 'hasMore', 'nextCursor']);
  for (const query of ['page=1', 'perPage=2', `page=1&cursor=${first.body.nextCursor}`]) {
    const refused = await t.request('GET', `/v1/orders?${query}`, { token });
    tt.is(refused.status, 400, query);
    tt.is(refused.body.errors[0].field, query.startsWith('perPage') ? 'perPage' : 'page', query);
  }
});

test.serial('bad input answers 400 and writes nothing', async (tt) => {
  const token = await t.adminToken();
  const db = t.stores.get('live').db;
  const before = (await db.selectFrom('marketplace_orders').selectAll().execute()).length;
  const line = { providerId: m.walker.id, listingId: m.walker.listingId, startsAt: mondayAt(t, 10, 0, 5) };
  const other = await approvedWalker(t, m.location.id);
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ parentId: m.parent.id, petId: m.pet.id, lines: [] }, 'lines'],
    [{ parentId: m.parent.id, petId: m.pet.id, lines: Array.from({ length: 21 }, () => line) }, 'lines'],
    [{ parentId: m.parent.id, petId: m.pet.id, lines: [{ ...line, startsAt: 'monday' }] }, 'lines[0].startsAt'],
    [{ parentId: m.parent.id, petId: m.pet.id, lines: [{ ...line, startsAt: '2020-01-06T10:00:00Z' }] }, 'lines[0].startsAt'],
    [{ parentId: m.parent.id, petId: m.pet.id, lines: [{ ...line, extra: 1 }] }, 'lines[0]'],
    [{ parentId: m.parent.id, petId: m.pet.id, lines: [{ ...line, listingId: 'lst_unknown' }] }, 'lines[0].listingId'],
    [{ parentId: m.parent.id, petId: m.pet.id, lines: [{ ...line, providerId: 'prv_unknown' }] }, 'lines[0].providerId'],
    // Another provider's listing is unknown for this provider; the second line's field is named.
    [{ parentId: m.parent.id, petId: m.pet.id, lines: [line, { ...line, startsAt: mondayAt(t, 11, 0, 5), listingId: other.listingId }] }, 'lines[1].listingId'],
    [{ parentId: 'usr_other', petId: m.pet.id, lines: [line] }, 'parentId'],
    [{ parentId: m.parent.id, petId: 'pet_unknown', lines: [line] }, 'petId'],
  ];
  for (const [body, field] of cases) {
    const res = await t.request('POST', '/v1/orders', { token, body });
    tt.is(res.status, 400, `${field}: ${res.text}`);
    tt.true(
      res.body.errors?.some((e: { field: string }) => e.field.startsWith(field)),
      `${field}: ${res.text}`,
    );
    if (/^lines\[\d\]\.(provider|listing)Id$/.test(field))
      tt.deepEqual(
        res.body.errors.map((e: { field: string }) => e.field),
        [field],
        res.text,
      );
  }
  tt.is((await db.selectFrom('marketplace_orders').selectAll().execute()).length, before);
  tt.is((await t.request('POST', '/v1/orders/ord_unknown/refund', { token, body: { amount: 0 } })).status, 400);
  tt.is((await t.request('POST', '/v1/marketplace/settlements', { token, body: { periodStart: '2026-02-30', periodEnd: '2026-03-01' } })).status, 400);
});

test.serial('business refusals: outside working hours 409, a pending provider 422', async (tt) => {
  const outside = await order(t, m, mondayAt(t, 20, 0, 5));
  tt.is(outside.status, 409);
  tt.is(outside.body.code, 'slot_unavailable');
  const pending = await approvedWalker(t, m.location.id, { approve: false });
  const refused = await order(t, m, mondayAt(t, 10, 0, 5), undefined, { walker: pending });
  tt.is(refused.status, 422);
  tt.is(refused.body.code, 'provider_not_bookable');
});

test.serial('tenant and location isolation: another location’s client sees 404 and cannot order for a pet it cannot see', async (tt) => {
  const o = expectStatus(await order(t, m, mondayAt(t, 10, 0, 6)), 201, 'order').body;
  const elsewhere = await createHousehold(t);
  const scoped = await t.client({ role: 'admin', scopes: ['marketplace', 'payments'], locationIds: [elsewhere.location.id] });
  tt.is((await t.request('GET', `/v1/orders/${o.id}`, { token: scoped.accessToken })).status, 404);
  tt.is((await t.request('POST', `/v1/orders/${o.id}/cancel`, { token: scoped.accessToken, body: {} })).status, 404);
  tt.is((await t.request('POST', `/v1/marketplace/bookings/${o.lines[0].bookingId}/complete`, { token: scoped.accessToken })).status, 404);
  const list = await t.request('GET', '/v1/orders', { token: scoped.accessToken });
  tt.false(list.body.data.some((x: { id: string }) => x.id === o.id));
  const foreign = await order(t, m, mondayAt(t, 11, 0, 6), scoped.accessToken);
  tt.is(foreign.status, 400);
  tt.is(foreign.body.code, 'resource_missing');
  // Payouts span the tenant: a location-scoped client is refused.
  const payouts = await t.request('POST', '/v1/marketplace/settlements', {
    token: scoped.accessToken,
    body: { periodStart: '2026-01-01', periodEnd: '2026-01-01' },
  });
  tt.is(payouts.status, 403);

  // The sandbox is another database: the live order does not exist there.
  tt.is((await t.request('GET', `/v1/orders/${o.id}`, { token: await t.adminToken('sandbox') })).status, 404);
  // Scopes: a read-only client cannot order; no token is 401.
  const reader = await t.client({ role: 'staff', scopes: ['payments.read'] });
  tt.is((await t.request('GET', '/v1/orders', { token: reader.accessToken })).status, 403);
  tt.is((await t.request('GET', '/v1/orders')).status, 401);
});

test.serial('an Idempotency-Key replay answers the same order without booking twice', async (tt) => {
  const token = await t.adminToken();
  const body = { parentId: m.parent.id, petId: m.pet.id, lines: [{ providerId: m.walker.id, listingId: m.walker.listingId, startsAt: mondayAt(t, 15, 0, 6) }] };
  const a = await t.request('POST', '/v1/orders', { token, body, idempotencyKey: 'order-once-1' });
  const b = await t.request('POST', '/v1/orders', { token, body, idempotencyKey: 'order-once-1' });
  tt.is(a.status, 201);
  tt.is(b.status, 201);
  tt.is(b.headers.get('idempotent-replayed'), 'true');
  tt.is(a.body.id, b.body.id);
});
