import test from 'ava';
import { useTestApp } from '../helpers/test-app.js';
import { complete, expectStatus, market, mondayAt, order, payOrder, type Market } from './orders-support.js';

/**
 * DESIGN §3 and §12: marketplace bookings are reached with `marketplace` or `bookings`. A front
 * desk or pet-owner app (staff role: bookings, payments) books, pays, completes and rates a walk;
 * what runs the marketplace itself (approval, listings, payouts, commissions) stays `marketplace`.
 */
let m: Market;

const t = useTestApp(test, { jobs: false });
test.before(async () => {
  m = await market(t, { amount: 3_000 });
});

test('a staff client with bookings and payments orders, pays, completes and rates a walk', async (a) => {
  const desk = await t.client({ role: 'staff', scopes: ['bookings', 'payments'] });
  const token = desk.accessToken;
  const placed = expectStatus(await order(t, m, mondayAt(t, 10), token), 201, 'order by bookings scope').body;
  a.is(placed.status, 'pending_payment');
  a.is((await t.request('GET', `/v1/orders/${placed.id}`, { token })).status, 200);
  const listed = await t.request('GET', '/v1/orders', { token });
  a.is(listed.status, 200);
  a.true(listed.body.data.some((o: { id: string }) => o.id === placed.id));
  await payOrder(t, placed, token);
  const bookingId = placed.lines[0].bookingId;
  a.is((await t.request('GET', `/v1/marketplace/bookings/${bookingId}`, { token })).status, 200);
  a.is(expectStatus(await complete(t, bookingId, token), 200, 'complete').body.status, 'completed');
  const rated = await t.request('POST', '/v1/providers/ratings', { token, body: { bookingId, parentId: m.parent.id, stars: 5, comment: 'Great walk' } });
  a.is(rated.status, 201);
  const reviews = await t.request('GET', `/v1/providers/reviews?providerId=${m.walker.id}`, { token });
  a.is(reviews.status, 200);
  a.is(reviews.body.data[0].stars, 5);

  // Running the marketplace is not a bookings matter.
  for (const [method, path, body] of [
    ['POST', `/v1/providers/${m.walker.id}/suspend`, undefined],
    ['GET', '/v1/commissions', undefined],
    ['POST', '/v1/marketplace/settlements', { periodStart: '2026-01-01', periodEnd: '2026-01-31' }],
  ] as const) {
    const res = await t.request(method, path, { token, ...(body ? { body } : {}) });
    a.is(res.status, 403, `${method} ${path}`);
    a.is(res.body.code, 'insufficient_scope');
  }
});

test('a client with neither scope gets 403 naming both; the OpenAPI document lists both as alternatives', async (a) => {
  const reader = await t.client({ role: 'staff', scopes: ['pets'] });
  const res = await order(t, m, mondayAt(t, 12), reader.accessToken);
  a.is(res.status, 403);
  a.is(res.body.code, 'insufficient_scope');
  a.deepEqual(res.body.anyOfScopes, ['marketplace', 'bookings']);
  a.regex(res.headers.get('www-authenticate') ?? '', /scope="marketplace bookings"/);
  const doc = (await t.request('GET', '/openapi.json')).body;
  a.deepEqual(doc.paths['/v1/orders'].post.security, [{ oauth2: ['marketplace'] }, { oauth2: ['bookings'] }]);
  a.deepEqual(doc.paths['/v1/orders'].get.security, [{ oauth2: ['marketplace.read'] }, { oauth2: ['bookings.read'] }]);
});
