import { sql, type Kysely } from 'kysely';

/**
 * The appointments booked after they start (issue 27.2: flat records pages). An appointment's id
 * carries the millisecond it was made (src/db/ids.ts: `apt_` + 10 base32 characters of time); one
 * made through the API starts after it is made (a start in the past is refused), so its id's time
 * is at or before its start. Only imports of past visits (and rows written around the API) start
 * before their id's time: this partial index holds those, by (tenant_id, id).
 *
 * With it, the newest records of appointments in a window [s, e) need not be walked for by id from
 * the newest id (which stepped over every booking of the next 60 days: 13× the small database on the
 * scale bench's 0.1 file): every row of the window made at or after an instant t either starts at or
 * after t (a range of appointments_location_starts_idx) or is in this index (analytics.repository.ts,
 * recordRows). The condition compares the id's time with the start's whole second, so it holds every
 * row whose id's time is after its start (and a few made within the second they start: harmless).
 * It must stay, character for character, the expression the records query repeats (backdatedSql).
 * Built at start by one pass over the table (about 6 s for the 0.1 file's million rows under load);
 * it holds no row on a database without imports.
 */
const alphabet = '0123456789abcdefghjkmnpqrstvwxyz';
const idTime = Array.from({ length: 10 }, (_, i) => `(instr('${alphabet}', substr(id, ${5 + i}, 1)) - 1) * ${2 ** (5 * (9 - i))}`).join(' + ');

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw(`CREATE INDEX appointments_backdated_idx ON appointments (tenant_id, id) WHERE ${idTime} >= unixepoch(starts_at) * 1000`).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX appointments_backdated_idx`.execute(db);
}
