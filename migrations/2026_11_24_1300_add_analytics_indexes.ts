import { sql, type Kysely } from 'kysely';

/**
 * Indexes that serve analytics' date windows (DESIGN §14): each metric reads one location's rows
 * between two instants (or dates), so every index leads with location_id and then the time the
 * metric is dated by; the money ones also carry currency and amount, so a month is summed from the
 * index alone without reading the table rows.
 */
const indexes: Array<[name: string, definition: string]> = [
  ['payments_location_created_idx', 'payments (location_id, created_at, currency, amount)'],
  ['refunds_location_created_idx', 'refunds (location_id, created_at, currency, amount)'],
  ['appointments_location_starts_idx', 'appointments (location_id, starts_at, status)'],
  ['pets_location_created_idx', 'pets (location_id, created_at)'],
  ['invoices_location_finalized_idx', 'invoices (location_id, finalized_at, paid_at, voided_at, uncollectible_at)'],
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [name, definition] of indexes) await sql.raw(`CREATE INDEX ${name} ON ${definition}`).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [name] of indexes) await sql.raw(`DROP INDEX ${name}`).execute(db);
}
