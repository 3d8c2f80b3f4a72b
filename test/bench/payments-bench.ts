/**
 * The payments cases of `npm run bench` (run-bench.ts runs them beside POST /v1/pets):
 *   (f) POST /v1/payments, each paying 1 cent of one open invoice (its amountDue never runs out),
 *   (g) POST /v1/refunds, each refunding 1 cent of one large payment,
 * both with a fresh Idempotency-Key per request, so every 2xx is a real write: a payment row, its
 * journal entry, the invoice update and payment.completed; a refund row, its journal entry, the
 * payment, the invoice's amountRefunded and its credit entry, refund.created.
 */
import type autocannon from 'autocannon';
import SQLite from 'better-sqlite3';
import path from 'node:path';
import { accessToken as token, benchAdmin, expectStatus as call, type Fields } from './bench-servers.js';

export interface PaymentFixtures {
  /** Staff client with `payments` (rate limit lifted). */
  token: string;
  parentId: string;
  invoiceId: string;
  paymentId: string;
}

/** A location, a parent, an open invoice of 10^12 cents and a paid-in payment of 10^12 to refund from. */
export async function createPaymentFixtures(url: string): Promise<PaymentFixtures> {
  const admin = await token(url, benchAdmin.clientId, benchAdmin.clientSecret);
  const location = await call(
    url,
    'POST',
    '/v1/locations',
    201,
    { name: 'Bench payments', timezone: 'Europe/London', currency: 'USD', taxRateBps: 825 },
    admin,
  );
  const parent = await call(url, 'POST', '/v1/pet-parents', 201, { name: 'Bench payer', locationId: location.id }, admin);
  const client = await call(
    url,
    'POST',
    '/v1/clients',
    201,
    { name: 'bench desk', role: 'staff', scopes: ['payments'], rateLimitPerMinute: 100_000_000 },
    admin,
  );
  const desk = await token(url, String(client.clientId), String(client.clientSecret));
  const line = { description: 'Bench ledger', quantity: 1, unitAmount: 1_000_000_000_000, taxRateBps: 0 };
  const invoice = await call(url, 'POST', '/v1/invoices', 201, { parentId: parent.id, locationId: location.id, lines: [line], finalize: true }, desk);
  const refundable = await call(url, 'POST', '/v1/invoices', 201, { parentId: parent.id, locationId: location.id, lines: [line], finalize: true }, desk);
  const payment = await call(
    url,
    'POST',
    '/v1/payments',
    201,
    { parentId: parent.id, invoiceId: refundable.id, amount: 1_000_000_000_000, currency: 'USD', method: 'card_terminal' },
    desk,
  );
  return { token: desk, parentId: String(parent.id), invoiceId: String(invoice.id), paymentId: String(payment.id) };
}

let counter = 0;
const run = Date.now().toString(36);

function writeOptions(url: string, fx: PaymentFixtures, pathname: string, body: Fields): () => autocannon.Options {
  return () => ({
    url,
    requests: [
      {
        method: 'POST',
        path: pathname,
        headers: { authorization: `Bearer ${fx.token}`, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
        // A new key per request: every call is a real write, never a replay.
        setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'idempotency-key': `bench-money-${run}-${++counter}` } }),
      },
    ],
  });
}

export const paymentOptions = (url: string, fx: PaymentFixtures) =>
  writeOptions(url, fx, '/v1/payments', { parentId: fx.parentId, invoiceId: fx.invoiceId, amount: 1, currency: 'USD', method: 'cash' });

export const refundOptions = (url: string, fx: PaymentFixtures) => writeOptions(url, fx, '/v1/refunds', { paymentId: fx.paymentId, amount: 1 });

/** Payment, refund and journal rows on disk: proof the runs wrote once per 2xx, and that the journal still balances. */
export function countMoneyWrites(dataDir: string): { payments: number; refunds: number; journalEntries: number; unbalancedEntries: number } {
  const db = new SQLite(path.join(dataDir, 'live.sqlite'), { readonly: true });
  try {
    const n = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    return {
      payments: n('select count(*) as n from payments'),
      refunds: n('select count(*) as n from refunds'),
      journalEntries: n('select count(*) as n from ledger_entries'),
      unbalancedEntries: n('select count(*) as n from (select entry_id from ledger_lines group by entry_id having sum(amount) <> 0)'),
    };
  } finally {
    db.close();
  }
}
