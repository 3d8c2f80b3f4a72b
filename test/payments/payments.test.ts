import test, { type ExecutionContext } from 'ava';
import { startTestApp, TestClock, type Response, type TokenSet, useTestApp } from '../helpers/test-app.js';
import { assertFieldErrors, assertProblem } from '../gateway/gateway-support.js';
import { assertBooksBalance, countRows, eventsOf, moneyHousehold, openInvoice, pay, wallet, type Household } from './payments-support.js';

/** POST/GET /v1/payments, POST/GET /v1/refunds, the /v0/payments twin, and their journal. */
const paymentKeys = ['id', 'status', 'parentId', 'invoiceId', 'amount', 'amountRefunded', 'currency', 'method', 'reference', 'createdAt'].sort();
const refundKeys = ['id', 'paymentId', 'invoiceId', 'amount', 'currency', 'reason', 'status', 'createdAt'].sort();

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
    t.client({ name: 'doctor', role: 'doctor', scopes: ['pets', 'medical'] }),
    t.client({ name: 'B only', role: 'staff', scopes: ['payments'], locationIds: [b1.location.id] }),
  ]);
});

const refund = (body: Record<string, unknown>, token = staff.accessToken, idempotencyKey?: string) =>
  t.request('POST', '/v1/refunds', { token, body, ...(idempotencyKey ? { idempotencyKey } : {}) });
const getInvoice = async (id: string) => (await t.request('GET', `/v1/invoices/${id}`, { token: staff.accessToken })).body;
const journalOf = async (sourceId: string) =>
  (await t.request('GET', `/v1/ledger/entries?sourceId=${sourceId}`, { token: admin })).body.data as Array<{
    sourceType: string;
    lines: Array<{ account: string; amount: number }>;
  }>;

function ok(a: ExecutionContext, res: Response, status = 201) {
  a.is(res.status, status, res.text);
  return res.body;
}

// ---------------------------------------------------------------- payments

test('a partial then a final payment: 201 with every field, the invoice paid, payment.completed and invoice.paid', async (a) => {
  const invoice = await openInvoice(t, staff.accessToken, a1, 10_000);
  const first = ok(
    a,
    await pay(t, staff.accessToken, { parentId: a1.parent.id, invoiceId: invoice.id, amount: 4_000, method: 'card_terminal', reference: 'slip 0042' }),
  );
  a.deepEqual(Object.keys(first).sort(), paymentKeys);
  a.regex(first.id, /^pay_[a-z0-9]{26}$/);
  a.deepEqual(first, {
    id: first.id,
    status: 'succeeded',
    parentId: a1.parent.id,
    invoiceId: invoice.id,
    amount: 4_000,
    amountRefunded: 0,
    currency: 'USD',
    method: 'card_terminal',
    reference: 'slip 0042',
    createdAt: new Date(start).toISOString(),
  });
  a.like(await getInvoice(invoice.id), { status: 'open', amountPaid: 4_000, amountDue: 6_000 });
  a.deepEqual((await t.request('GET', `/v1/payments/${first.id}`, { token: reader.accessToken })).body, first);

  const second = ok(a, await pay(t, staff.accessToken, { parentId: a1.parent.id, invoiceId: invoice.id, amount: 6_000 }));
  a.like(await getInvoice(invoice.id), { status: 'paid', amountPaid: 10_000, amountDue: 0, paidAt: new Date(start).toISOString() });

  const [entry] = await journalOf(first.id);
  a.deepEqual(entry!.lines, [
    { account: 'cash:card_terminal', amount: 4_000 },
    { account: `receivable:${a1.parent.id}`, amount: -4_000 },
  ]);
  const completed = await eventsOf(t, 'payment.completed', 'paymentId', second.id);
  a.is(completed.length, 1);
  a.like(completed[0]!.data, { paymentId: second.id, invoiceId: invoice.id, parentId: a1.parent.id, amount: 6_000, currency: 'USD', method: 'cash' });
  a.is((await eventsOf(t, 'invoice.paid', 'invoiceId', invoice.id)).length, 1);
  await assertBooksBalance(a, t);
});

test('a payment on account (no invoice) belongs to the locationId given, else to the parent’s location', async (a) => {
  const onAccount = ok(a, await pay(t, staff.accessToken, { parentId: a1.parent.id, amount: 2_500, method: 'bank_transfer' }));
  a.is(onAccount.invoiceId, null);
  const row = await t.stores.get('live').db.selectFrom('payments').selectAll().where('id', '=', onAccount.id).executeTakeFirstOrThrow();
  a.is(row.location_id, a1.location.id);
  const elsewhere = ok(a, await pay(t, staff.accessToken, { parentId: a1.parent.id, amount: 100, locationId: b1.location.id }));
  const moved = await t.stores.get('live').db.selectFrom('payments').selectAll().where('id', '=', elsewhere.id).executeTakeFirstOrThrow();
  a.is(moved.location_id, b1.location.id);
  a.is((await t.request('GET', `/v1/payments/${elsewhere.id}`, { token: scopedB.accessToken })).status, 200);
});

test.serial(
  'state and business rules: a draft, void, paid or uncollectible invoice takes no payment (409 with currentStatus); more than amountDue is 422; nothing is written',
  async (a) => {
    const h = await moneyHousehold(t, { name: 'Rules' });
    const draft = ok(
      a,
      await t.request('POST', '/v1/invoices', {
        token: staff.accessToken,
        body: { parentId: h.parent.id, locationId: h.location.id, lines: [{ description: 'x', quantity: 1, unitAmount: 500 }] },
      }),
    );
    const voided = await openInvoice(t, staff.accessToken, h, 700);
    ok(a, await t.request('POST', `/v1/invoices/${voided.id}/void`, { token: staff.accessToken }), 200);
    const paid = await openInvoice(t, staff.accessToken, h, 300);
    ok(a, await pay(t, staff.accessToken, { parentId: h.parent.id, invoiceId: paid.id, amount: 300 }));
    const writtenOff = await openInvoice(t, staff.accessToken, h, 900);
    ok(a, await t.request('POST', `/v1/invoices/${writtenOff.id}/mark-uncollectible`, { token: staff.accessToken }), 200);
    const open = await openInvoice(t, staff.accessToken, h, 1_000);
    const before = { payments: await countRows(t, 'payments'), entries: await countRows(t, 'ledger_entries') };

    // DESIGN §9 (issue 24.3): a conflict with the invoice's state, not a business rule: 409, never 422.
    for (const [invoiceId, status] of [
      [draft.id, 'draft'],
      [voided.id, 'void'],
      [paid.id, 'paid'],
      [writtenOff.id, 'uncollectible'],
    ] as const) {
      const res = await pay(t, staff.accessToken, { parentId: h.parent.id, invoiceId, amount: 100 });
      assertProblem(a, res, 409, 'invalid_state_transition');
      a.is(res.body.currentStatus, status);
    }
    const over = await pay(t, staff.accessToken, { parentId: h.parent.id, invoiceId: open.id, amount: 1_001 });
    assertProblem(a, over, 422, 'amount_exceeds_due');
    a.is(over.body.amountDue, 1_000);
    a.is((await getInvoice(open.id)).amountPaid, 0);
    a.deepEqual({ payments: await countRows(t, 'payments'), entries: await countRows(t, 'ledger_entries') }, before);
  },
);

test.serial('bad input is 400 with field errors and writes nothing', async (a) => {
  const invoice = await openInvoice(t, staff.accessToken, a1, 5_000);
  const eur = await openInvoice(t, staff.accessToken, a1, 5_000, { currency: 'EUR' });
  const before = await countRows(t, 'payments');
  const base = { parentId: a1.parent.id, invoiceId: invoice.id, currency: 'USD', method: 'cash', amount: 100 };
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ ...base, amount: -5 }, 'amount'],
    [{ ...base, amount: 0 }, 'amount'],
    [{ ...base, amount: 10.5 }, 'amount'],
    [{ ...base, amount: 1_000_000_000_001 }, 'amount'],
    [{ ...base, amount: '100' }, 'amount'],
    [{ ...base, currency: 'XYZ' }, 'currency'],
    [{ ...base, currency: 'usd' }, 'currency'],
    [{ ...base, currency: 'EUR' }, 'currency'],
    [{ ...base, invoiceId: eur.id }, 'currency'],
    [{ ...base, method: 'bitcoin' }, 'method'],
    [{ ...base, parentId: b1.parent.id }, 'parentId'],
    [{ ...base, locationId: b1.location.id }, 'locationId'],
    [{ ...base, surprise: true }, 'surprise'],
  ];
  for (const [body, field] of cases) {
    const res = await t.request('POST', '/v1/payments', { token: staff.accessToken, body });
    assertProblem(a, res, 400, 'validation_failed');
    assertFieldErrors(a, res);
    a.true(
      (res.body.errors as Array<{ field: string }>).some((e) => e.field === field),
      `${JSON.stringify(body)} → ${res.text}`,
    );
  }
  assertProblem(
    a,
    await t.request('POST', '/v1/payments', { token: staff.accessToken, body: { ...base, invoiceId: undefined, parentId: 'usr_ghost' } }),
    400,
    'resource_missing',
  );
  a.is(await countRows(t, 'payments'), before);
});

test('a wallet payment debits the wallet; a short balance is 422 insufficient_funds and changes nothing', async (a) => {
  const h = await moneyHousehold(t, { name: 'Wallet Pay' });
  const w = await wallet(t, staff.accessToken, h.parent.id, 5_000);
  const invoice = await openInvoice(t, staff.accessToken, h, 3_000);
  const paid = ok(a, await pay(t, staff.accessToken, { parentId: h.parent.id, invoiceId: invoice.id, amount: 3_000, method: 'wallet' }));
  a.is(paid.method, 'wallet');
  a.like((await t.request('GET', `/v1/wallets/${w.id}`, { token: staff.accessToken })).body, { balance: 2_000 });
  a.deepEqual((await journalOf(paid.id))[0]!.lines, [
    { account: `wallet:${w.id}`, amount: 3_000 },
    { account: `receivable:${h.parent.id}`, amount: -3_000 },
  ]);
  const short = await pay(t, staff.accessToken, { parentId: h.parent.id, amount: 2_001, method: 'wallet' });
  assertProblem(a, short, 422, 'insufficient_funds');
  a.is(short.body.balance, 2_000);
  // The parent's wallet is in USD: a EUR wallet payment names the wrong currency (400); a parent with no wallet has nothing (422).
  const euro = await pay(t, staff.accessToken, { parentId: h.parent.id, amount: 1, method: 'wallet', currency: 'EUR' });
  assertProblem(a, euro, 400, 'validation_failed');
  a.deepEqual(
    euro.body.errors.map((e: { field: string }) => e.field),
    ['currency'],
  );
  const walletless = await moneyHousehold(t, { name: 'No wallet' });
  assertProblem(a, await pay(t, staff.accessToken, { parentId: walletless.parent.id, amount: 1, method: 'wallet' }), 422, 'insufficient_funds');
  a.like((await t.request('GET', `/v1/wallets/${w.id}`, { token: staff.accessToken })).body, { balance: 2_000 });
  await assertBooksBalance(a, t);
});

test('the list filters by parentId, invoiceId, method and time, newest first', async (a) => {
  const h = await moneyHousehold(t, { name: 'Payment list' });
  const invoice = await openInvoice(t, staff.accessToken, h, 900);
  const one = ok(a, await pay(t, staff.accessToken, { parentId: h.parent.id, invoiceId: invoice.id, amount: 300, method: 'check' }));
  const two = ok(a, await pay(t, staff.accessToken, { parentId: h.parent.id, amount: 50 }));
  const byParent = await t.request('GET', `/v1/payments?parentId=${h.parent.id}`, { token: reader.accessToken });
  a.deepEqual(
    byParent.body.data.map((p: { id: string }) => p.id),
    [two.id, one.id],
  );
  const byInvoice = await t.request('GET', `/v1/payments?invoiceId=${invoice.id}`, { token: reader.accessToken });
  a.deepEqual(
    byInvoice.body.data.map((p: { id: string }) => p.id),
    [one.id],
  );
  const checks = await t.request('GET', `/v1/payments?parentId=${h.parent.id}&method=check`, { token: reader.accessToken });
  a.deepEqual(
    checks.body.data.map((p: { id: string }) => p.id),
    [one.id],
  );
  const future = await t.request('GET', `/v1/payments?parentId=${h.parent.id}&from=2026-11-23T15:00:00.001Z`, { token: reader.accessToken });
  a.deepEqual(future.body.data, []);
  assertProblem(a, await t.request('GET', '/v1/payments?method=barter', { token: reader.accessToken }), 400, 'validation_failed');
});

// ---------------------------------------------------------------- refunds

test('partial and full refunds: 201 with every field; never above what was paid; the invoice keeps amountRefunded', async (a) => {
  const h = await moneyHousehold(t, { name: 'Refunds' });
  const invoice = await openInvoice(t, staff.accessToken, h, 10_000);
  const payment = ok(a, await pay(t, staff.accessToken, { parentId: h.parent.id, invoiceId: invoice.id, amount: 10_000, method: 'card_terminal' }));
  const part = ok(a, await refund({ paymentId: payment.id, amount: 2_500, reason: 'Cancelled nail trim' }));
  a.deepEqual(Object.keys(part).sort(), refundKeys);
  a.regex(part.id, /^ref_[a-z0-9]{26}$/);
  a.deepEqual(part, {
    id: part.id,
    paymentId: payment.id,
    invoiceId: invoice.id,
    amount: 2_500,
    currency: 'USD',
    reason: 'Cancelled nail trim',
    status: 'succeeded',
    createdAt: new Date(start).toISOString(),
  });
  const rest = ok(a, await refund({ paymentId: payment.id }));
  a.is(rest.amount, 7_500, 'amount defaults to what is left');
  const again = await refund({ paymentId: payment.id, amount: 1 });
  assertProblem(a, again, 422, 'refund_exceeds_payment');
  a.is(again.body.amountRefundable, 0);
  assertProblem(a, await refund({ paymentId: payment.id }), 422, 'refund_exceeds_payment');
  a.like((await t.request('GET', `/v1/payments/${payment.id}`, { token: staff.accessToken })).body, { amountRefunded: 10_000 });
  a.like(await getInvoice(invoice.id), { status: 'paid', amountPaid: 10_000, amountRefunded: 10_000 });
  a.deepEqual((await journalOf(part.id))[0]!.lines, [
    { account: `receivable:${h.parent.id}`, amount: 2_500 },
    { account: 'cash:card_terminal', amount: -2_500 },
  ]);
  const created = await eventsOf(t, 'refund.created', 'refundId', part.id);
  a.deepEqual(
    created.map((e) => e.data),
    [{ refundId: part.id, paymentId: payment.id, invoiceId: invoice.id, amount: 2_500, currency: 'USD' }],
  );
  a.deepEqual((await t.request('GET', `/v1/refunds/${part.id}`, { token: reader.accessToken })).body, part);
  const list = await t.request('GET', `/v1/refunds?paymentId=${payment.id}`, { token: reader.accessToken });
  a.deepEqual(
    list.body.data.map((r: { id: string }) => r.id),
    [rest.id, part.id],
  );
  await assertBooksBalance(a, t);
});

test('refund credits reverse revenue and tax exactly; the receivable stays what is due, also after a void', async (a) => {
  const h = await moneyHousehold(t, { name: 'Credits', taxRateBps: 825 });
  // 333 + 8.25 % = 333 + 27 = 360
  const inv = ok(
    a,
    await t.request('POST', '/v1/invoices', {
      token: staff.accessToken,
      body: { parentId: h.parent.id, locationId: h.location.id, lines: [{ description: 'x', quantity: 1, unitAmount: 333 }], finalize: true },
    }),
  );
  a.is(inv.total, 360);
  const p = ok(a, await pay(t, staff.accessToken, { parentId: h.parent.id, invoiceId: inv.id, amount: 100 }));
  for (const amount of [33, 33, 34]) ok(a, await refund({ paymentId: p.id, amount }));
  // Everything paid is refunded: the open invoice may now be voided, and the books come back to zero.
  ok(a, await t.request('POST', `/v1/invoices/${inv.id}/void`, { token: staff.accessToken }), 200);
  const entries = (await t.request('GET', `/v1/ledger/entries?limit=100&sourceId=${inv.id}`, { token: admin })).body.data as Array<{
    lines: Array<{ account: string; amount: number }>;
  }>;
  const sum = (account: string) =>
    entries
      .flatMap((e) => e.lines)
      .filter((l) => l.account === account)
      .reduce((s, l) => s + l.amount, 0);
  a.is(sum(`revenue:${h.location.id}`), 0, 'revenue fully reversed');
  a.is(sum(`tax_payable:${h.location.id}`), 0, 'tax fully reversed');
  const receivable = (await t.request('GET', `/v1/ledger/entries?limit=100&account=receivable:${h.parent.id}`, { token: admin })).body.data as Array<{
    lines: Array<{ account: string; amount: number }>;
  }>;
  a.is(
    receivable
      .flatMap((e) => e.lines)
      .filter((l) => l.account === `receivable:${h.parent.id}`)
      .reduce((s, l) => s + l.amount, 0),
    0,
  );
  await assertBooksBalance(a, t);
});

test('void with money still paid is 409 invalid_state_transition (currentStatus open); once refunded it voids', async (a) => {
  const h = await moneyHousehold(t, { name: 'No void' });
  const inv = await openInvoice(t, staff.accessToken, h, 800);
  const p = ok(a, await pay(t, staff.accessToken, { parentId: h.parent.id, invoiceId: inv.id, amount: 200 }));
  const refused = await t.request('POST', `/v1/invoices/${inv.id}/void`, { token: staff.accessToken });
  assertProblem(a, refused, 409, 'invalid_state_transition');
  a.is(refused.body.currentStatus, 'open');
  a.regex(refused.body.detail, /200 USD paid and not refunded/);
  a.is((await getInvoice(inv.id)).status, 'open');
  ok(a, await refund({ paymentId: p.id }));
  a.like(ok(a, await t.request('POST', `/v1/invoices/${inv.id}/void`, { token: staff.accessToken }), 200), { status: 'void' });
  await assertBooksBalance(a, t);
});

test('an uncollectible invoice is final: a payment is 409 invalid_state_transition and the write-off stays', async (a) => {
  const h = await moneyHousehold(t, { name: 'Written off' });
  const inv = await openInvoice(t, staff.accessToken, h, 1_200);
  ok(a, await t.request('POST', `/v1/invoices/${inv.id}/mark-uncollectible`, { token: staff.accessToken }), 200);
  const res = await pay(t, staff.accessToken, { parentId: h.parent.id, invoiceId: inv.id, amount: 1_200 });
  assertProblem(a, res, 409, 'invalid_state_transition');
  a.is(res.body.currentStatus, 'uncollectible');
  a.like(await getInvoice(inv.id), { status: 'uncollectible', amountPaid: 0 });
  const entries = (await t.request('GET', `/v1/ledger/entries?limit=100&account=bad_debt:${h.location.id}`, { token: admin })).body.data as Array<{
    lines: Array<{ account: string; amount: number }>;
  }>;
  a.is(
    entries
      .flatMap((e) => e.lines)
      .filter((l) => l.account === `bad_debt:${h.location.id}`)
      .reduce((s, l) => s + l.amount, 0),
    1_200,
  );
  a.is((await t.request('GET', `/v1/payments?invoiceId=${inv.id}`, { token: staff.accessToken })).body.data.length, 0);
  await assertBooksBalance(a, t);
});

test('a wallet payment refunds to the wallet', async (a) => {
  const h = await moneyHousehold(t, { name: 'Wallet refund' });
  const w = await wallet(t, staff.accessToken, h.parent.id, 1_000);
  const p = ok(a, await pay(t, staff.accessToken, { parentId: h.parent.id, amount: 600, method: 'wallet' }));
  const r = ok(a, await refund({ paymentId: p.id, amount: 250 }));
  a.like((await t.request('GET', `/v1/wallets/${w.id}`, { token: staff.accessToken })).body, { balance: 650 });
  const tx = await t.request('GET', `/v1/wallets/${w.id}/transactions`, { token: staff.accessToken });
  a.like(tx.body.data[0], { type: 'refund', amount: 250, balanceAfter: 650, sourceId: r.id });
  a.deepEqual((await journalOf(r.id))[0]!.lines, [
    { account: `receivable:${h.parent.id}`, amount: 250 },
    { account: `wallet:${w.id}`, amount: -250 },
  ]);
  await assertBooksBalance(a, t);
});

test('bad refund input is 400; an unknown or invisible payment is 404', async (a) => {
  const p = ok(a, await pay(t, staff.accessToken, { parentId: a1.parent.id, amount: 500 }));
  for (const [body, field] of [
    [{ paymentId: p.id, amount: -1 }, 'amount'],
    [{ paymentId: p.id, amount: 0 }, 'amount'],
    [{ paymentId: p.id, amount: 1.25 }, 'amount'],
    [{ paymentId: p.id, amount: 1e13 }, 'amount'],
    [{ paymentId: 'nope' }, 'paymentId'],
    [{ amount: 10 }, 'paymentId'],
  ] as const) {
    const res = await refund(body);
    assertProblem(a, res, 400, 'validation_failed');
    a.true(
      (res.body.errors as Array<{ field: string }>).some((e) => e.field === field),
      res.text,
    );
  }
  assertProblem(a, await refund({ paymentId: 'pay_ghost' }), 404, 'not_found');
  assertProblem(a, await refund({ paymentId: p.id }, scopedB.accessToken), 404, 'not_found');
  a.is((await t.request('GET', `/v1/payments/${p.id}`, { token: staff.accessToken })).body.amountRefunded, 0);
});

// ---------------------------------------------------------------- races

test('20 parallel partial refunds summing past the payment: the accepted ones never exceed it, the rest are 422', async (a) => {
  const h = await moneyHousehold(t, { name: 'Refund race' });
  const inv = await openInvoice(t, staff.accessToken, h, 10_000);
  const p = ok(a, await pay(t, staff.accessToken, { parentId: h.parent.id, invoiceId: inv.id, amount: 10_000 }));
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => refund({ paymentId: p.id, amount: 700 }, staff.accessToken, `race-${p.id}-${i}`)));
  const accepted = results.filter((r) => r.status === 201);
  const refused = results.filter((r) => r.status !== 201);
  for (const r of refused) assertProblem(a, r, 422, 'refund_exceeds_payment');
  a.is(accepted.length, 14, '14 × 700 = 9,800 fit; a 15th would make 10,500');
  const sum = accepted.reduce((s, r) => s + (r.body.amount as number), 0);
  a.true(sum <= 10_000);
  a.like((await t.request('GET', `/v1/payments/${p.id}`, { token: staff.accessToken })).body, { amountRefunded: sum });
  a.like(await getInvoice(inv.id), { amountRefunded: sum });
  const last = await refund({ paymentId: p.id });
  a.is(last.body.amount, 10_000 - sum);
  await assertBooksBalance(a, t);
});

test('20 parallel wallet payments that together overdraw: the balance ends ≥ 0 and equals top-ups − accepted debits', async (a) => {
  const h = await moneyHousehold(t, { name: 'Wallet race' });
  const w = await wallet(t, staff.accessToken, h.parent.id, 5_000);
  const results = await Promise.all(Array.from({ length: 20 }, () => pay(t, staff.accessToken, { parentId: h.parent.id, amount: 600, method: 'wallet' })));
  const accepted = results.filter((r) => r.status === 201);
  for (const r of results.filter((x) => x.status !== 201)) assertProblem(a, r, 422, 'insufficient_funds');
  a.is(accepted.length, 8);
  const balance = (await t.request('GET', `/v1/wallets/${w.id}`, { token: staff.accessToken })).body.balance as number;
  a.is(balance, 5_000 - accepted.length * 600);
  a.true(balance >= 0);
  await assertBooksBalance(a, t);
});

// ---------------------------------------------------------------- auth, scoping, isolation, idempotency

test('401 without a token; 403 without the payments scope or with read only', async (a) => {
  assertProblem(a, await t.request('GET', '/v1/payments'), 401, 'unauthorized');
  assertProblem(a, await t.request('POST', '/v1/refunds', { body: { paymentId: 'pay_x' } }), 401, 'unauthorized');
  for (const path of ['/v1/payments', '/v1/refunds']) assertProblem(a, await t.request('GET', path, { token: doctor.accessToken }), 403, 'insufficient_scope');
  assertProblem(a, await pay(t, reader.accessToken, { parentId: a1.parent.id, amount: 1 }), 403, 'insufficient_scope');
  assertProblem(a, await refund({ paymentId: 'pay_x' }, reader.accessToken), 403, 'insufficient_scope');
});

test("another location's payments and refunds answer 404 and stay out of the lists; its invoice cannot be paid", async (a) => {
  const inv = await openInvoice(t, staff.accessToken, a1, 3_000);
  const p = ok(a, await pay(t, staff.accessToken, { parentId: a1.parent.id, invoiceId: inv.id, amount: 1_000 }));
  const r = ok(a, await refund({ paymentId: p.id, amount: 100 }));
  assertProblem(a, await t.request('GET', `/v1/payments/${p.id}`, { token: scopedB.accessToken }), 404, 'not_found');
  assertProblem(a, await t.request('GET', `/v1/refunds/${r.id}`, { token: scopedB.accessToken }), 404, 'not_found');
  assertProblem(a, await t.request('GET', `/v0/payments/${p.id}`, { token: scopedB.accessToken }), 404, 'route_not_found');
  const payments = await t.request('GET', '/v1/payments?limit=100', { token: scopedB.accessToken });
  a.false(payments.body.data.some((x: { id: string }) => x.id === p.id));
  const refunds = await t.request('GET', '/v1/refunds?limit=100', { token: scopedB.accessToken });
  a.false(refunds.body.data.some((x: { id: string }) => x.id === r.id));
  assertProblem(a, await pay(t, scopedB.accessToken, { parentId: a1.parent.id, invoiceId: inv.id, amount: 100 }), 404, 'not_found');
  assertProblem(a, await pay(t, scopedB.accessToken, { parentId: a1.parent.id, amount: 100 }), 400, 'resource_missing');
});

test('live and sandbox never see each other’s payments', async (a) => {
  const p = ok(a, await pay(t, staff.accessToken, { parentId: a1.parent.id, amount: 77 }));
  const sandbox = await t.adminToken('sandbox');
  assertProblem(a, await t.request('GET', `/v1/payments/${p.id}`, { token: sandbox }), 404, 'not_found');
  assertProblem(a, await refund({ paymentId: p.id }, sandbox), 404, 'not_found');
  const list = await t.request('GET', '/v1/payments?limit=100', { token: sandbox });
  a.false(list.body.data.some((x: { id: string }) => x.id === p.id));
});

test('Idempotency-Key: a replayed payment or refund answers the first and moves money once', async (a) => {
  const h = await moneyHousehold(t, { name: 'Replay' });
  const inv = await openInvoice(t, staff.accessToken, h, 2_000);
  const body = { parentId: h.parent.id, invoiceId: inv.id, amount: 1_500 };
  const first = await pay(t, staff.accessToken, body, `pay-${inv.id}`);
  const replay = await pay(t, staff.accessToken, body, `pay-${inv.id}`);
  a.is(replay.status, 201);
  a.is(replay.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(replay.body, first.body);
  a.like(await getInvoice(inv.id), { amountPaid: 1_500 });
  a.is((await eventsOf(t, 'payment.completed', 'paymentId', first.body.id)).length, 1);
  const r1 = await refund({ paymentId: first.body.id, amount: 500 }, staff.accessToken, `ref-${inv.id}`);
  const r2 = await refund({ paymentId: first.body.id, amount: 500 }, staff.accessToken, `ref-${inv.id}`);
  a.deepEqual(r2.body, r1.body);
  a.is(r2.headers.get('idempotent-replayed'), 'true');
  a.like((await t.request('GET', `/v1/payments/${first.body.id}`, { token: staff.accessToken })).body, { amountRefunded: 500 });
  assertProblem(a, await refund({ paymentId: first.body.id, amount: 400 }, staff.accessToken, `ref-${inv.id}`), 422, 'idempotency_key_mismatch');
});

// ---------------------------------------------------------------- the deprecated twin

test('GET /v0/payments answers like /v1/payments plus Deprecation, Sunset and Link', async (a) => {
  const h = await moneyHousehold(t, { name: 'Twin' });
  ok(a, await pay(t, staff.accessToken, { parentId: h.parent.id, amount: 123 }));
  const v1 = await t.request('GET', `/v1/payments?parentId=${h.parent.id}`, { token: reader.accessToken });
  const v0 = await t.request('GET', `/v0/payments?parentId=${h.parent.id}`, { token: reader.accessToken });
  a.is(v0.status, 200);
  a.deepEqual(v0.body, v1.body);
  a.is(v0.headers.get('content-type'), v1.headers.get('content-type'));
  a.regex(v0.headers.get('deprecation') ?? '', /^@\d+$/);
  a.is(Number((v0.headers.get('deprecation') ?? '@0').slice(1)) * 1000, Date.parse('2026-06-01T00:00:00Z'));
  a.is(v0.headers.get('sunset'), 'Tue, 01 Dec 2026 00:00:00 GMT');
  a.is(v0.headers.get('link'), '</v1/payments>; rel="successor-version"');
  a.is(v1.headers.get('deprecation'), null);
  assertProblem(a, await t.request('GET', '/v0/payments'), 401, 'unauthorized');
  assertProblem(a, await t.request('GET', '/v0/payments', { token: doctor.accessToken }), 403, 'insufficient_scope');
  const scoped = await t.request('GET', '/v0/payments?limit=100', { token: scopedB.accessToken });
  a.false(scoped.body.data.some((x: { parentId: string }) => x.parentId === h.parent.id));
});

test('from the sunset instant on, GET /v0/payments answers 410 gone with the same headers', async (a) => {
  const sunset = Date.parse('2026-12-01T00:00:00.000Z');
  const app = await startTestApp({ clock: new TestClock(sunset - 60_000), jobs: false });
  try {
    const token = await app.adminToken();
    app.clock.set(sunset - 1);
    a.is((await app.request('GET', '/v0/payments', { token })).status, 200);
    app.clock.set(sunset);
    const gone = await app.request('GET', '/v0/payments', { token });
    assertProblem(a, gone, 410, 'gone', '/v0/payments');
    a.is(gone.headers.get('sunset'), 'Tue, 01 Dec 2026 00:00:00 GMT');
    a.is(gone.headers.get('link'), '</v1/payments>; rel="successor-version"');
    a.is((await app.request('GET', '/v1/payments', { token })).status, 200);
  } finally {
    await app.close();
  }
});
