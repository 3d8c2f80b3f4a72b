import { sql, type Kysely } from 'kysely';

/**
 * The sandbox's business clock (Stripe test clocks): real time plus a stored offset that only moves
 * forward. One row per environment file; the live file never gets one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE sandbox_clock (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      offset_ms INTEGER NOT NULL CHECK (offset_ms >= 0),
      updated_at TEXT NOT NULL
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS sandbox_clock`.execute(db);
}
