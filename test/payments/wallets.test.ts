import test from 'ava';
import { TestClock, type TokenSet, useTestApp } from '../helpers/test-app.js';
import { assertProblem } from '../gateway/gateway-support.js';
import { assertBooksBalance, moneyHousehold, pay, wallet, type Household } from './payments-support.js';

/** /v1/wallets: one per parent and currency, top-ups, admin adjustments, transactions; never negative. */
const walletKeys = ['id', 'parentId', 'currency', 'balance', 'createdAt', 'updatedAt'].sort();
const transactionKeys = ['id', 'type', 'amount', 'balanceAfter', 'sourceId', 'createdAt'].sort();

const start = Date.parse('2026-11-23T15:00:00.000Z');
let admin: string;
let staff: TokenSet;
let reader: TokenSet;
let doctor: TokenSet;
let scopedB: TokenSet;
let a1: Household;
let b1: Household;

const t = useTestApp(test, { clock: new TestClock(start) });
test.before(async () => {
  admin = await t.adminToken();
  a1 = await moneyHousehold(t, { name: 'Downtown Clinic' });
  b1 = await moneyHousehold(t, { name: 'Bay Side' });
  [staff, reader, doctor, scopedB] = await Promise.all([
    t.client({ name: 'front desk', role: 'staff', scopes: ['payments'] }),
    t.client({ name: 'reader', role: 'staff', scopes: ['payments.read'] }),
    t.client({ name: 'doctor', role: 'doctor', scopes: ['pets'] }),
    t.client({ name: 'B only', role: 'staff', scopes: ['payments'], locationIds: [b1.location.id] }),
  ]);
});

const db = () => t.stores.get('live').db;
const topUp = (id: string, body: Record<string, unknown>, token = staff.accessToken, idempotencyKey?: string) =>
  t.request('POST', `/v1/wallets/${id}/top-ups`, { token, body, ...(idempotencyKey ? { idempotencyKey } : {}) });
const adjust = (id: string, body: Record<string, unknown>, token = admin) => t.request('POST', `/v1/wallets/${id}/adjustments`, { token, body });

test('create, top up, pay, adjust: every transaction carries the balance after it', async (a) => {
  const h = await moneyHousehold(t, { name: 'Ledger wallet' });
  const created = await t.request('POST', '/v1/wallets', { token: staff.accessToken, body: { parentId: h.parent.id, currency: 'USD' } });
  a.is(created.status, 201, created.text);
  a.deepEqual(Object.keys(created.body).sort(), walletKeys);
  a.regex(created.body.id, /^wal_[a-z0-9]{26}$/);
  a.like(created.body, { parentId: h.parent.id, currency: 'USD', balance: 0 });
  const id = created.body.id as string;

  const top = await topUp(id, { amount: 10_000, method: 'card_terminal', reference: 'slip 7' });
  a.is(top.status, 201, top.text);
  a.deepEqual(Object.keys(top.body).sort(), transactionKeys);
  a.like(top.body, { type: 'top_up', amount: 10_000, balanceAfter: 10_000, sourceId: null });
  const payment = await pay(t, staff.accessToken, { parentId: h.parent.id, amount: 2_500, method: 'wallet' });
  a.is(payment.status, 201, payment.text);
  const plus = await adjust(id, { amount: 300, reason: 'Goodwill for the wait' });
  a.is(plus.status, 201, plus.text);
  const minus = await adjust(id, { amount: -800, reason: 'Top-up keyed twice' });
  a.like(minus.body, { type: 'adjustment', amount: -800, balanceAfter: 7_000 });

  const wallet = await t.request('GET', `/v1/wallets/${id}`, { token: reader.accessToken });
  a.like(wallet.body, { balance: 7_000 });
  const tx = await t.request('GET', `/v1/wallets/${id}/transactions`, { token: reader.accessToken });
  a.deepEqual(
    tx.body.data.map((x: Record<string, unknown>) => [x.type, x.amount, x.balanceAfter]),
    [
      ['adjustment', -800, 7_000],
      ['adjustment', 300, 7_800],
      ['payment', -2_500, 7_500],
      ['top_up', 10_000, 10_000],
    ],
  );
  a.is(tx.body.data[2].sourceId, payment.body.id);
  const journal = await t.request('GET', `/v1/ledger/entries?account=wallet:${id}`, { token: admin });
  a.is(journal.body.data.length, 4);
  a.deepEqual(journal.body.data[3].lines, [
    { account: 'cash:card_terminal', amount: 10_000 },
    { account: `wallet:${id}`, amount: -10_000 },
  ]);
  a.deepEqual(journal.body.data[0].lines, [
    { account: `wallet_adjustments:${h.location.id}`, amount: -800 },
    { account: `wallet:${id}`, amount: 800 },
  ]);
  await assertBooksBalance(a, t);
});

test('a second wallet for the same parent and currency is 409 wallet_exists naming the first; another currency is fine', async (a) => {
  const h = await moneyHousehold(t, { name: 'Twice' });
  const first = await wallet(t, staff.accessToken, h.parent.id);
  const second = await t.request('POST', '/v1/wallets', { token: staff.accessToken, body: { parentId: h.parent.id, currency: 'USD' } });
  assertProblem(a, second, 409, 'wallet_exists');
  a.is(second.body.walletId, first.id);
  const euro = await t.request('POST', '/v1/wallets', { token: staff.accessToken, body: { parentId: h.parent.id, currency: 'EUR' } });
  a.is(euro.status, 201);
  const list = await t.request('GET', `/v1/wallets?parentId=${h.parent.id}`, { token: reader.accessToken });
  a.deepEqual(
    list.body.data.map((w: { id: string }) => w.id),
    [euro.body.id, first.id],
  );
  // Parallel creates for one pair still give one wallet.
  const h2 = await moneyHousehold(t, { name: 'Parallel wallets' });
  const results = await Promise.all(
    Array.from({ length: 5 }, () => t.request('POST', '/v1/wallets', { token: staff.accessToken, body: { parentId: h2.parent.id, currency: 'USD' } })),
  );
  a.deepEqual(results.map((r) => r.status).sort(), [201, 409, 409, 409, 409]);
});

test('adjustments: admin role only; below zero is 422 insufficient_funds; 0 is 400', async (a) => {
  const w = await wallet(t, staff.accessToken, a1.parent.id, 1_000, 'CAD');
  assertProblem(a, await adjust(w.id, { amount: 100, reason: 'x' }, staff.accessToken), 403, 'forbidden_role');
  const under = await adjust(w.id, { amount: -1_001, reason: 'too much' });
  assertProblem(a, under, 422, 'insufficient_funds');
  a.is(under.body.balance, 1_000);
  assertProblem(a, await adjust(w.id, { amount: 0, reason: 'nothing' }), 400, 'validation_failed');
  assertProblem(a, await adjust(w.id, { amount: 5 }), 400, 'validation_failed');
  assertProblem(a, await adjust(w.id, { amount: 5, reason: 'wrong wallet', currency: 'USD' }), 400, 'validation_failed');
  a.is((await adjust(w.id, { amount: -1_000, reason: 'emptied' })).status, 201);
  a.like((await t.request('GET', `/v1/wallets/${w.id}`, { token: admin })).body, { balance: 0 });
});

test('bad input is 400 and writes nothing', async (a) => {
  const w = await wallet(t, staff.accessToken, a1.parent.id, 0, 'GBP');
  for (const [body, field] of [
    [{ amount: -5, method: 'cash' }, 'amount'],
    [{ amount: 0, method: 'cash' }, 'amount'],
    [{ amount: 1.5, method: 'cash' }, 'amount'],
    [{ amount: 1_000_000_000_001, method: 'cash' }, 'amount'],
    [{ amount: 100, method: 'wallet' }, 'method'],
    [{ amount: 100 }, 'method'],
    [{ amount: 100, method: 'cash', currency: 'USD' }, 'currency'],
    [{ amount: 100, method: 'cash', currency: 'XYZ' }, 'currency'],
  ] as const) {
    const res = await topUp(w.id, body);
    assertProblem(a, res, 400, 'validation_failed');
    a.true(
      (res.body.errors as Array<{ field: string }>).some((e) => e.field === field),
      res.text,
    );
  }
  for (const [body, field] of [
    [{ parentId: a1.parent.id, currency: 'XYZ' }, 'currency'],
    [{ parentId: a1.parent.id, currency: 'eur' }, 'currency'],
    [{ parentId: a1.parent.id }, 'currency'],
    [{ currency: 'USD' }, 'parentId'],
  ] as const) {
    const res = await t.request('POST', '/v1/wallets', { token: staff.accessToken, body });
    assertProblem(a, res, 400, 'validation_failed');
    a.true(
      (res.body.errors as Array<{ field: string }>).some((e) => e.field === field),
      res.text,
    );
  }
  assertProblem(
    a,
    await t.request('POST', '/v1/wallets', { token: staff.accessToken, body: { parentId: 'usr_ghost', currency: 'USD' } }),
    400,
    'resource_missing',
  );
  a.like((await t.request('GET', `/v1/wallets/${w.id}`, { token: staff.accessToken })).body, { balance: 0 });
  a.is((await t.request('GET', `/v1/wallets/${w.id}/transactions`, { token: staff.accessToken })).body.data.length, 0);
});

test('the database itself refuses a negative balance, a balance moved without a transaction, and rewriting history', async (a) => {
  const h = await moneyHousehold(t, { name: 'DB rules' });
  const w = await wallet(t, staff.accessToken, h.parent.id, 500);
  const now = new Date(start).toISOString();
  const row = {
    tenant_id: t.tenantId,
    wallet_id: w.id,
    type: 'adjustment' as const,
    source_id: null,
    method: null,
    reference: null,
    reason: 'by hand',
    created_at: now,
  };
  await a.throwsAsync(
    db()
      .insertInto('wallet_transactions')
      .values({ ...row, id: 'wtx_zz_minus', amount: -501, balance_after: -1 })
      .execute(),
    { message: /CHECK/ },
  );
  await a.throwsAsync(
    db()
      .insertInto('wallet_transactions')
      .values({ ...row, id: 'wtx_zz_lie', amount: -100, balance_after: 500 })
      .execute(),
    { message: /balanceAfter/ },
  );
  await a.throwsAsync(db().updateTable('wallets').set({ balance: 1_000_000 }).where('id', '=', w.id).execute(), {
    message: /only through a wallet transaction/,
  });
  await a.throwsAsync(db().updateTable('wallets').set({ balance: -1 }).where('id', '=', w.id).execute(), { message: /CHECK|wallet transaction/ });
  await a.throwsAsync(db().updateTable('wallet_transactions').set({ amount: 1 }).where('wallet_id', '=', w.id).execute(), { message: /append-only/ });
  await a.throwsAsync(db().deleteFrom('wallet_transactions').where('wallet_id', '=', w.id).execute(), { message: /append-only/ });
  a.like((await t.request('GET', `/v1/wallets/${w.id}`, { token: staff.accessToken })).body, { balance: 500 });
});

test('20 parallel top-ups and debits: the balance equals top-ups − accepted debits and never goes below 0', async (a) => {
  const h = await moneyHousehold(t, { name: 'Mixed race' });
  const w = await wallet(t, staff.accessToken, h.parent.id, 1_000);
  const calls = Array.from({ length: 20 }, (_, i) =>
    i % 4 === 0 ? topUp(w.id, { amount: 200, method: 'cash' }) : pay(t, staff.accessToken, { parentId: h.parent.id, amount: 300, method: 'wallet' }),
  );
  const results = await Promise.all(calls);
  const topUps = results.filter((r, i) => i % 4 === 0 && r.status === 201).length;
  const debits = results.filter((r, i) => i % 4 !== 0 && r.status === 201).length;
  for (const r of results.filter((x) => x.status !== 201)) assertProblem(a, r, 422, 'insufficient_funds');
  a.is(topUps, 5);
  const balance = (await t.request('GET', `/v1/wallets/${w.id}`, { token: staff.accessToken })).body.balance as number;
  a.is(balance, 1_000 + topUps * 200 - debits * 300);
  a.true(balance >= 0 && balance < 300);
  await assertBooksBalance(a, t);
});

test('401, 403, and another location’s wallet answers 404 on every route', async (a) => {
  const w = await wallet(t, staff.accessToken, a1.parent.id, 100, 'JPY');
  assertProblem(a, await t.request('GET', '/v1/wallets'), 401, 'unauthorized');
  assertProblem(a, await t.request('GET', '/v1/wallets', { token: doctor.accessToken }), 403, 'insufficient_scope');
  assertProblem(a, await topUp(w.id, { amount: 1, method: 'cash' }, reader.accessToken), 403, 'insufficient_scope');
  for (const [method, path, body] of [
    ['GET', `/v1/wallets/${w.id}`, undefined],
    ['GET', `/v1/wallets/${w.id}/transactions`, undefined],
    ['POST', `/v1/wallets/${w.id}/top-ups`, { amount: 1, method: 'cash' }],
  ] as const) {
    assertProblem(a, await t.request(method, path, { token: scopedB.accessToken, ...(body ? { body } : {}) }), 404, 'not_found');
  }
  const scopedAdmin = await t.client({ name: 'B admin', role: 'admin', scopes: ['payments'], locationIds: [b1.location.id] });
  assertProblem(a, await adjust(w.id, { amount: 1, reason: 'x' }, scopedAdmin.accessToken), 404, 'not_found');
  const list = await t.request('GET', '/v1/wallets?limit=100', { token: scopedB.accessToken });
  a.false(list.body.data.some((x: { id: string }) => x.id === w.id));
  assertProblem(
    a,
    await t.request('POST', '/v1/wallets', { token: scopedB.accessToken, body: { parentId: a1.parent.id, currency: 'CHF' } }),
    400,
    'resource_missing',
  );
  const sandbox = await t.adminToken('sandbox');
  assertProblem(a, await t.request('GET', `/v1/wallets/${w.id}`, { token: sandbox }), 404, 'not_found');
});

test('Idempotency-Key: a replayed top-up credits once', async (a) => {
  const w = await wallet(t, staff.accessToken, b1.parent.id, 0, 'AUD');
  const first = await topUp(w.id, { amount: 4_000, method: 'bank_transfer' }, staff.accessToken, `top-${w.id}`);
  const again = await topUp(w.id, { amount: 4_000, method: 'bank_transfer' }, staff.accessToken, `top-${w.id}`);
  a.is(again.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(again.body, first.body);
  a.like((await t.request('GET', `/v1/wallets/${w.id}`, { token: staff.accessToken })).body, { balance: 4_000 });
});
