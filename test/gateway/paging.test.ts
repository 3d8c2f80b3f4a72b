import test from 'ava';
import { createHousehold, createPet, createPetParent } from '../helpers/factories.js';
import { type Response, useTestApp } from '../helpers/test-app.js';
import { assertProblem, fieldsOf } from './gateway-support.js';

let token: string;
let household: Awaited<ReturnType<typeof createHousehold>>;
/** Ids of the household's pets in creation order (the household's own pet first). */
const created: string[] = [];
const total = 31;

const t = useTestApp(test);
test.before(async () => {
  token = await t.adminToken();
  household = await createHousehold(t);
  created.push(household.pet.id);
  for (let i = 1; i < total; i++) {
    t.clock.advance(1); // ids carry the creation millisecond: one each gives a known newest-first order
    created.push((await createPet(t, household.parent.id, household.location.id)).id);
  }
});

const listPath = (query: string) => `/v1/pets?ownerId=${household.parent.id}${query ? `&${query}` : ''}`;

test('default page size is 25, newest first', async (a) => {
  const res = await t.request('GET', listPath(''), { token });
  a.is(res.status, 200);
  a.deepEqual(Object.keys(res.body).sort(), ['data', 'hasMore', 'nextCursor']);
  a.is(res.body.data.length, 25);
  a.true(res.body.hasMore);
  a.is(typeof res.body.nextCursor, 'string');
  a.deepEqual(
    res.body.data.map((p: { id: string }) => p.id),
    [...created].reverse().slice(0, 25),
  );
});

test('limit bounds: 1 and 100 are fine; 0, 101, negative and non-integers are 400', async (a) => {
  const one = await t.request('GET', listPath('limit=1'), { token });
  a.is(one.body.data.length, 1);
  a.is(one.body.data[0].id, created[created.length - 1]);
  const hundred = await t.request('GET', listPath('limit=100'), { token });
  a.is(hundred.body.data.length, total);
  a.false(hundred.body.hasMore);
  a.is(hundred.body.nextCursor, null);

  for (const bad of ['0', '101', '-1', '2.5', 'ten', '1e3']) {
    const res = await t.request('GET', listPath(`limit=${bad}`), { token });
    assertProblem(a, res, 400, 'validation_failed', '/v1/pets');
    a.deepEqual(fieldsOf(res), ['limit'], `limit=${bad}`);
  }
});

test('every cursor-paged list applies the same limit bounds', async (a) => {
  // Cursor-paged lists (limit + cursor); availability pages by time with its own, larger limit.
  const lists = t.app.routes.filter(
    (r) => r.method === 'get' && r.query && 'cursor' in ((r.query as { properties?: object }).properties ?? {}) && !r.path.includes(':'),
  );
  a.true(lists.length >= 5, lists.map((r) => r.path).join(', '));
  for (const route of lists) {
    for (const limit of [0, 101]) {
      const res = await t.request('GET', `${route.path}?limit=${limit}`, { token });
      assertProblem(a, res, 400, 'validation_failed', route.path);
      a.deepEqual(fieldsOf(res), ['limit'], `${route.path}?limit=${limit}`);
    }
    const ok = await t.request('GET', `${route.path}?limit=1`, { token });
    a.is(ok.status, 200, route.path);
    a.true(ok.body.data.length <= 1);
  }
});

test('a cursor walk returns every row exactly once, newest first', async (a) => {
  for (const limit of [7, 10, 31, 30]) {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: Response = await t.request('GET', listPath(`limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`), { token });
      a.is(res.status, 200);
      pages++;
      seen.push(...res.body.data.map((p: { id: string }) => p.id));
      a.is(res.body.hasMore, res.body.nextCursor !== null);
      if (res.body.hasMore) a.is(res.body.data.length, limit);
      cursor = res.body.nextCursor;
    } while (cursor && pages < 100);
    a.deepEqual(seen, [...created].reverse(), `limit=${limit}`);
    a.is(pages, Math.ceil(total / limit));
  }
});

test('a cursor survives rows created after it was issued (keyset, not offset)', async (a) => {
  const owner = await createPetParent(t, household.location.id);
  const mine: string[] = [];
  for (let i = 0; i < 4; i++) {
    t.clock.advance(1);
    mine.push((await createPet(t, owner.id, household.location.id)).id);
  }
  const path = (query: string) => `/v1/pets?ownerId=${owner.id}&limit=2${query}`;
  const first = await t.request('GET', path(''), { token });
  a.deepEqual(
    first.body.data.map((p: { id: string }) => p.id),
    [mine[3], mine[2]],
  );
  t.clock.advance(1);
  const latecomer = await createPet(t, owner.id, household.location.id);
  const second = await t.request('GET', path(`&cursor=${first.body.nextCursor}`), { token });
  a.deepEqual(
    second.body.data.map((p: { id: string }) => p.id),
    [mine[1], mine[0]],
  );
  a.false(second.body.hasMore);
  // A new walk sees the newcomer first.
  a.is((await t.request('GET', path(''), { token })).body.data[0].id, latecomer.id);
});

test('forged or damaged cursors are 400 invalid_cursor', async (a) => {
  const good = (await t.request('GET', listPath('limit=5'), { token })).body.nextCursor as string;
  const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
  const forged = [
    'forged',
    `${good.slice(0, -3)}!!!`,
    b64('not json'),
    b64(null),
    b64([]),
    b64({ id: created[3] }),
    b64({ v: 2, id: created[3] }),
    b64({ v: 1, id: 42 }),
    b64({ v: 1, id: "pet_x' OR '1'='1" }),
    b64({ v: 1, id: '' }),
    b64({ v: 1, id: 'PET_UPPER' }),
  ];
  for (const cursor of forged) {
    const res = await t.request('GET', listPath(`cursor=${encodeURIComponent(cursor)}`), { token });
    assertProblem(a, res, 400, 'invalid_cursor', '/v1/pets');
    a.deepEqual(res.body.errors, [{ field: 'cursor', message: 'is not a valid cursor' }], cursor);
  }
  // Too long or empty fails the query schema first.
  assertProblem(a, await t.request('GET', listPath(`cursor=${'a'.repeat(201)}`), { token }), 400, 'validation_failed');
  assertProblem(a, await t.request('GET', listPath('cursor='), { token }), 400, 'validation_failed');
  // The genuine one still works.
  a.is((await t.request('GET', listPath(`limit=5&cursor=${good}`), { token })).status, 200);
});

test('filters narrow the walk and the cursor keeps the filter', async (a) => {
  const other = await t.request('GET', '/v1/pets?limit=100', { token });
  a.is(other.status, 200);
  const page = await t.request('GET', listPath('limit=20'), { token });
  const rest = await t.request('GET', listPath(`limit=20&cursor=${page.body.nextCursor}`), { token });
  const all = [...page.body.data, ...rest.body.data] as Array<{ ownerId: string }>;
  a.is(all.length, total);
  a.true(all.every((p) => p.ownerId === household.parent.id));
});
