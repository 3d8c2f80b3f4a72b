import { sql, type Kysely } from 'kysely';

/**
 * Indexes that match each list's filter and order (issue 27.2). Every list pages newest first by
 * id within the caller's tenant (`… WHERE tenant_id = ? [AND filter = ?] [AND id < cursor] ORDER BY
 * id DESC LIMIT n`); without an index that ends in id after those equalities SQLite reads every row
 * of the tenant and sorts them in a temp B-tree on every page (GET /v1/pets: 361 ms a page over 1M
 * pets). With one, a page is a seek and n steps, at any size. test/platform/query-plans.test.ts
 * EXPLAINs what the routes run and fails on a sort or a whole scan again.
 */
const indexes: Array<[name: string, definition: string]> = [
  // GET /v1/pets, /v1/pet-parents, /v1/appointments, /v1/payments, /v1/refunds, /v1/ledger/entries
  ['pets_tenant_idx', 'pets (tenant_id, id)'],
  ['pet_parents_tenant_idx', 'pet_parents (tenant_id, id)'],
  ['appointments_tenant_idx', 'appointments (tenant_id, id)'],
  ['payments_tenant_idx', 'payments (tenant_id, id)'],
  ['refunds_tenant_idx', 'refunds (tenant_id, id)'],
  ['ledger_entries_tenant_idx', 'ledger_entries (tenant_id, id)'],
  // GET /v1/appointments?providerId, /v1/payments?parentId, /v1/invoices?status
  ['appointments_provider_idx', 'appointments (tenant_id, provider_id, id)'],
  ['payments_tenant_parent_idx', 'payments (tenant_id, parent_id, id)'],
  ['invoices_status_idx', 'invoices (tenant_id, status, id)'],
  // GET /v1/boarding/bookings and /v1/grooming/appointments (bookings of one kind), and ?locationId
  ['bookings_kind_idx', 'bookings (tenant_id, kind, id)'],
  ['bookings_location_kind_idx', 'bookings (tenant_id, location_id, kind, id)'],
  // Housekeeping's search for calendar tokens an older release stored in clear (every 10 minutes, and at
  // start) read every appointment; this index holds only those rows, so it is empty once they are sealed.
  // SQLite uses a partial index only for a query whose WHERE repeats this one literally (not as a bound parameter).
  ['appointments_clear_token_idx', "appointments (id) WHERE calendar_token NOT LIKE 'sealed:%'"],
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [name, definition] of indexes) await sql.raw(`CREATE INDEX ${name} ON ${definition}`).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [name] of indexes) await sql.raw(`DROP INDEX ${name}`).execute(db);
}
