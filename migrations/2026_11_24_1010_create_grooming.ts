import { sql, type Kysely } from 'kysely';

/**
 * Grooming (DESIGN §11): packages priced and timed per pet size, the details of grooming bookings
 * (the facts live in `bookings`), memberships billed by a subscription, prepaid bundles, and the
 * one ledger of spent credits. Grooming bookings take their stylist's time, so every change to one
 * bumps the same scheduling counter appointments bump: availability's busy-time cache sees both.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE grooming_packages (
      id TEXT PRIMARY KEY,
      tenant_id TEXT NOT NULL REFERENCES tenants(id),
      location_id TEXT REFERENCES locations(id),
      name TEXT NOT NULL,
      services TEXT NOT NULL,
      duration_small INTEGER NOT NULL CHECK (duration_small BETWEEN 5 AND 600),
      duration_medium INTEGER NOT NULL CHECK (duration_medium BETWEEN 5 AND 600),
      duration_large INTEGER NOT NULL CHECK (duration_large BETWEEN 5 AND 600),
      duration_xlarge INTEGER NOT NULL CHECK (duration_xlarge BETWEEN 5 AND 600),
      price_small INTEGER NOT NULL CHECK (price_small >= 0),
      price_medium INTEGER NOT NULL CHECK (price_medium >= 0),
      price_large INTEGER NOT NULL CHECK (price_large >= 0),
      price_xlarge INTEGER NOT NULL CHECK (price_xlarge >= 0),
      currency TEXT NOT NULL CHECK (length(currency) = 3),
      sessions INTEGER NOT NULL CHECK (sessions >= 1),
      valid_days INTEGER CHECK (valid_days IS NULL OR valid_days >= 1),
      active INTEGER NOT NULL CHECK (active IN (0, 1)),
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX grooming_packages_tenant_idx ON grooming_packages (tenant_id, id)`.execute(db);

  await sql`
    CREATE TABLE grooming_appointments (
      booking_id TEXT PRIMARY KEY REFERENCES bookings(id),
      tenant_id TEXT NOT NULL REFERENCES tenants(id),
      package_id TEXT NOT NULL REFERENCES grooming_packages(id),
      size TEXT NOT NULL CHECK (size IN ('small', 'medium', 'large', 'xlarge')),
      duration_minutes INTEGER NOT NULL,
      pay_with TEXT NOT NULL CHECK (pay_with IN ('invoice', 'membership', 'package_credit')),
      membership_id TEXT,
      notes TEXT
    ) WITHOUT ROWID`.execute(db);

  await sql`
    CREATE TABLE grooming_memberships (
      id TEXT PRIMARY KEY,
      tenant_id TEXT NOT NULL REFERENCES tenants(id),
      parent_id TEXT NOT NULL,
      pet_id TEXT REFERENCES pets(id),
      package_id TEXT NOT NULL REFERENCES grooming_packages(id),
      location_id TEXT NOT NULL REFERENCES locations(id),
      subscription_id TEXT NOT NULL UNIQUE,
      sessions_per_period INTEGER NOT NULL CHECK (sessions_per_period BETWEEN 1 AND 100),
      status TEXT NOT NULL CHECK (status IN ('active', 'cancelled')),
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      cancelled_at TEXT
    )`.execute(db);
  await sql`CREATE INDEX grooming_memberships_parent_idx ON grooming_memberships (tenant_id, parent_id, package_id, id)`.execute(db);

  // A prepaid bundle bought by a parent: `sessions` credits of a package until expires_at.
  await sql`
    CREATE TABLE grooming_package_credits (
      id TEXT PRIMARY KEY,
      tenant_id TEXT NOT NULL REFERENCES tenants(id),
      parent_id TEXT NOT NULL,
      package_id TEXT NOT NULL REFERENCES grooming_packages(id),
      location_id TEXT NOT NULL REFERENCES locations(id),
      invoice_id TEXT NOT NULL,
      sessions INTEGER NOT NULL CHECK (sessions >= 1),
      expires_at TEXT,
      created_at TEXT NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX grooming_package_credits_parent_idx ON grooming_package_credits (tenant_id, parent_id, package_id, id)`.execute(db);

  // Every credit spent, one row per completed booking (a booking spends at most one): remaining = granted − these.
  await sql`
    CREATE TABLE grooming_credit_uses (
      booking_id TEXT PRIMARY KEY REFERENCES bookings(id),
      tenant_id TEXT NOT NULL REFERENCES tenants(id),
      membership_id TEXT REFERENCES grooming_memberships(id),
      package_credit_id TEXT REFERENCES grooming_package_credits(id),
      created_at TEXT NOT NULL,
      CHECK ((membership_id IS NULL) <> (package_credit_id IS NULL))
    ) WITHOUT ROWID`.execute(db);
  await sql`CREATE INDEX grooming_credit_uses_membership_idx ON grooming_credit_uses (membership_id) WHERE membership_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX grooming_credit_uses_bundle_idx ON grooming_credit_uses (package_credit_id) WHERE package_credit_id IS NOT NULL`.execute(db);

  // Grooming bookings hold their stylist's time: bump the counter availability's busy-time cache trusts.
  const bump = `begin update scheduling_versions set version = version + 1 where name = 'appointments'; end`;
  await sql.raw(`create trigger bookings_grooming_version_insert after insert on bookings when new.kind = 'grooming' ${bump}`).execute(db);
  await sql
    .raw(`create trigger bookings_grooming_version_update after update on bookings when new.kind = 'grooming' or old.kind = 'grooming' ${bump}`)
    .execute(db);
  await sql.raw(`create trigger bookings_grooming_version_delete after delete on bookings when old.kind = 'grooming' ${bump}`).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const event of ['insert', 'update', 'delete']) await sql.raw(`drop trigger if exists bookings_grooming_version_${event}`).execute(db);
  for (const table of ['grooming_credit_uses', 'grooming_package_credits', 'grooming_memberships', 'grooming_appointments', 'grooming_packages']) {
    await sql.raw(`drop table if exists ${table}`).execute(db);
  }
}
