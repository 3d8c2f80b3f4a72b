import type { Clock } from '../../clock.js';
import type { Environment } from '../../config.js';
import { acrossTenants } from '../../db/access-policy.js';
import type { Executor } from '../../db/database.js';

/** The clock's one row belongs to the environment (its data dir), not to any tenant. */
const environmentRow = 'sandbox_clock: one row per environment, no tenant';

/**
 * The business clock (Stripe's test clocks): what billing, settlements and reminders take as "now".
 * Live runs on real time; the sandbox on real time plus an offset an evaluator moves forward with
 * POST /v1/sandbox/clock. Tokens, rate limits, idempotency and the audit trail keep real time.
 */
export async function businessNow(db: Executor, env: Environment, clock: Clock): Promise<number> {
  const real = clock.now();
  if (env !== 'sandbox') return real;
  return real + (await clockOffset(db));
}

/**
 * How far the sandbox clock may run ahead of real time: 5 years (DESIGN §5). Further, instants leave
 * what RFC 3339 can write, and each job run would catch up thousands of daily closes.
 */
export const maxClockLeadMs = Math.round(5 * 365.25 * 86_400_000);

/**
 * Milliseconds the sandbox clock runs ahead of real time (0 when never moved), at most
 * `maxClockLeadMs`: an offset stored before the bound existed (year 9999) reads as the bound.
 */
export async function clockOffset(db: Executor): Promise<number> {
  const row = await acrossTenants(db, environmentRow).selectFrom('sandbox_clock').select('offset_ms').where('id', '=', 1).executeTakeFirst();
  return Math.min(row?.offset_ms ?? 0, maxClockLeadMs);
}

export async function setClockOffset(db: Executor, offsetMs: number, updatedAt: string): Promise<void> {
  await acrossTenants(db, environmentRow)
    .insertInto('sandbox_clock')
    .values({ id: 1, offset_ms: offsetMs, updated_at: updatedAt })
    .onConflict((oc) => oc.column('id').doUpdateSet({ offset_ms: offsetMs, updated_at: updatedAt }))
    .execute();
}

/** Back to real time (sandbox reset). */
export async function resetClock(db: Executor): Promise<void> {
  await acrossTenants(db, environmentRow).deleteFrom('sandbox_clock').execute();
}
