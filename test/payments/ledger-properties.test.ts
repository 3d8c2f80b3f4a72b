import test, { type ExecutionContext } from 'ava';
import fc from 'fast-check';
import { sql } from 'kysely';
import { TestClock, type Response, useTestApp } from '../helpers/test-app.js';
import { moneyHousehold, type Household } from './payments-support.js';

/**
 * Property: random sequences of invoices, payments (cash and wallet), refunds, top-ups, voids and
 * write-offs leave the books consistent after every step — every journal entry sums to zero,
 * every wallet balance equals its transactions (and its journal account), every invoice's amounts
 * equal its payments and refunds, and each parent's receivable equals what is still due.
 * Seeded: PROPERTY_SEED reproduces a run (fast-check prints the seed and path of a failure).
 */
const seed = Number(process.env.PROPERTY_SEED ?? 20_261_123);

type Command =
  | { kind: 'invoice'; amount: number; bps: number; finalize: boolean }
  | { kind: 'finalize'; pick: number }
  | { kind: 'pay'; pick: number; share: number; wallet: boolean }
  | { kind: 'payOnAccount'; amount: number; wallet: boolean }
  | { kind: 'refund'; pick: number; share: number }
  | { kind: 'topUp'; amount: number }
  | { kind: 'void'; pick: number }
  | { kind: 'writeOff'; pick: number };

const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('invoice' as const),
      amount: fc.integer({ min: 0, max: 50_000 }),
      bps: fc.constantFrom(0, 1, 825, 2000, 9999),
      finalize: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('finalize' as const), pick: fc.nat() }) },
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('pay' as const), pick: fc.nat(), share: fc.double({ min: 0.01, max: 1.2, noNaN: true }), wallet: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('payOnAccount' as const), amount: fc.integer({ min: 1, max: 20_000 }), wallet: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('refund' as const), pick: fc.nat(), share: fc.double({ min: 0.01, max: 1.2, noNaN: true }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('topUp' as const), amount: fc.integer({ min: 1, max: 30_000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('void' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('writeOff' as const), pick: fc.nat() }) },
);

let token: string;

// Thousands of calls in a minute of test time: the rate limit is not what this test is about.
const t = useTestApp(test, { clock: new TestClock(Date.parse('2026-11-23T15:00:00.000Z')), jobs: false, config: { rateLimitPerMinute: 10_000_000 } });
test.before(async () => {
  token = await t.adminToken();
});

const pick = <T>(list: T[], n: number): T | undefined => (list.length ? list[n % list.length] : undefined);

/** What a step may answer: success, or a stable business refusal — never a 5xx or a validation error of our own making. */
function expectAnswer(res: Response, what: string): void {
  if ([200, 201].includes(res.status)) return;
  const refusals = ['amount_exceeds_due', 'insufficient_funds', 'refund_exceeds_payment', 'invalid_state_transition'];
  if ((res.status === 422 || res.status === 409) && refusals.includes(res.body?.code)) return;
  throw new Error(`${what}: unexpected ${res.status} ${res.text}`);
}

async function step(h: Household, state: { invoices: string[]; payments: string[]; wallet: string }, c: Command): Promise<void> {
  const req = (method: string, path: string, body?: unknown) => t.request(method, path, { token, ...(body === undefined ? {} : { body }) });
  switch (c.kind) {
    case 'invoice': {
      const res = await req('POST', '/v1/invoices', {
        parentId: h.parent.id,
        locationId: h.location.id,
        lines: [{ description: 'x', quantity: 1, unitAmount: c.amount, taxRateBps: c.bps }],
        finalize: c.finalize,
      });
      expectAnswer(res, 'invoice');
      state.invoices.push(res.body.id);
      return;
    }
    case 'finalize': {
      const id = pick(state.invoices, c.pick);
      if (id) expectAnswer(await req('POST', `/v1/invoices/${id}/finalize`), 'finalize');
      return;
    }
    case 'pay': {
      const id = pick(state.invoices, c.pick);
      if (!id) return;
      const invoice = (await req('GET', `/v1/invoices/${id}`)).body;
      const amount = Math.max(1, Math.round(invoice.amountDue * c.share));
      const res = await req('POST', '/v1/payments', { parentId: h.parent.id, invoiceId: id, amount, currency: 'USD', method: c.wallet ? 'wallet' : 'cash' });
      expectAnswer(res, 'pay');
      if (res.status === 201) state.payments.push(res.body.id);
      return;
    }
    case 'payOnAccount': {
      const res = await req('POST', '/v1/payments', { parentId: h.parent.id, amount: c.amount, currency: 'USD', method: c.wallet ? 'wallet' : 'check' });
      expectAnswer(res, 'payOnAccount');
      if (res.status === 201) state.payments.push(res.body.id);
      return;
    }
    case 'refund': {
      const id = pick(state.payments, c.pick);
      if (!id) return;
      const payment = (await req('GET', `/v1/payments/${id}`)).body;
      const amount = Math.max(1, Math.round((payment.amount - payment.amountRefunded) * c.share));
      expectAnswer(await req('POST', '/v1/refunds', { paymentId: id, amount }), 'refund');
      return;
    }
    case 'topUp':
      expectAnswer(await req('POST', `/v1/wallets/${state.wallet}/top-ups`, { amount: c.amount, method: 'cash' }), 'topUp');
      return;
    case 'void': {
      const id = pick(state.invoices, c.pick);
      if (id) expectAnswer(await req('POST', `/v1/invoices/${id}/void`), 'void');
      return;
    }
    case 'writeOff': {
      const id = pick(state.invoices, c.pick);
      if (id) expectAnswer(await req('POST', `/v1/invoices/${id}/mark-uncollectible`), 'writeOff');
      return;
    }
  }
}

/** The invariants, read straight from the database; returns the first broken one, or null. */
async function brokenInvariant(parentId: string): Promise<string | null> {
  const db = t.stores.get('live').db;
  const unbalanced = await sql<{ entry_id: string }>`SELECT entry_id FROM ledger_lines GROUP BY entry_id HAVING sum(amount) <> 0 OR count(*) < 2`.execute(db);
  if (unbalanced.rows.length) return `unbalanced journal entries ${unbalanced.rows.map((r) => r.entry_id).join(', ')}`;
  const wallets = await sql<{ id: string; balance: number; tx: number; journal: number }>`
    SELECT w.id, w.balance,
      (SELECT coalesce(sum(amount), 0) FROM wallet_transactions WHERE wallet_id = w.id) AS tx,
      (SELECT coalesce(-sum(amount), 0) FROM ledger_lines WHERE account = 'wallet:' || w.id) AS journal
    FROM wallets w`.execute(db);
  for (const w of wallets.rows) {
    if (w.balance < 0 || w.balance !== w.tx || w.balance !== w.journal)
      return `wallet ${w.id}: balance ${w.balance}, transactions ${w.tx}, journal ${w.journal}`;
  }
  const invoices = await sql<{ id: string; status: string; total: number; amount_paid: number; amount_refunded: number; paid: number; refunded: number }>`
    SELECT i.id, i.status, i.total, i.amount_paid, i.amount_refunded,
      (SELECT coalesce(sum(amount), 0) FROM payments WHERE invoice_id = i.id) AS paid,
      (SELECT coalesce(sum(amount), 0) FROM refunds WHERE invoice_id = i.id) AS refunded
    FROM invoices i`.execute(db);
  for (const i of invoices.rows) {
    if (i.amount_paid !== i.paid || i.amount_refunded !== i.refunded)
      return `invoice ${i.id}: amountPaid ${i.amount_paid} vs payments ${i.paid}, amountRefunded ${i.amount_refunded} vs refunds ${i.refunded}`;
    if (i.status === 'paid' && i.amount_paid !== i.total) return `invoice ${i.id} paid with ${i.amount_paid} of ${i.total}`;
    if (i.amount_paid > i.total || i.amount_refunded > i.amount_paid) return `invoice ${i.id} overpaid or overrefunded`;
  }
  const payments = await sql<{ id: string; amount: number; amount_refunded: number; refunded: number }>`
    SELECT p.id, p.amount, p.amount_refunded, (SELECT coalesce(sum(amount), 0) FROM refunds WHERE payment_id = p.id) AS refunded FROM payments p`.execute(db);
  for (const p of payments.rows) {
    if (p.amount_refunded !== p.refunded || p.refunded > p.amount)
      return `payment ${p.id}: amountRefunded ${p.amount_refunded}, refunds ${p.refunded}, amount ${p.amount}`;
  }
  // What the parent owes by the journal = open invoices' amountDue − money held on account.
  const receivable = await sql<{ journal: number; due: number; onAccount: number }>`
    SELECT
      (SELECT coalesce(sum(amount), 0) FROM ledger_lines WHERE account = ${`receivable:${parentId}`}) AS journal,
      (SELECT coalesce(sum(total - amount_paid), 0) FROM invoices WHERE parent_id = ${parentId} AND status = 'open') AS due,
      (SELECT coalesce(sum(amount - amount_refunded), 0) FROM payments WHERE parent_id = ${parentId} AND invoice_id IS NULL) AS onAccount`.execute(db);
  const r = receivable.rows[0]!;
  if (r.journal !== r.due - r.onAccount) return `receivable ${parentId}: journal ${r.journal}, open due ${r.due} − on account ${r.onAccount}`;
  return null;
}

test('after every step of random money histories the books balance', async (a: ExecutionContext) => {
  let runs = 0;
  // The first broken invariant, named plainly: fast-check's report leads with the (long) counterexample.
  let firstFailure: string | undefined;
  await fc
    .assert(
      fc.asyncProperty(fc.array(command, { minLength: 12, maxLength: 30 }), async (commands) => {
        runs++;
        const h = await moneyHousehold(t, { name: `Property ${runs}` });
        const wallet = await t.request('POST', '/v1/wallets', { token, body: { parentId: h.parent.id, currency: 'USD' } });
        const state = { invoices: [] as string[], payments: [] as string[], wallet: wallet.body.id as string };
        for (const [i, c] of commands.entries()) {
          try {
            await step(h, state, c);
          } catch (err) {
            firstFailure ??= `step ${i} (${JSON.stringify(c)}): ${String(err)}`;
            throw err;
          }
          const broken = await brokenInvariant(h.parent.id);
          if (broken) {
            firstFailure ??= `after step ${i} (${JSON.stringify(c)}): ${broken}`;
            throw new Error(firstFailure);
          }
        }
      }),
      { seed, numRuns: 40, endOnFailure: true },
    )
    .catch((err: unknown) => {
      throw new Error(`${firstFailure ?? 'a step failed'}\n${String(err)}`);
    });
  a.true(runs >= 40);
  // The histories did exercise the ledger: a property that never paid or refunded proves nothing.
  const db = t.stores.get('live').db;
  const count = async (table: 'payments' | 'refunds' | 'wallet_transactions') => (await db.selectFrom(table).select('id').execute()).length;
  const statuses = new Set((await db.selectFrom('invoices').select('status').execute()).map((r) => r.status));
  a.log({
    payments: await count('payments'),
    refunds: await count('refunds'),
    walletTransactions: await count('wallet_transactions'),
    statuses: [...statuses],
  });
  a.true((await count('payments')) >= 20);
  a.true((await count('refunds')) >= 10);
  a.true(statuses.size >= 4, `invoice states reached: ${[...statuses].join(', ')}`);
});
