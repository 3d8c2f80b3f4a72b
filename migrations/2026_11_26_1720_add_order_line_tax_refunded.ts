import { sql, type Kysely } from 'kysely';

/**
 * Marketplace order lines keep the tax they paid back (`tax_refunded`) beside the gross
 * (`amount_refunded`). A refund of an order's payment (DESIGN §12) is an amount of money spread over
 * the lines, and money does not always split into a gross amount plus exactly its round-half-up tax
 * (at 10 %, 4 of gross carries 0 and 5 carries 1: 5 of money is neither), so a line's gross alone no
 * longer says what it paid back. Lines refunded before this paid back exactly
 * round-half-up(amount_refunded × tax_rate_bps / 10000): that is their backfill.
 * One transaction: a stop between the column and its backfill would leave refunded lines owing tax.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`
      ALTER TABLE marketplace_order_lines ADD COLUMN tax_refunded INTEGER NOT NULL DEFAULT 0
        CHECK (tax_refunded >= 0 AND tax_refunded <= (amount * tax_rate_bps + 5000) / 10000)`.execute(trx);
    await sql`UPDATE marketplace_order_lines SET tax_refunded = (amount_refunded * tax_rate_bps + 5000) / 10000 WHERE amount_refunded > 0`.execute(trx);
  });
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE marketplace_order_lines DROP COLUMN tax_refunded`.execute(db);
}
