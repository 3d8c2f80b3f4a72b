import { sql, type Kysely } from 'kysely';

/**
 * Marketplace orders, commissions and provider payouts (DESIGN §12).
 * - An order (ord_) bills its lines on one invoice; each line holds one booking (kind marketplace)
 *   of the shared bookings table and snapshots its commission rate.
 * - Commission lines: one accrual per paid line, one negative line per refund of a line. A payout
 *   statement is a `provider_payout` settlement that claims lines (settlement_id); a claimed line
 *   never changes again, and a paid statement never changes at all (triggers).
 * - Marketplace bookings hold their provider's time: they bump the scheduling counter the busy-time
 *   cache of appointments trusts, as grooming bookings do.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE marketplace_orders (
      id TEXT PRIMARY KEY,
      tenant_id TEXT NOT NULL REFERENCES tenants(id),
      location_id TEXT NOT NULL REFERENCES locations(id),
      parent_id TEXT NOT NULL,
      pet_id TEXT NOT NULL REFERENCES pets(id),
      status TEXT NOT NULL CHECK (status IN ('pending_payment', 'paid', 'fulfilled', 'cancelled', 'partially_refunded', 'refunded')),
      currency TEXT NOT NULL CHECK (length(currency) = 3),
      subtotal INTEGER NOT NULL CHECK (subtotal >= 0),
      tax INTEGER NOT NULL CHECK (tax >= 0),
      total INTEGER NOT NULL CHECK (total = subtotal + tax),
      amount_refunded INTEGER NOT NULL DEFAULT 0 CHECK (amount_refunded >= 0 AND amount_refunded <= total),
      invoice_id TEXT NOT NULL UNIQUE,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      paid_at TEXT,
      cancelled_at TEXT
    )`.execute(db);
  await sql`CREATE INDEX marketplace_orders_tenant_idx ON marketplace_orders (tenant_id, id)`.execute(db);
  await sql`CREATE INDEX marketplace_orders_location_idx ON marketplace_orders (tenant_id, location_id, id)`.execute(db);

  await sql`
    CREATE TABLE marketplace_order_lines (
      id TEXT PRIMARY KEY,
      tenant_id TEXT NOT NULL REFERENCES tenants(id),
      order_id TEXT NOT NULL REFERENCES marketplace_orders(id),
      position INTEGER NOT NULL,
      provider_id TEXT NOT NULL REFERENCES providers(id),
      listing_id TEXT NOT NULL,
      listing_name TEXT NOT NULL,
      category TEXT NOT NULL,
      booking_id TEXT NOT NULL UNIQUE REFERENCES bookings(id),
      starts_at TEXT NOT NULL,
      ends_at TEXT NOT NULL CHECK (ends_at > starts_at),
      amount INTEGER NOT NULL CHECK (amount >= 0),
      tax_rate_bps INTEGER NOT NULL CHECK (tax_rate_bps BETWEEN 0 AND 10000),
      currency TEXT NOT NULL CHECK (length(currency) = 3),
      commission_bps INTEGER NOT NULL CHECK (commission_bps BETWEEN 0 AND 10000),
      commission_amount INTEGER NOT NULL CHECK (commission_amount >= 0 AND commission_amount <= amount),
      amount_refunded INTEGER NOT NULL DEFAULT 0 CHECK (amount_refunded >= 0 AND amount_refunded <= amount),
      completed_at TEXT,
      UNIQUE (order_id, position)
    )`.execute(db);
  await sql`CREATE INDEX marketplace_order_lines_provider_idx ON marketplace_order_lines (provider_id, completed_at)`.execute(db);
  // A line's price, rate and booking are facts of the order: only refunds and completion move.
  await sql`
    CREATE TRIGGER marketplace_order_lines_fixed BEFORE UPDATE OF id, tenant_id, order_id, position, provider_id, listing_id, booking_id, starts_at, ends_at, amount, tax_rate_bps, currency, commission_bps, commission_amount ON marketplace_order_lines
    BEGIN SELECT RAISE(ABORT, 'an order line is fixed once ordered: only its refunded amount and completion move'); END`.execute(db);

  await sql`
    CREATE TABLE marketplace_commission_lines (
      id TEXT PRIMARY KEY,
      tenant_id TEXT NOT NULL REFERENCES tenants(id),
      order_id TEXT NOT NULL REFERENCES marketplace_orders(id),
      order_line_id TEXT NOT NULL REFERENCES marketplace_order_lines(id),
      provider_id TEXT NOT NULL REFERENCES providers(id),
      kind TEXT NOT NULL CHECK (kind IN ('sale', 'refund')),
      refund_id TEXT,
      gross INTEGER NOT NULL,
      rate_bps INTEGER NOT NULL CHECK (rate_bps BETWEEN 0 AND 10000),
      commission INTEGER NOT NULL,
      currency TEXT NOT NULL CHECK (length(currency) = 3),
      status TEXT NOT NULL CHECK (status IN ('accrued', 'settled')),
      settlement_id TEXT REFERENCES settlements(id),
      created_at TEXT NOT NULL,
      CHECK ((kind = 'sale' AND gross >= 0 AND commission >= 0 AND refund_id IS NULL) OR (kind = 'refund' AND gross < 0 AND commission <= 0 AND refund_id IS NOT NULL)),
      CHECK ((status = 'settled') = (settlement_id IS NOT NULL))
    )`.execute(db);
  // One accrual per order line: a line is paid once.
  await sql`CREATE UNIQUE INDEX marketplace_commission_lines_sale_idx ON marketplace_commission_lines (order_line_id) WHERE kind = 'sale'`.execute(db);
  await sql`CREATE INDEX marketplace_commission_lines_tenant_idx ON marketplace_commission_lines (tenant_id, id)`.execute(db);
  await sql`CREATE INDEX marketplace_commission_lines_unsettled_idx ON marketplace_commission_lines (tenant_id, provider_id, id) WHERE settlement_id IS NULL`.execute(
    db,
  );
  await sql`CREATE INDEX marketplace_commission_lines_settlement_idx ON marketplace_commission_lines (settlement_id) WHERE settlement_id IS NOT NULL`.execute(
    db,
  );
  // Money facts: amounts never change; a line is claimed by one statement once, then never moves.
  await sql`
    CREATE TRIGGER marketplace_commission_lines_fixed BEFORE UPDATE ON marketplace_commission_lines
    WHEN OLD.settlement_id IS NOT NULL
      OR NEW.id IS NOT OLD.id OR NEW.tenant_id IS NOT OLD.tenant_id OR NEW.order_line_id IS NOT OLD.order_line_id OR NEW.provider_id IS NOT OLD.provider_id
      OR NEW.kind IS NOT OLD.kind OR NEW.gross IS NOT OLD.gross OR NEW.rate_bps IS NOT OLD.rate_bps OR NEW.commission IS NOT OLD.commission
      OR NEW.currency IS NOT OLD.currency OR NEW.created_at IS NOT OLD.created_at
    BEGIN SELECT RAISE(ABORT, 'a commission line is a money fact: only an unsettled line may be claimed by a statement, once'); END`.execute(db);

  // Provider payout statements live in payments' settlements table (DESIGN §9: one resource, two kinds).
  await sql`ALTER TABLE settlements ADD COLUMN commission INTEGER NOT NULL DEFAULT 0`.execute(db);
  await sql`ALTER TABLE settlements ADD COLUMN paid_at TEXT`.execute(db);
  await sql`CREATE UNIQUE INDEX settlements_provider_payout_idx ON settlements (tenant_id, provider_id, period_start, period_end, currency) WHERE kind = 'provider_payout'`.execute(
    db,
  );
  // A pending statement may only become paid; a paid one never changes.
  await sql`
    CREATE TRIGGER settlements_provider_payout_fixed BEFORE UPDATE ON settlements
    WHEN OLD.kind = 'provider_payout' AND (
      OLD.status = 'paid' OR NEW.status <> 'paid'
      OR NEW.id IS NOT OLD.id OR NEW.tenant_id IS NOT OLD.tenant_id OR NEW.kind IS NOT OLD.kind OR NEW.provider_id IS NOT OLD.provider_id
      OR NEW.period_start IS NOT OLD.period_start OR NEW.period_end IS NOT OLD.period_end OR NEW.currency IS NOT OLD.currency
      OR NEW.gross IS NOT OLD.gross OR NEW.refunds IS NOT OLD.refunds OR NEW.net IS NOT OLD.net OR NEW.commission IS NOT OLD.commission
      OR NEW.payment_count IS NOT OLD.payment_count OR NEW.refund_count IS NOT OLD.refund_count)
    BEGIN SELECT RAISE(ABORT, 'a payout statement only moves pending → paid, and a paid statement is immutable'); END`.execute(db);

  // Marketplace bookings hold their provider's time: bump the counter availability's busy-time cache trusts.
  const bump = `begin update scheduling_versions set version = version + 1 where name = 'appointments'; end`;
  await sql.raw(`create trigger bookings_marketplace_version_insert after insert on bookings when new.kind = 'marketplace' ${bump}`).execute(db);
  await sql
    .raw(`create trigger bookings_marketplace_version_update after update on bookings when new.kind = 'marketplace' or old.kind = 'marketplace' ${bump}`)
    .execute(db);
  await sql.raw(`create trigger bookings_marketplace_version_delete after delete on bookings when old.kind = 'marketplace' ${bump}`).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const event of ['insert', 'update', 'delete']) await sql.raw(`drop trigger if exists bookings_marketplace_version_${event}`).execute(db);
  await sql`drop trigger if exists settlements_provider_payout_fixed`.execute(db);
  await sql`drop index if exists settlements_provider_payout_idx`.execute(db);
  await sql`ALTER TABLE settlements DROP COLUMN paid_at`.execute(db);
  await sql`ALTER TABLE settlements DROP COLUMN commission`.execute(db);
  for (const table of ['marketplace_commission_lines', 'marketplace_order_lines', 'marketplace_orders'])
    await sql.raw(`drop table if exists ${table}`).execute(db);
}
