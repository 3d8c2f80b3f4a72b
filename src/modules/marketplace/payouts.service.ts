import type { Executor } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import type { AccessFilter, Actor } from '../../http/actor.js';
import { AppError, foundOr404, missingReference, validationFailed } from '../../http/errors.js';
import { addDays, utcDate } from '../../calendar-dates.js';
import { toIso } from '../scheduling/index.js';
import { accounts, postJournal } from '../payments/index.js';
import type { SettlementsTable } from '../payments/index.js';
import { findProvider } from '../providers/index.js';
import type { CreatePayoutsInput } from './marketplace.schema.js';
import type { MarketplaceCommissionLinesTable } from './marketplace.table.js';
import {
  claimLines,
  findStatement,
  insertStatement,
  linesOfStatements,
  markStatementPaid,
  payableLines,
  statementsOfPeriod,
} from './marketplace.repository.js';

export interface Statement {
  row: SettlementsTable;
  lines: MarketplaceCommissionLinesTable[];
}

export const payoutsSpanTenant = 'Provider payouts span every location of the tenant';

/** gross, refunds and commission of a statement's lines; net = gross − refunds − commission. */
export function totalsOf(lines: readonly Pick<MarketplaceCommissionLinesTable, 'kind' | 'gross' | 'commission'>[]) {
  const gross = lines.filter((l) => l.kind === 'sale').reduce((s, l) => s + l.gross, 0);
  const refunds = -lines.filter((l) => l.kind === 'refund').reduce((s, l) => s + l.gross, 0);
  const commission = lines.reduce((s, l) => s + l.commission, 0);
  return { gross, refunds, commission, net: gross - refunds - commission };
}

async function withLines(db: Executor, actor: AccessFilter, rows: SettlementsTable[]): Promise<Statement[]> {
  const lines = await linesOfStatements(
    db,
    actor,
    rows.map((r) => r.id),
  );
  return rows.map((row) => ({ row, lines: lines.filter((l) => l.settlement_id === row.id) }));
}

/**
 * POST /v1/marketplace/settlements: one provider_payout statement per provider (and currency) for
 * the period, taking every unsettled sale and refund line of order lines completed by the end of
 * periodEnd (UTC) — lines already claimed, by a paid statement or any other, are never taken
 * again, so a refund after a payout lands on the next statement as a negative line. A provider
 * that already has a statement for exactly this period gets no second one: asking again answers
 * the same list (`created: false`).
 */
export async function createPayouts(
  db: Executor,
  actor: Actor,
  input: CreatePayoutsInput,
  now: number,
): Promise<{ created: boolean; statements: Statement[] }> {
  if (input.periodEnd < input.periodStart) throw validationFailed([{ field: 'periodEnd', message: 'is before periodStart' }]);
  if (input.periodEnd > utcDate(now))
    throw validationFailed([{ field: 'periodEnd', message: `is after today (${utcDate(now)} UTC): a period is settled once it has begun to end` }]);
  if (input.providerId !== undefined && !(await findProvider(db, actor, input.providerId))) throw missingReference('providerId', 'provider', input.providerId);

  const existing = await statementsOfPeriod(db, actor, input.periodStart, input.periodEnd, input.providerId);
  const taken = new Set(existing.map((s) => `${s.provider_id} ${s.currency}`));
  const before = `${addDays(input.periodEnd, 1)}T00:00:00.000Z`;
  const groups = new Map<string, MarketplaceCommissionLinesTable[]>();
  for (const line of await payableLines(db, actor, before, input.providerId)) {
    const key = `${line.provider_id} ${line.currency}`;
    if (taken.has(key)) continue;
    groups.set(key, [...(groups.get(key) ?? []), line]);
  }
  const at = toIso(now);
  for (const lines of groups.values()) {
    const first = lines[0]!;
    const totals = totalsOf(lines);
    const row: SettlementsTable = {
      id: newId('stl'),
      tenant_id: actor.tenantId,
      kind: 'provider_payout',
      location_id: null,
      provider_id: first.provider_id,
      period_start: input.periodStart,
      period_end: input.periodEnd,
      currency: first.currency,
      gross: totals.gross,
      refunds: totals.refunds,
      net: totals.net,
      by_method: '{}',
      payment_count: lines.filter((l) => l.kind === 'sale').length,
      refund_count: lines.filter((l) => l.kind === 'refund').length,
      status: 'pending',
      created_at: at,
      commission: totals.commission,
      paid_at: null,
    };
    await insertStatement(db, actor, row);
    await claimLines(
      db,
      actor,
      row.id,
      lines.map((l) => l.id),
    );
  }
  const all = groups.size === 0 ? existing : await statementsOfPeriod(db, actor, input.periodStart, input.periodEnd, input.providerId);
  return { created: groups.size > 0, statements: await withLines(db, actor, all) };
}

export async function getStatement(db: Executor, actor: Actor, id: string): Promise<Statement> {
  const row = foundOr404(await findStatement(db, actor, id), 'provider payout statement', id);
  return (await withLines(db, actor, [row]))[0]!;
}

/**
 * POST /v1/settlements/{id}/mark-paid: pending → paid, once (409 with the current state after);
 * the statement and its lines are immutable from then on (triggers). Posts the payout: the
 * provider's payable is debited by net, the bank account credited.
 */
export async function markPayoutPaid(db: Executor, actor: Actor, id: string, now: number): Promise<Statement> {
  const statement = await getStatement(db, actor, id);
  const { row } = statement;
  if (row.status !== 'pending') {
    throw new AppError('invalid_state_transition', `Payout statement ${id} is ${row.status} and cannot be marked paid again; allowed: none (final state).`, {
      extensions: { currentStatus: row.status },
    });
  }
  const at = toIso(now);
  await markStatementPaid(db, actor, id, at);
  await postJournal(
    db,
    {
      tenantId: actor.tenantId,
      locationId: null,
      sourceType: 'settlement',
      sourceId: id,
      currency: row.currency,
      memo: `provider payout ${id} to ${row.provider_id} for ${row.period_start}..${row.period_end}`,
      lines: [
        { account: accounts.providerPayable(row.provider_id ?? ''), amount: row.net },
        { account: accounts.cash('bank_transfer'), amount: -row.net },
      ],
    },
    now,
  );
  return { row: { ...row, status: 'paid', paid_at: at }, lines: statement.lines };
}
