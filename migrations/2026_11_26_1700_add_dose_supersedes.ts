import { sql, type Kysely } from 'kysely';

/**
 * The dose log holds one entry per medication and scheduled time (DESIGN §10); a correction is a
 * new entry that names the one it corrects in `supersedes`, and only the latest of such a chain
 * counts (check-out bills it once if it says given).
 *
 * - Entries that supersede nothing are unique per (care plan, medication, scheduled time), and an
 *   entry is superseded at most once, so every dose is one straight chain.
 * - A trigger refuses a correction of an entry of another plan, medication or time (the column has
 *   no REFERENCES clause so that `down` can drop it; the trigger checks the row exists).
 * - Duplicates logged before this rule are kept (the log is append-only): each later entry of the
 *   same dose becomes a correction of the one logged before it (by id, which is time-ordered), so
 *   the latest counts and the rest stay as history. The append-only trigger is lifted for that one
 *   UPDATE and put back as it was.
 * One transaction: a stop halfway must not leave the log without its triggers.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`ALTER TABLE boarding_doses ADD COLUMN supersedes TEXT`.execute(trx);
    await sql`DROP TRIGGER boarding_doses_no_update`.execute(trx);
    await sql`
      UPDATE boarding_doses SET supersedes = chained.previous
        FROM (SELECT id, lag(id) OVER (PARTITION BY care_plan_id, medication_key, scheduled_for ORDER BY id) AS previous FROM boarding_doses) AS chained
       WHERE chained.id = boarding_doses.id AND chained.previous IS NOT NULL`.execute(trx);
    await sql`
      CREATE TRIGGER boarding_doses_no_update BEFORE UPDATE ON boarding_doses
      BEGIN
        SELECT RAISE(ABORT, 'the dose log is append-only: log a new entry instead');
      END`.execute(trx);
    await sql`CREATE UNIQUE INDEX boarding_doses_one_per_dose_uq ON boarding_doses (care_plan_id, medication_key, scheduled_for) WHERE supersedes IS NULL`.execute(
      trx,
    );
    await sql`CREATE UNIQUE INDEX boarding_doses_supersedes_uq ON boarding_doses (supersedes) WHERE supersedes IS NOT NULL`.execute(trx);
    await sql`
      CREATE TRIGGER boarding_doses_correction_same_dose BEFORE INSERT ON boarding_doses
      WHEN NEW.supersedes IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM boarding_doses d
         WHERE d.id = NEW.supersedes AND d.care_plan_id = NEW.care_plan_id AND d.medication_key = NEW.medication_key AND d.scheduled_for = NEW.scheduled_for)
      BEGIN
        SELECT RAISE(ABORT, 'a dose correction supersedes an entry of the same plan, medication and scheduled time');
      END`.execute(trx);
  });
}

/** Back to the old schema: the chains are forgotten (every entry counts again, as it did then). */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`DROP TRIGGER IF EXISTS boarding_doses_correction_same_dose`.execute(trx);
    await sql`DROP INDEX IF EXISTS boarding_doses_supersedes_uq`.execute(trx);
    await sql`DROP INDEX IF EXISTS boarding_doses_one_per_dose_uq`.execute(trx);
    await sql`ALTER TABLE boarding_doses DROP COLUMN supersedes`.execute(trx);
  });
}
