import { taxOf } from '../payments/index.js';
import type { MarketplaceOrderLinesTable } from './marketplace.table.js';

/**
 * How refunded money maps to a marketplace order's lines (DESIGN §12). Both ways of refunding an
 * order use it: POST /v1/refunds of the order's payment, and POST /v1/orders/{id}/refund.
 *
 * - A line is worth its amount plus its tax share, taxOf(amount, taxRateBps) (DESIGN §7), and has
 *   paid back amount_refunded (gross) plus tax_refunded.
 * - Money paid back to a line is gross first, at the line's own tax rule: once R has been paid back
 *   in all, the gross part is the largest g with g + taxOf(g) ≤ R and the rest is tax. So a gross
 *   refund carries exactly its round-half-up tax share; any amount of money maps (a unit that a
 *   rounding step skips stays tax until the next unit of gross); and a line paid back in full has
 *   returned exactly its amount and its tax.
 * - Commission is reversed cumulatively at the line's rate snapshot: taxOf(gross refunded,
 *   commissionBps) in all, so partial refunds never reverse more than was charged and a full refund
 *   reverses all of it.
 */

export type RefundableLine = Pick<MarketplaceOrderLinesTable, 'id' | 'amount' | 'tax_rate_bps' | 'commission_bps' | 'amount_refunded' | 'tax_refunded'>;

/** One line's part of a refund: `money` = `gross` + `tax`; `commission` is what it reverses (≥ 0). */
export interface LineRefund<L extends RefundableLine = RefundableLine> {
  line: L;
  money: number;
  gross: number;
  tax: number;
  commission: number;
}

/** What is left to pay back on a line: its amount plus its tax share, less what it paid back. */
export const moneyLeft = (line: RefundableLine): number => line.amount + taxOf(line.amount, line.tax_rate_bps) - line.amount_refunded - line.tax_refunded;

/** The gross part of `paidBack` (≤ what the line is worth): the largest g with g + taxOf(g) ≤ paidBack. */
function grossOf(line: RefundableLine, paidBack: number): number {
  const bps = line.tax_rate_bps;
  // g + taxOf(g) grows by 1 or 2 per unit of g (rates ≤ 100 %): start at the exact quotient and step.
  let g = Math.min(line.amount, Number((BigInt(paidBack) * 10_000n) / BigInt(10_000 + bps)));
  while (g > 0 && g + taxOf(g, bps) > paidBack) g--;
  while (g < line.amount && g + 1 + taxOf(g + 1, bps) <= paidBack) g++;
  return g;
}

function lineShare<L extends RefundableLine>(line: L, money: number): LineRefund<L> {
  const grossAfter = grossOf(line, line.amount_refunded + line.tax_refunded + money);
  const gross = grossAfter - line.amount_refunded;
  const commission = taxOf(grossAfter, line.commission_bps) - taxOf(line.amount_refunded, line.commission_bps);
  return { line, money, gross, tax: money - gross, commission };
}

/**
 * Allocates `money` to `lines` in the order given, each up to what is left of it. Returns each
 * line's share (lines that take nothing are left out) and what no line could take (0 unless more
 * is asked than the lines have left).
 */
export function allocateRefund<L extends RefundableLine>(lines: readonly L[], money: number): { shares: LineRefund<L>[]; unallocated: number } {
  const shares: LineRefund<L>[] = [];
  let rest = money;
  for (const line of lines) {
    if (rest === 0) break;
    const take = Math.min(rest, moneyLeft(line));
    if (take <= 0) continue;
    shares.push(lineShare(line, take));
    rest -= take;
  }
  return { shares, unallocated: rest };
}

/** The money that pays back `gross` more of a line's amount together with its tax share. */
export function moneyForGross(line: RefundableLine, gross: number): number {
  const after = line.amount_refunded + gross;
  return after + taxOf(after, line.tax_rate_bps) - line.amount_refunded - line.tax_refunded;
}
