import type { ExecutionContext } from 'ava';
import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import type { Response, TestApp } from '../helpers/test-app.js';

/** Helpers of the payments tests: households with a currency and a tax rate, invoices, and ledger checks. */

export interface Household {
  location: { id: string; name: string };
  parent: { id: string };
  pet: { id: string };
}

export async function moneyHousehold(t: TestApp, location: Record<string, unknown> = {}): Promise<Household> {
  const loc = await createLocation(t, { currency: 'USD', taxRateBps: 825, ...location });
  const parent = await createPetParent(t, loc.id);
  const pet = await createPet(t, parent.id, loc.id);
  return { location: loc, parent, pet };
}

export const line = (unitAmount: number, quantity = 1, extra: Record<string, unknown> = {}) => ({
  description: `Item ${unitAmount}`,
  quantity,
  unitAmount,
  ...extra,
});

export async function expectStatus(res: Response, status: number, what: string): Promise<Response> {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${res.text}`);
  return res;
}

/** An open (finalized) invoice of `amount` with no tax. */
export async function openInvoice(t: TestApp, token: string, h: Household, amount: number, extra: Record<string, unknown> = {}) {
  const res = await t.request('POST', '/v1/invoices', {
    token,
    body: { parentId: h.parent.id, locationId: h.location.id, lines: [line(amount, 1, { taxRateBps: 0 })], finalize: true, ...extra },
  });
  return (await expectStatus(res, 201, 'open invoice')).body as { id: string; number: string; total: number; amountDue: number; currency: string };
}

export async function pay(t: TestApp, token: string, body: Record<string, unknown>, idempotencyKey?: string) {
  return t.request('POST', '/v1/payments', { token, body: { method: 'cash', currency: 'USD', ...body }, ...(idempotencyKey ? { idempotencyKey } : {}) });
}

export async function wallet(t: TestApp, token: string, parentId: string, topUp = 0, currency = 'USD') {
  const created = await expectStatus(await t.request('POST', '/v1/wallets', { token, body: { parentId, currency } }), 201, 'wallet');
  if (topUp > 0) {
    await expectStatus(await t.request('POST', `/v1/wallets/${created.body.id}/top-ups`, { token, body: { amount: topUp, method: 'cash' } }), 201, 'top-up');
  }
  return created.body as { id: string; balance: number };
}

/**
 * The ledger's invariants, straight from the database: every entry has two or more lines summing
 * to zero, and every wallet's balance equals its transactions and minus its journal account.
 */
export async function assertBooksBalance(a: ExecutionContext, t: TestApp, env: 'live' | 'sandbox' = 'live'): Promise<void> {
  const db = t.stores.get(env).db;
  const unbalanced = await db
    .selectFrom('ledger_lines')
    .select(['entry_id', (eb) => eb.fn.sum<number>('amount').as('total'), (eb) => eb.fn.countAll<number>().as('lines')])
    .groupBy('entry_id')
    .having((eb) => eb.or([eb(eb.fn.sum('amount'), '!=', 0), eb(eb.fn.countAll(), '<', 2)]))
    .execute();
  a.deepEqual(unbalanced, [], 'every journal entry sums to zero');
  const orphans = await db.selectFrom('ledger_lines').select('entry_id').where('entry_id', 'not in', db.selectFrom('ledger_entries').select('id')).execute();
  a.deepEqual(orphans, [], 'no line without its entry');
  const wallets = await db.selectFrom('wallets').selectAll().execute();
  for (const w of wallets) {
    const tx = await db
      .selectFrom('wallet_transactions')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount'), eb.lit(0)).as('sum'))
      .where('wallet_id', '=', w.id)
      .executeTakeFirstOrThrow();
    a.is(Number(tx.sum), w.balance, `wallet ${w.id} balance equals its transactions`);
    const journal = await db
      .selectFrom('ledger_lines')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount'), eb.lit(0)).as('sum'))
      .where('account', '=', `wallet:${w.id}`)
      .executeTakeFirstOrThrow();
    a.is(0 - Number(journal.sum) + 0, w.balance, `wallet ${w.id} balance equals its journal account`);
    a.true(w.balance >= 0);
  }
}

/** Events of a type whose data names `id` in `field`. */
export async function eventsOf(t: TestApp, type: string, field: string, id: string, env: 'live' | 'sandbox' = 'live') {
  const rows = await t.stores.get(env).db.selectFrom('events').selectAll().where('type', '=', type).orderBy('id').execute();
  return rows.map((r) => ({ ...r, data: JSON.parse(r.data) as Record<string, unknown> })).filter((r) => r.data[field] === id);
}

export async function countRows(
  t: TestApp,
  table: 'invoices' | 'payments' | 'refunds' | 'wallets' | 'wallet_transactions' | 'ledger_entries' | 'subscriptions' | 'events',
  env: 'live' | 'sandbox' = 'live',
) {
  const rows = await t.stores.get(env).db.selectFrom(table).select('id').execute();
  return rows.length;
}
