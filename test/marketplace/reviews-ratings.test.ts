import test from 'ava';
import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import { type TokenSet, useTestApp } from '../helpers/test-app.js';
import { createProvider } from '../appointments/scheduling-support.js';
import { approvedProvider, insertMarketplaceBooking } from './marketplace-support.js';

/** Ratings and reviews: one per completed marketplace booking, verified, with one reply; the provider's average stays true. */
let admin: string;
let loc: { id: string };
let other: { id: string };
let parent: { id: string };
let pet: { id: string };
let stranger: { id: string };
let strangerPet: { id: string };
let scopedOther: TokenSet; // admin with marketplace, the other location only
let reader: TokenSet; // admin, marketplace.read
let petsOnly: TokenSet; // staff, pets: neither marketplace nor bookings

const t = useTestApp(test);
test.before(async () => {
  admin = await t.adminToken();
  [loc, other] = await Promise.all([createLocation(t, { name: 'Review clinic' }), createLocation(t, { name: 'Review elsewhere' })]);
  [parent, stranger] = await Promise.all([createPetParent(t, loc.id), createPetParent(t, loc.id)]);
  [pet, strangerPet] = await Promise.all([createPet(t, parent.id, loc.id), createPet(t, stranger.id, loc.id)]);
  [scopedOther, reader, petsOnly] = await Promise.all([
    t.client({ name: 'other', role: 'admin', scopes: ['marketplace'], locationIds: [other.id] }),
    t.client({ name: 'reader', role: 'admin', scopes: ['marketplace.read'] }),
    t.client({ name: 'pets only', role: 'staff', scopes: ['pets'] }),
  ]);
});

const rate = (body: Record<string, unknown>, token = admin) => t.request('POST', '/v1/providers/ratings', { token, body });
const booking = (providerId: string, status = 'completed', who = { parentId: parent.id, petId: pet.id }) =>
  insertMarketplaceBooking(t, { providerId, ...who, locationId: loc.id, status });
const providerOf = async (id: string) => (await t.request('GET', `/v1/providers/${id}`, { token: admin })).body;

test('a rating of a completed booking is a verified review; the provider average (1 decimal) and count follow several reviews', async (a) => {
  const provider = await approvedProvider(t, loc.id);
  const stars = [5, 4, 4];
  const reviews = [];
  for (const [i, s] of stars.entries()) {
    const res = await rate({ bookingId: await booking(provider.id), parentId: parent.id, stars: s, comment: i === 0 ? 'Lovely walk' : undefined });
    a.is(res.status, 201, res.text);
    reviews.push(res.body);
  }
  a.deepEqual(Object.keys(reviews[0]).sort(), ['bookingId', 'comment', 'createdAt', 'id', 'providerId', 'reply', 'stars', 'verified']);
  a.like(reviews[0], { providerId: provider.id, stars: 5, comment: 'Lovely walk', reply: null, verified: true });
  a.regex(reviews[0].id, /^rev_/);
  a.is(reviews[1].comment, null);
  a.like(await providerOf(provider.id), { rating: 4.3, ratingCount: 3 });
  await rate({ bookingId: await booking(provider.id), parentId: parent.id, stars: 1 });
  a.like(await providerOf(provider.id), { rating: 3.5, ratingCount: 4 });
  const listed = await t.request('GET', `/v1/providers/reviews?providerId=${provider.id}&limit=3`, { token: reader.accessToken });
  a.is(listed.status, 200, listed.text);
  a.deepEqual(
    listed.body.data.map((r: { stars: number }) => r.stars),
    [1, 4, 4],
  );
  a.true(listed.body.hasMore);
  const rest = await t.request('GET', `/v1/providers/reviews?providerId=${provider.id}&cursor=${listed.body.nextCursor}`, { token: reader.accessToken });
  a.deepEqual(rest.body.data, [reviews[0]]);
});

test('bad input is 400 and changes nothing: stars 0 or 6, a comment over 5,000 characters, unknown fields', async (a) => {
  const provider = await approvedProvider(t, loc.id);
  const bookingId = await booking(provider.id);
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ stars: 0 }, 'stars'],
    [{ stars: 6 }, 'stars'],
    [{ stars: 4.5 }, 'stars'],
    [{ stars: 5, comment: 'x'.repeat(5001) }, 'comment'],
    [{ stars: 5, extra: 1 }, 'extra'],
    [{ stars: 5, bookingId: 'nope' }, 'bookingId'],
  ];
  for (const [patch, field] of cases) {
    const res = await rate({ bookingId, parentId: parent.id, ...patch });
    a.is(res.status, 400, `${JSON.stringify(patch).slice(0, 60)}: ${res.text.slice(0, 200)}`);
    a.true(JSON.stringify(res.body.errors).includes(field), res.text.slice(0, 300));
  }
  a.like(await providerOf(provider.id), { rating: null, ratingCount: 0 });
  a.is((await rate({ bookingId, parentId: parent.id, stars: 5, comment: 'y'.repeat(5000) })).status, 201);
});

test("another parent's booking, an unknown one or one out of the caller's locations is 404; an unseen parent is 400", async (a) => {
  const provider = await approvedProvider(t, loc.id);
  const theirs = await booking(provider.id, 'completed', { parentId: stranger.id, petId: strangerPet.id });
  const mine = await booking(provider.id);
  const foreign = await rate({ bookingId: theirs, parentId: parent.id, stars: 5 });
  a.is(foreign.status, 404);
  a.is(foreign.body.code, 'not_found');
  a.is((await rate({ bookingId: 'bkg_missing', parentId: parent.id, stars: 5 })).status, 404);
  a.is((await rate({ bookingId: mine, parentId: parent.id, stars: 5 }, scopedOther.accessToken)).status, 400); // the parent is not theirs to see
  // A parent of the other location whose booking was at this one: the scoped client sees the parent, not the booking.
  const traveller = await createPetParent(t, other.id);
  const travellerPet = await createPet(t, traveller.id, other.id);
  const away = await booking(provider.id, 'completed', { parentId: traveller.id, petId: travellerPet.id });
  const hidden = await rate({ bookingId: away, parentId: traveller.id, stars: 5 }, scopedOther.accessToken);
  a.is(hidden.status, 404, hidden.text);
  const missingParent = await rate({ bookingId: mine, parentId: 'usr_missing', stars: 5 });
  a.is(missingParent.status, 400);
  a.is(missingParent.body.code, 'resource_missing');
  a.is((await rate({ bookingId: mine, parentId: parent.id, stars: 5 }, petsOnly.accessToken)).status, 403);
  a.is((await rate({ bookingId: mine, parentId: parent.id, stars: 5 }, reader.accessToken)).status, 403);
  a.is((await rate({ bookingId: mine, parentId: parent.id, stars: 5 }, '')).status, 401);
  a.like(await providerOf(provider.id), { rating: null, ratingCount: 0 });
});

test('a booking not completed is 422 booking_not_completed and no rating is counted', async (a) => {
  const provider = await approvedProvider(t, loc.id);
  for (const status of ['reserved', 'confirmed', 'cancelled']) {
    const res = await rate({ bookingId: await booking(provider.id, status), parentId: parent.id, stars: 3 });
    a.is(res.status, 422, status);
    a.is(res.body.code, 'booking_not_completed');
    a.is(res.body.currentStatus, status);
  }
  a.like(await providerOf(provider.id), { rating: null, ratingCount: 0 });
});

test('20 parallel ratings of one booking: one 201 and 19 × 409 already_rated; the average counts it once', async (a) => {
  const provider = await approvedProvider(t, loc.id);
  await rate({ bookingId: await booking(provider.id), parentId: parent.id, stars: 2 });
  const bookingId = await booking(provider.id);
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => rate({ bookingId, parentId: parent.id, stars: 1 + (i % 5) })));
  const created = results.filter((r) => r.status === 201);
  a.is(created.length, 1);
  a.is(results.filter((r) => r.status === 409 && r.body.code === 'already_rated').length, 19);
  const expected = Math.round(((2 + created[0]!.body.stars) / 2) * 10) / 10;
  a.like(await providerOf(provider.id), { rating: expected, ratingCount: 2 });
  const again = await rate({ bookingId, parentId: parent.id, stars: 5 });
  a.is(again.status, 409);
});

test('reply: once, admin with the marketplace scope; location scoping of reviews', async (a) => {
  const provider = await approvedProvider(t, loc.id);
  const review = (await rate({ bookingId: await booking(provider.id), parentId: parent.id, stars: 4 })).body;
  const path = `/v1/providers/reviews/${review.id}/reply`;
  a.is((await t.request('POST', path, { token: reader.accessToken, body: { reply: 'Thanks!' } })).status, 403);
  a.is((await t.request('POST', path, { token: scopedOther.accessToken, body: { reply: 'Thanks!' } })).status, 404);
  a.is((await t.request('POST', path, { token: admin, body: { reply: ' ' } })).status, 400);
  a.is((await t.request('POST', path, { token: admin, body: { reply: 'x'.repeat(5001) } })).status, 400);
  const replied = await t.request('POST', path, { token: admin, body: { reply: 'Thanks, see you Tuesday!' } });
  a.is(replied.status, 200, replied.text);
  a.like(replied.body, { id: review.id, reply: 'Thanks, see you Tuesday!', stars: 4 });
  const twice = await t.request('POST', path, { token: admin, body: { reply: 'Again' } });
  a.is(twice.status, 409);
  a.is(twice.body.code, 'already_replied');
  a.is((await t.request('POST', '/v1/providers/reviews/rev_missing/reply', { token: admin, body: { reply: 'Hi' } })).status, 404);
  const mine = await t.request('GET', `/v1/providers/reviews?providerId=${provider.id}`, { token: admin });
  a.is(mine.body.data[0].reply, 'Thanks, see you Tuesday!');
  const theirs = await t.request('GET', `/v1/providers/reviews?providerId=${provider.id}`, { token: scopedOther.accessToken });
  a.deepEqual(theirs.body.data, []);
  a.is((await t.request('GET', '/v1/providers/reviews?providerId=bad', { token: admin })).status, 400);
  a.is((await t.request('GET', '/v1/providers/reviews', { token: petsOnly.accessToken })).status, 403);
});

test('reviews are facts: SQLite refuses to change stars or a second reply even past the API', async (a) => {
  const provider = await approvedProvider(t, loc.id);
  const review = (await rate({ bookingId: await booking(provider.id), parentId: parent.id, stars: 4 })).body;
  const db = t.stores.get('live').db;
  await a.throwsAsync(db.updateTable('provider_reviews').set({ stars: 5 }).where('id', '=', review.id).execute(), { message: /immutable/ });
  await db.updateTable('provider_reviews').set({ reply: 'First' }).where('id', '=', review.id).execute();
  await a.throwsAsync(db.updateTable('provider_reviews').set({ reply: 'Second' }).where('id', '=', review.id).execute(), { message: /one reply/ });
  const staff = await createProvider(t, { locationIds: [loc.id] });
  a.like(await providerOf(staff.id), { rating: null, ratingCount: 0 });
});

test('a rating sent again with the same Idempotency-Key answers the first review, counted once', async (a) => {
  const provider = await approvedProvider(t, loc.id);
  const body = { bookingId: await booking(provider.id), parentId: parent.id, stars: 5 };
  const first = await t.request('POST', '/v1/providers/ratings', { token: admin, body, idempotencyKey: `rate-${body.bookingId}` });
  const again = await t.request('POST', '/v1/providers/ratings', { token: admin, body, idempotencyKey: `rate-${body.bookingId}` });
  a.is(first.status, 201, first.text);
  a.is(again.status, 201);
  a.deepEqual(again.body, first.body);
  a.is(again.headers.get('idempotent-replayed'), 'true');
  a.like(await providerOf(provider.id), { rating: 5, ratingCount: 1 });
});

test("DESIGN §12's body {bookingId, stars, comment?} without parentId: the booking's own parent rates; a booking the caller cannot see is still 404", async (a) => {
  const provider = await approvedProvider(t, loc.id);
  const bookingId = await booking(provider.id);
  const res = await rate({ bookingId, stars: 4, comment: 'On time' });
  a.is(res.status, 201, res.text);
  a.like(res.body, { providerId: provider.id, bookingId, stars: 4, comment: 'On time', verified: true });
  const row = await t.stores
    .get('live')
    .db.selectFrom('provider_reviews')
    .select(['parent_id', 'pet_id'])
    .where('id', '=', res.body.id)
    .executeTakeFirstOrThrow();
  a.deepEqual(row, { parent_id: parent.id, pet_id: pet.id });
  a.is((await rate({ bookingId, stars: 5 })).body.code, 'already_rated');
  // Out of the caller's locations, or unknown: 404 without a parentId too.
  const hidden = await rate({ bookingId: await booking(provider.id), stars: 5 }, scopedOther.accessToken);
  a.is(hidden.status, 404, hidden.text);
  a.is((await rate({ bookingId: 'bkg_missing', stars: 5 })).status, 404);
  a.is((await rate({ bookingId: await booking(provider.id, 'confirmed'), stars: 5 })).body.code, 'booking_not_completed');
  a.like(await providerOf(provider.id), { rating: 4, ratingCount: 1 });
});
