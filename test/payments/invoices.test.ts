import test from 'ava';
import { TestClock, type TokenSet, useTestApp } from '../helpers/test-app.js';
import { assertFieldErrors, assertProblem } from '../gateway/gateway-support.js';
import { assertBooksBalance, countRows, eventsOf, line, moneyHousehold, type Household } from './payments-support.js';

/** POST/GET/PATCH /v1/invoices, finalize, void, mark-uncollectible, and the journal they post. */
const invoiceKeys = [
  'id',
  'number',
  'status',
  'parentId',
  'petId',
  'locationId',
  'currency',
  'lines',
  'subtotal',
  'tax',
  'total',
  'amountPaid',
  'amountRefunded',
  'amountDue',
  'dueOn',
  'createdAt',
  'finalizedAt',
  'paidAt',
  'voidedAt',
].sort();
const lineKeys = ['id', 'description', 'quantity', 'unitAmount', 'amount', 'taxRateBps', 'taxAmount', 'sourceId'].sort();

const start = Date.parse('2026-11-23T15:00:00.000Z');
let admin: string;
let staff: TokenSet; // staff, payments
let reader: TokenSet; // staff, payments.read
let doctor: TokenSet; // no payments scope
let scopedB: TokenSet; // staff, payments, location B only
let a1: Household;
let b1: Household;

const t = useTestApp(test, { clock: new TestClock(start) });
test.before(async () => {
  admin = await t.adminToken();
  a1 = await moneyHousehold(t, { name: 'Downtown Clinic' });
  b1 = await moneyHousehold(t, { name: 'Bay Side', currency: 'EUR', taxRateBps: 2000 });
  [staff, reader, doctor, scopedB] = await Promise.all([
    t.client({ name: 'front desk', role: 'staff', scopes: ['payments'] }),
    t.client({ name: 'reader', role: 'staff', scopes: ['payments.read'] }),
    t.client({ name: 'doctor', role: 'doctor', scopes: ['pets', 'medical'] }),
    t.client({ name: 'B only', role: 'staff', scopes: ['payments'], locationIds: [b1.location.id] }),
  ]);
});

const db = () => t.stores.get('live').db;
const create = (body: Record<string, unknown>, token = staff.accessToken, idempotencyKey?: string) =>
  t.request('POST', '/v1/invoices', {
    token,
    body: { parentId: a1.parent.id, locationId: a1.location.id, ...body },
    ...(idempotencyKey ? { idempotencyKey } : {}),
  });
const act = (id: string, action: string, token = staff.accessToken) => t.request('POST', `/v1/invoices/${id}/${action}`, { token });

async function entriesFor(sourceId: string) {
  const res = await t.request('GET', `/v1/ledger/entries?sourceId=${sourceId}`, { token: admin });
  if (res.status !== 200) throw new Error(res.text);
  return res.body.data as Array<{ sourceType: string; memo: string; currency: string; lines: Array<{ account: string; amount: number }> }>;
}

// ---------------------------------------------------------------- happy path

test('a draft: 201 with every field; line tax rounds half up per line; the location’s rate and currency by default', async (a) => {
  const res = await create({
    petId: a1.pet.id,
    dueOn: '2026-12-15',
    lines: [
      { description: 'Consultation', quantity: 1, unitAmount: 1999 }, // 1999 × 8.25 % = 164.9175 → 165
      { description: 'Vaccine', quantity: 2, unitAmount: 1000, taxRateBps: 25, sourceId: 'bkg_demo' }, // 2000 × 0.25 % = 5
      { description: 'Half cent', quantity: 1, unitAmount: 200, taxRateBps: 25 }, // 0.5 → 1 (half up)
      { description: 'Below half', quantity: 1, unitAmount: 100, taxRateBps: 49 }, // 0.49 → 0
      { description: 'Free', quantity: 3, unitAmount: 0 },
    ],
  });
  a.is(res.status, 201, res.text);
  a.deepEqual(Object.keys(res.body).sort(), invoiceKeys);
  for (const l of res.body.lines) a.deepEqual(Object.keys(l).sort(), lineKeys);
  a.regex(res.body.id, /^inv_[a-z0-9]{26}$/);
  a.like(res.body, {
    number: null,
    status: 'draft',
    parentId: a1.parent.id,
    petId: a1.pet.id,
    locationId: a1.location.id,
    currency: 'USD',
    subtotal: 4299,
    tax: 171,
    total: 4470,
    amountPaid: 0,
    amountRefunded: 0,
    amountDue: 4470,
    dueOn: '2026-12-15',
    createdAt: new Date(start).toISOString(),
    finalizedAt: null,
    paidAt: null,
    voidedAt: null,
  });
  a.deepEqual(
    res.body.lines.map((l: Record<string, unknown>) => [l.quantity, l.unitAmount, l.amount, l.taxRateBps, l.taxAmount, l.sourceId]),
    [
      [1, 1999, 1999, 825, 165, null],
      [2, 1000, 2000, 25, 5, 'bkg_demo'],
      [1, 200, 200, 25, 1, null],
      [1, 100, 100, 49, 0, null],
      [3, 0, 0, 825, 0, null],
    ],
  );
  const byId = await t.request('GET', `/v1/invoices/${res.body.id}`, { token: reader.accessToken });
  a.deepEqual(byId.body, res.body);
  // A draft moves no money and announces nothing.
  a.deepEqual(await entriesFor(res.body.id), []);
  a.deepEqual(await eventsOf(t, 'invoice.finalized', 'invoiceId', res.body.id), []);
});

test('finalize: a gapless number per location, receivable against revenue and tax, invoice.finalized', async (a) => {
  const h = await moneyHousehold(t, { name: 'Northgate Animal Hospital' });
  const other = await moneyHousehold(t, { name: 'Other Place' });
  const body = { parentId: h.parent.id, locationId: h.location.id, lines: [line(10_000)] };
  const first = await create(body);
  const fin = await act(first.body.id, 'finalize');
  a.is(fin.status, 200, fin.text);
  a.like(fin.body, { status: 'open', number: 'NAH-000001', total: 10_825, tax: 825, amountDue: 10_825, finalizedAt: new Date(start).toISOString() });
  const second = await create({ ...body, finalize: true });
  a.is(second.status, 201, second.text);
  a.is(second.body.number, 'NAH-000002');
  const elsewhere = await create({ parentId: other.parent.id, locationId: other.location.id, lines: [line(500)], finalize: true });
  a.is(elsewhere.body.number, 'OP-000001');

  const [entry] = await entriesFor(first.body.id);
  a.like(entry, { sourceType: 'invoice', currency: 'USD' });
  a.deepEqual(entry!.lines, [
    { account: `receivable:${h.parent.id}`, amount: 10_825 },
    { account: `revenue:${h.location.id}`, amount: -10_000 },
    { account: `tax_payable:${h.location.id}`, amount: -825 },
  ]);
  const events = await eventsOf(t, 'invoice.finalized', 'invoiceId', first.body.id);
  a.is(events.length, 1);
  a.deepEqual(events[0]!.data, {
    invoiceId: first.body.id,
    number: 'NAH-000001',
    parentId: h.parent.id,
    locationId: h.location.id,
    total: 10_825,
    amountDue: 10_825,
    currency: 'USD',
  });
  await assertBooksBalance(a, t);
});

test('parallel finalizations at one location take consecutive numbers, with no gap and no repeat', async (a) => {
  const h = await moneyHousehold(t, { name: 'Parallel Vets' });
  const drafts = [];
  for (let i = 0; i < 12; i++) drafts.push((await create({ parentId: h.parent.id, locationId: h.location.id, lines: [line(100 + i)] })).body.id as string);
  const results = await Promise.all(drafts.map((id) => act(id, 'finalize')));
  for (const r of results) a.is(r.status, 200, r.text);
  const numbers = results.map((r) => r.body.number as string).sort();
  a.deepEqual(
    numbers,
    Array.from({ length: 12 }, (_, i) => `PV-${String(i + 1).padStart(6, '0')}`),
  );
});

test('a total of 0 finalizes straight to paid and emits invoice.finalized and invoice.paid', async (a) => {
  const res = await create({ lines: [{ description: 'Free check', quantity: 1, unitAmount: 0 }], finalize: true });
  a.is(res.status, 201, res.text);
  a.like(res.body, { status: 'paid', total: 0, amountDue: 0, paidAt: new Date(start).toISOString() });
  a.regex(res.body.number, /^DC-\d{6}$/);
  a.is((await eventsOf(t, 'invoice.finalized', 'invoiceId', res.body.id)).length, 1);
  a.is((await eventsOf(t, 'invoice.paid', 'invoiceId', res.body.id)).length, 1);
  a.deepEqual(await entriesFor(res.body.id), [], 'nothing moved');
});

test('PATCH edits a draft (lines replaced, totals recomputed); once finalized every edit is 409', async (a) => {
  const draft = await create({ lines: [line(1000), line(2000)] });
  const patched = await t.request('PATCH', `/v1/invoices/${draft.body.id}`, {
    token: staff.accessToken,
    body: { lines: [line(3000, 2, { taxRateBps: 1000 })], dueOn: '2027-01-31' },
  });
  a.is(patched.status, 200, patched.text);
  a.like(patched.body, { status: 'draft', subtotal: 6000, tax: 600, total: 6600, dueOn: '2027-01-31' });
  a.is(patched.body.lines.length, 1);
  a.deepEqual((await t.request('GET', `/v1/invoices/${draft.body.id}`, { token: staff.accessToken })).body, patched.body);

  await act(draft.body.id, 'finalize');
  const late = await t.request('PATCH', `/v1/invoices/${draft.body.id}`, { token: staff.accessToken, body: { lines: [line(1)] } });
  assertProblem(a, late, 409, 'invalid_state_transition');
  a.is(late.body.currentStatus, 'open');
  a.is((await t.request('GET', `/v1/invoices/${draft.body.id}`, { token: staff.accessToken })).body.total, 6600);
});

test('forbidden moves answer 409 invalid_state_transition with the current status', async (a) => {
  const draft = await create({ lines: [line(500)] });
  assertProblem(a, await act(draft.body.id, 'void'), 409, 'invalid_state_transition');
  assertProblem(a, await act(draft.body.id, 'mark-uncollectible'), 409, 'invalid_state_transition');
  await act(draft.body.id, 'finalize');
  const again = await act(draft.body.id, 'finalize');
  assertProblem(a, again, 409, 'invalid_state_transition');
  a.is(again.body.currentStatus, 'open');
  const voided = await act(draft.body.id, 'void');
  a.is(voided.status, 200, voided.text);
  a.like(voided.body, { status: 'void', amountDue: 0, voidedAt: new Date(start).toISOString() });
  for (const action of ['void', 'finalize', 'mark-uncollectible']) {
    const res = await act(draft.body.id, action);
    assertProblem(a, res, 409, 'invalid_state_transition');
    a.is(res.body.currentStatus, 'void');
  }
});

test('void reverses the invoice in the journal; uncollectible writes it off to bad debt', async (a) => {
  const h = await moneyHousehold(t, { name: 'Write Off' });
  const toVoid = await create({ parentId: h.parent.id, locationId: h.location.id, lines: [line(1000)], finalize: true });
  await act(toVoid.body.id, 'void');
  const voidEntries = await entriesFor(toVoid.body.id);
  a.is(voidEntries.length, 2);
  a.deepEqual(voidEntries[0]!.lines, [
    { account: `revenue:${h.location.id}`, amount: 1000 },
    { account: `tax_payable:${h.location.id}`, amount: 83 },
    { account: `receivable:${h.parent.id}`, amount: -1083 },
  ]);
  const bad = await create({ parentId: h.parent.id, locationId: h.location.id, lines: [line(2000)], finalize: true });
  const res = await act(bad.body.id, 'mark-uncollectible');
  a.is(res.status, 200, res.text);
  a.like(res.body, { status: 'uncollectible', amountDue: 2165 });
  const [writeOff] = await entriesFor(bad.body.id);
  a.deepEqual(writeOff!.lines, [
    { account: `bad_debt:${h.location.id}`, amount: 2165 },
    { account: `receivable:${h.parent.id}`, amount: -2165 },
  ]);
  const receivable = await t.request('GET', `/v1/ledger/entries?account=receivable:${h.parent.id}&limit=100`, { token: admin });
  const balance = (receivable.body.data as Array<{ lines: Array<{ account: string; amount: number }> }>)
    .flatMap((e) => e.lines)
    .filter((l) => l.account === `receivable:${h.parent.id}`)
    .reduce((s, l) => s + l.amount, 0);
  a.is(balance, 0, 'nothing is receivable from a voided or written-off invoice');
  await assertBooksBalance(a, t);
});

test('the list filters by status, parentId, locationId and creation time, newest first', async (a) => {
  const h = await moneyHousehold(t, { name: 'Listing' });
  const one = await create({ parentId: h.parent.id, locationId: h.location.id, lines: [line(100)] });
  const two = await create({ parentId: h.parent.id, locationId: h.location.id, lines: [line(200)], finalize: true });
  const all = await t.request('GET', `/v1/invoices?locationId=${h.location.id}`, { token: reader.accessToken });
  a.deepEqual(
    all.body.data.map((i: { id: string }) => i.id),
    [two.body.id, one.body.id],
  );
  const open = await t.request('GET', `/v1/invoices?parentId=${h.parent.id}&status=open`, { token: reader.accessToken });
  a.deepEqual(
    open.body.data.map((i: { id: string }) => i.id),
    [two.body.id],
  );
  const later = await t.request('GET', `/v1/invoices?locationId=${h.location.id}&from=2026-11-24`, { token: reader.accessToken });
  a.deepEqual(later.body.data, []);
  const today = await t.request('GET', `/v1/invoices?locationId=${h.location.id}&from=2026-11-23&to=2026-11-23`, { token: reader.accessToken });
  a.is(today.body.data.length, 2);
  assertProblem(a, await t.request('GET', '/v1/invoices?status=paidish', { token: reader.accessToken }), 400, 'validation_failed');
  assertProblem(a, await t.request('GET', '/v1/invoices?from=2026-02-30', { token: reader.accessToken }), 400, 'validation_failed');
});

// ---------------------------------------------------------------- validation

test.serial('bad input is 400 with field errors and writes nothing', async (a) => {
  const before = await countRows(t, 'invoices');
  const ok = [line(100)];
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ lines: [line(100, 0)] }, 'lines[0].quantity'],
    [{ lines: [line(100, 1.5)] }, 'lines[0].quantity'],
    [{ lines: [line(-1)] }, 'lines[0].unitAmount'],
    [{ lines: [line(10.5)] }, 'lines[0].unitAmount'],
    [{ lines: [line(1_000_000_000_001)] }, 'lines[0].unitAmount'],
    [{ lines: [line(1_000_000_000, 1001)] }, 'lines[0].unitAmount'],
    [{ lines: [line(100, 1, { taxRateBps: 10_001 })] }, 'lines[0].taxRateBps'],
    [{ lines: [] }, 'lines'],
    [{ lines: ok, currency: 'XYZ' }, 'currency'],
    [{ lines: ok, currency: 'usd' }, 'currency'],
    [{ lines: ok, dueOn: '2026-02-30' }, 'dueOn'],
    [{ lines: ok, parentId: 'not-a-parent' }, 'parentId'],
    [{ lines: ok, extra: 1 }, 'extra'],
  ];
  for (const [body, field] of cases) {
    const res = await create(body);
    assertProblem(a, res, 400, 'validation_failed');
    assertFieldErrors(a, res);
    a.true(
      (res.body.errors as Array<{ field: string }>).some((e) => e.field === field),
      `${JSON.stringify(body)} → ${res.text}`,
    );
  }
  const missing = await create({ lines: ok, parentId: 'usr_ghost' });
  assertProblem(a, missing, 400, 'resource_missing');
  const otherParentsPet = await create({ lines: ok, petId: b1.pet.id });
  a.is(otherParentsPet.status, 400);
  a.is(await countRows(t, 'invoices'), before, 'nothing written');
});

// ---------------------------------------------------------------- auth, scoping, isolation

test('401 without a token, 403 without the payments scope or with read only', async (a) => {
  assertProblem(a, await t.request('POST', '/v1/invoices', { body: { lines: [line(1)] } }), 401, 'unauthorized');
  assertProblem(a, await t.request('GET', '/v1/invoices', {}), 401, 'unauthorized');
  assertProblem(a, await t.request('GET', '/v1/invoices', { token: doctor.accessToken }), 403, 'insufficient_scope');
  assertProblem(a, await create({ lines: [line(1)] }, reader.accessToken), 403, 'insufficient_scope');
  const draft = await create({ lines: [line(1)] });
  assertProblem(a, await act(draft.body.id, 'finalize', reader.accessToken), 403, 'insufficient_scope');
  assertProblem(a, await t.request('GET', '/v1/ledger/entries', { token: staff.accessToken }), 403, 'forbidden_role');
});

test("another location's invoice answers 404 to a location-scoped client; its list leaves it out", async (a) => {
  const inA = await create({ lines: [line(700)], finalize: true });
  for (const [method, path] of [
    ['GET', `/v1/invoices/${inA.body.id}`],
    ['PATCH', `/v1/invoices/${inA.body.id}`],
    ['POST', `/v1/invoices/${inA.body.id}/finalize`],
    ['POST', `/v1/invoices/${inA.body.id}/void`],
    ['POST', `/v1/invoices/${inA.body.id}/mark-uncollectible`],
  ] as const) {
    const res = await t.request(method, path, { token: scopedB.accessToken, ...(method === 'PATCH' ? { body: { dueOn: null } } : {}) });
    assertProblem(a, res, 404, 'not_found');
  }
  const list = await t.request('GET', '/v1/invoices?limit=100', { token: scopedB.accessToken });
  a.false(list.body.data.some((i: { locationId: string }) => i.locationId !== b1.location.id));
  const ownCreate = await create({ parentId: b1.parent.id, locationId: b1.location.id, lines: [line(1000)] }, scopedB.accessToken);
  a.is(ownCreate.status, 201, ownCreate.text);
  a.like(ownCreate.body, { currency: 'EUR', tax: 200 });
  assertProblem(a, await create({ lines: [line(1)] }, scopedB.accessToken), 400, 'resource_missing');
  // The scoped admin's journal view is confined too.
  const scopedAdmin = await t.client({ name: 'B admin', role: 'admin', scopes: ['payments'], locationIds: [b1.location.id] });
  const journal = await t.request('GET', `/v1/ledger/entries?sourceId=${inA.body.id}`, { token: scopedAdmin.accessToken });
  a.deepEqual(journal.body.data, []);
});

test('live and sandbox never see each other’s invoices', async (a) => {
  const live = await create({ lines: [line(300)] });
  const sandbox = await t.adminToken('sandbox');
  assertProblem(a, await t.request('GET', `/v1/invoices/${live.body.id}`, { token: sandbox }), 404, 'not_found');
  const list = await t.request('GET', '/v1/invoices', { token: sandbox });
  a.false(list.body.data.some((i: { id: string }) => i.id === live.body.id));
});

// ---------------------------------------------------------------- idempotency and events

test.serial('Idempotency-Key: a replay answers the first invoice and creates no second one; the event is written once', async (a) => {
  const before = await countRows(t, 'invoices');
  const body = { lines: [line(4200)], finalize: true };
  const first = await create(body, staff.accessToken, 'inv-once');
  a.is(first.status, 201);
  const replay = await create(body, staff.accessToken, 'inv-once');
  a.is(replay.status, 201);
  a.is(replay.headers.get('idempotent-replayed'), 'true');
  a.deepEqual(replay.body, first.body);
  a.is(await countRows(t, 'invoices'), before + 1);
  a.is((await eventsOf(t, 'invoice.finalized', 'invoiceId', first.body.id)).length, 1);
  assertProblem(a, await create({ ...body, lines: [line(4300)] }, staff.accessToken, 'inv-once'), 422, 'idempotency_key_mismatch');
});

// ---------------------------------------------------------------- the database's own rules

test('the database refuses to rewrite a finalized invoice or its lines, or to touch the journal', async (a) => {
  const inv = await create({ lines: [line(900)], finalize: true });
  const id = inv.body.id as string;
  await a.throwsAsync(db().updateTable('invoices').set({ total: 1, subtotal: 1, tax: 0 }).where('id', '=', id).execute(), { message: /immutable/ });
  await a.throwsAsync(db().updateTable('invoice_lines').set({ description: 'edited' }).where('invoice_id', '=', id).execute(), { message: /immutable/ });
  await a.throwsAsync(db().deleteFrom('invoice_lines').where('invoice_id', '=', id).execute(), { message: /immutable/ });
  await a.throwsAsync(db().deleteFrom('invoices').where('id', '=', id).execute(), { message: /never deleted/ });
  await a.throwsAsync(
    db()
      .updateTable('ledger_lines')
      .set({ amount: 1 })
      .where('entry_id', 'in', db().selectFrom('ledger_entries').select('id').where('source_id', '=', id))
      .execute(),
    {
      message: /append-only/,
    },
  );
  await a.throwsAsync(db().deleteFrom('ledger_entries').where('source_id', '=', id).execute(), { message: /append-only/ });
  // An unbalanced entry never gets in, even written by hand.
  await a.throwsAsync(
    db()
      .transaction()
      .execute(async (trx) => {
        await trx
          .insertInto('ledger_lines')
          .values([
            { entry_id: 'je_manual', position: 0, tenant_id: t.tenantId, account: 'cash:cash', amount: 100 },
            { entry_id: 'je_manual', position: 1, tenant_id: t.tenantId, account: 'revenue:x', amount: -99 },
          ])
          .execute();
        await trx
          .insertInto('ledger_entries')
          .values({
            id: 'je_manual',
            tenant_id: t.tenantId,
            location_id: null,
            source_type: 'manual',
            source_id: 'x',
            currency: 'USD',
            memo: 'x',
            created_at: new Date(start).toISOString(),
          })
          .execute();
      }),
    { message: /balance/ },
  );
  const after = await t.request('GET', `/v1/invoices/${id}`, { token: staff.accessToken });
  a.deepEqual(after.body, inv.body);
});
