import { sql, type Kysely } from 'kysely';

/**
 * Marketplace providers (DESIGN §12): a provider onboarded for the marketplace keeps its row in
 * `providers` (status pending → approved ⇄ suspended) and gets a profile (bio, service area,
 * commission override), listings (what it sells, priced and timed) and reviews (one per completed
 * marketplace booking). The provider's `rating` and `rating_count` are recomputed by triggers from
 * its reviews in the same statement as the review insert, so the directory filters on plain columns.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE provider_marketplace_profiles (
      provider_id TEXT PRIMARY KEY REFERENCES providers(id),
      tenant_id TEXT NOT NULL REFERENCES tenants(id),
      bio TEXT CHECK (bio IS NULL OR length(bio) <= 5000),
      service_area TEXT CHECK (service_area IS NULL OR length(service_area) <= 500),
      commission_bps INTEGER CHECK (commission_bps IS NULL OR commission_bps BETWEEN 0 AND 10000),
      approved_at TEXT,
      suspended_at TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`.execute(db);

  await sql`
    CREATE TABLE marketplace_listings (
      id TEXT PRIMARY KEY,
      tenant_id TEXT NOT NULL REFERENCES tenants(id),
      provider_id TEXT NOT NULL REFERENCES providers(id),
      name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      category TEXT NOT NULL CHECK (category IN ('walking', 'sitting', 'boarding', 'daycare', 'training', 'grooming', 'transport', 'other')),
      amount INTEGER NOT NULL CHECK (amount >= 0 AND amount <= 1000000000000),
      currency TEXT NOT NULL CHECK (length(currency) = 3),
      duration_minutes INTEGER NOT NULL CHECK (duration_minutes > 0 AND duration_minutes <= 1440),
      status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive')),
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX marketplace_listings_provider_idx ON marketplace_listings (provider_id, status, category)`.execute(db);
  await sql`CREATE INDEX marketplace_listings_category_idx ON marketplace_listings (tenant_id, category, status, provider_id)`.execute(db);

  await sql`
    CREATE TABLE provider_reviews (
      id TEXT PRIMARY KEY,
      tenant_id TEXT NOT NULL REFERENCES tenants(id),
      provider_id TEXT NOT NULL REFERENCES providers(id),
      booking_id TEXT NOT NULL UNIQUE REFERENCES bookings(id),
      parent_id TEXT NOT NULL,
      pet_id TEXT NOT NULL,
      location_id TEXT NOT NULL,
      stars INTEGER NOT NULL CHECK (stars BETWEEN 1 AND 5),
      comment TEXT CHECK (comment IS NULL OR length(comment) <= 5000),
      reply TEXT CHECK (reply IS NULL OR length(reply) <= 5000),
      replied_at TEXT,
      created_at TEXT NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX provider_reviews_provider_idx ON provider_reviews (provider_id, id)`.execute(db);
  await sql`CREATE INDEX provider_reviews_tenant_idx ON provider_reviews (tenant_id, id)`.execute(db);

  // A review is a verified fact: only the reply may be set, and only once.
  await sql`
    CREATE TRIGGER provider_reviews_fixed BEFORE UPDATE OF id, tenant_id, provider_id, booking_id, parent_id, pet_id, location_id, stars, comment, created_at ON provider_reviews
    BEGIN SELECT RAISE(ABORT, 'provider_reviews rows are immutable except the reply'); END`.execute(db);
  await sql`
    CREATE TRIGGER provider_reviews_reply_once BEFORE UPDATE OF reply ON provider_reviews WHEN OLD.reply IS NOT NULL
    BEGIN SELECT RAISE(ABORT, 'a review takes one reply'); END`.execute(db);

  // The provider's average (1 decimal) and count, recomputed from its reviews in the inserting statement.
  for (const [event, row] of [
    ['insert', 'NEW'],
    ['delete', 'OLD'],
  ] as const) {
    await sql
      .raw(
        `CREATE TRIGGER provider_reviews_rating_${event} AFTER ${event.toUpperCase()} ON provider_reviews BEGIN ` +
          `UPDATE providers SET ` +
          `rating = (SELECT round(avg(stars), 1) FROM provider_reviews WHERE provider_id = ${row}.provider_id), ` +
          `rating_count = (SELECT count(*) FROM provider_reviews WHERE provider_id = ${row}.provider_id) ` +
          `WHERE id = ${row}.provider_id; END`,
      )
      .execute(db);
  }

  // The directory filters by status and minimum rating within a tenant.
  await sql`CREATE INDEX providers_directory_idx ON providers (tenant_id, status, rating)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS providers_directory_idx`.execute(db);
  for (const table of ['provider_reviews', 'marketplace_listings', 'provider_marketplace_profiles']) {
    await sql.raw(`DROP TABLE IF EXISTS ${table}`).execute(db);
  }
}
