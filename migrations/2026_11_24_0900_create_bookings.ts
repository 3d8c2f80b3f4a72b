import { sql, type Kysely } from 'kysely';

/**
 * The one table of facts every kind of booking shares (DESIGN §7): boarding stays, grooming
 * appointments and marketplace bookings draw their `bkg_` ids from it and keep their own details in
 * tables of their own, keyed by the booking id. Events, analytics and the care coordinator read here.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE bookings (
      id TEXT PRIMARY KEY,
      tenant_id TEXT NOT NULL REFERENCES tenants(id),
      kind TEXT NOT NULL CHECK (kind IN ('boarding', 'grooming', 'marketplace')),
      status TEXT NOT NULL,
      pet_id TEXT NOT NULL REFERENCES pets(id),
      parent_id TEXT NOT NULL,
      location_id TEXT NOT NULL REFERENCES locations(id),
      provider_id TEXT REFERENCES providers(id),
      starts_at TEXT NOT NULL,
      ends_at TEXT NOT NULL CHECK (ends_at > starts_at),
      amount INTEGER NOT NULL CHECK (amount >= 0 AND amount <= 1000000000000),
      currency TEXT NOT NULL CHECK (length(currency) = 3),
      invoice_id TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX bookings_location_idx ON bookings (tenant_id, location_id, kind, starts_at)`.execute(db);
  await sql`CREATE INDEX bookings_pet_idx ON bookings (pet_id, kind, starts_at)`.execute(db);
  await sql`CREATE INDEX bookings_provider_idx ON bookings (provider_id, starts_at) WHERE provider_id IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS bookings`.execute(db);
}
