import { sql, type Kysely } from 'kysely';

/**
 * Boarding (DESIGN §10): rooms, the details of boarding stays (keyed by the shared booking id),
 * per-night counters that occupancy and the capacity check read, care plans, the append-only
 * dose log, and the ledger that makes each overdue-dose event happen once.
 * Migrations are frozen in time: raw SQL, never the app's Database type.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const run = (statement: ReturnType<typeof sql>) => statement.execute(db);

  await run(sql`
    CREATE TABLE boarding_rooms (
      id TEXT PRIMARY KEY,
      tenant_id TEXT NOT NULL REFERENCES tenants(id),
      location_id TEXT NOT NULL REFERENCES locations(id),
      name TEXT NOT NULL,
      room_type TEXT NOT NULL,
      capacity INTEGER NOT NULL CHECK (capacity BETWEEN 1 AND 1000),
      species TEXT NOT NULL,
      nightly_rate INTEGER NOT NULL CHECK (nightly_rate BETWEEN 0 AND 1000000000000),
      currency TEXT NOT NULL CHECK (length(currency) = 3),
      active INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`);
  // Covers the occupancy capacity sum (active rooms per type) without reading the rows.
  await run(sql`CREATE INDEX boarding_rooms_location_idx ON boarding_rooms (location_id, active, room_type, capacity, tenant_id)`);

  // One row per booking of kind boarding; status lives in bookings (the facts table).
  await run(sql`
    CREATE TABLE boarding_stays (
      booking_id TEXT PRIMARY KEY REFERENCES bookings(id),
      tenant_id TEXT NOT NULL REFERENCES tenants(id),
      location_id TEXT NOT NULL REFERENCES locations(id),
      room_type TEXT NOT NULL,
      species TEXT NOT NULL,
      room_id TEXT REFERENCES boarding_rooms(id),
      check_in_on TEXT NOT NULL,
      check_out_on TEXT NOT NULL CHECK (check_out_on > check_in_on),
      nights INTEGER NOT NULL CHECK (nights BETWEEN 1 AND 60),
      notes TEXT,
      checked_in_at TEXT,
      checked_out_at TEXT,
      billed_nights INTEGER,
      vaccination_override_reason TEXT,
      vaccination_override_by TEXT,
      vaccination_override_role TEXT,
      vaccination_override_missing TEXT,
      vaccination_override_at TEXT
    ) WITHOUT ROWID`);
  await run(sql`CREATE INDEX boarding_stays_location_idx ON boarding_stays (location_id, check_in_on)`);
  await run(sql`CREATE INDEX boarding_stays_room_idx ON boarding_stays (room_id, check_in_on) WHERE room_id IS NOT NULL`);

  // Places taken per location, night, room type and species: kept in the same transaction as every
  // booking, check-in, check-out and cancellation, so occupancy and the capacity check read a few
  // rows instead of every overlapping stay.
  await run(sql`
    CREATE TABLE boarding_nights (
      location_id TEXT NOT NULL REFERENCES locations(id),
      night TEXT NOT NULL,
      room_type TEXT NOT NULL,
      species TEXT NOT NULL,
      tenant_id TEXT NOT NULL,
      reserved INTEGER NOT NULL DEFAULT 0 CHECK (reserved >= 0),
      checked_in INTEGER NOT NULL DEFAULT 0 CHECK (checked_in >= 0),
      PRIMARY KEY (location_id, night, room_type, species)
    ) WITHOUT ROWID`);
  // The same counts summed over species, kept beside them: occupancy reads one row per night and room type.
  await run(sql`
    CREATE TABLE boarding_night_totals (
      location_id TEXT NOT NULL REFERENCES locations(id),
      night TEXT NOT NULL,
      room_type TEXT NOT NULL,
      tenant_id TEXT NOT NULL,
      reserved INTEGER NOT NULL DEFAULT 0 CHECK (reserved >= 0),
      checked_in INTEGER NOT NULL DEFAULT 0 CHECK (checked_in >= 0),
      PRIMARY KEY (location_id, night, room_type)
    ) WITHOUT ROWID`);

  await run(sql`
    CREATE TABLE boarding_care_plans (
      id TEXT PRIMARY KEY,
      tenant_id TEXT NOT NULL REFERENCES tenants(id),
      location_id TEXT NOT NULL REFERENCES locations(id),
      booking_id TEXT NOT NULL REFERENCES bookings(id),
      pet_id TEXT NOT NULL REFERENCES pets(id),
      feeding TEXT NOT NULL,
      medications TEXT NOT NULL,
      notes TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`);
  await run(sql`CREATE INDEX boarding_care_plans_booking_idx ON boarding_care_plans (booking_id)`);

  // Erasing a tenant's dose log (sandbox reset) is the one exception to append-only: a row here for the
  // tenant, inserted and removed in the erasing transaction, lets its DELETEs through.
  await run(sql`CREATE TABLE boarding_erasures (tenant_id TEXT PRIMARY KEY, reason TEXT NOT NULL)`);
  await run(sql`
    CREATE TABLE boarding_doses (
      id TEXT PRIMARY KEY,
      tenant_id TEXT NOT NULL REFERENCES tenants(id),
      care_plan_id TEXT NOT NULL REFERENCES boarding_care_plans(id),
      booking_id TEXT NOT NULL REFERENCES bookings(id),
      medication TEXT NOT NULL,
      medication_key TEXT NOT NULL,
      scheduled_for TEXT NOT NULL,
      outcome TEXT NOT NULL CHECK (outcome IN ('given', 'refused', 'skipped')),
      given_by TEXT NOT NULL,
      notes TEXT,
      recorded_by_client_id TEXT NOT NULL,
      created_at TEXT NOT NULL
    )`);
  await run(sql`CREATE INDEX boarding_doses_plan_idx ON boarding_doses (care_plan_id, medication_key, scheduled_for)`);
  await run(sql`
    CREATE TRIGGER boarding_doses_no_update BEFORE UPDATE ON boarding_doses
    BEGIN
      SELECT RAISE(ABORT, 'the dose log is append-only: log a new entry instead');
    END`);
  await run(sql`
    CREATE TRIGGER boarding_doses_no_delete BEFORE DELETE ON boarding_doses
    WHEN NOT EXISTS (SELECT 1 FROM boarding_erasures WHERE tenant_id = OLD.tenant_id)
    BEGIN
      SELECT RAISE(ABORT, 'the dose log is append-only: entries cannot be deleted');
    END`);

  // One boarding.dose_overdue per missed dose, whatever how often or how concurrently the job runs.
  await run(sql`
    CREATE TABLE boarding_dose_alerts (
      care_plan_id TEXT NOT NULL REFERENCES boarding_care_plans(id),
      medication_key TEXT NOT NULL,
      scheduled_for TEXT NOT NULL,
      tenant_id TEXT NOT NULL,
      created_at TEXT NOT NULL,
      PRIMARY KEY (care_plan_id, medication_key, scheduled_for)
    ) WITHOUT ROWID`);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const name of ['boarding_doses_no_delete', 'boarding_doses_no_update']) await sql`DROP TRIGGER IF EXISTS ${sql.raw(name)}`.execute(db);
  for (const table of [
    'boarding_dose_alerts',
    'boarding_doses',
    'boarding_erasures',
    'boarding_care_plans',
    'boarding_night_totals',
    'boarding_nights',
    'boarding_stays',
    'boarding_rooms',
  ]) {
    await sql`DROP TABLE IF EXISTS ${sql.raw(table)}`.execute(db);
  }
}
