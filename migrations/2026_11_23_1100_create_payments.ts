import { sql, type Kysely } from 'kysely';

/**
 * The money ledger (DESIGN §9). Rules that are local to a row or a table live here, in SQLite,
 * so no code path can break them: balanced and append-only journal entries, non-negative wallet
 * balances, refunds never above what was paid, one invoice per subscription period, gapless
 * invoice numbers, immutable finalized invoices and closed days.
 * Migrations are frozen in time: raw SQL, never the app's Database type.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const run = (statement: ReturnType<typeof sql>) => statement.execute(db);

  // Erasing a tenant's money records (sandbox reset) is the one deliberate exception to append-only:
  // a row here for the tenant, inserted and removed in the erasing transaction, lets its DELETEs through.
  await run(sql`CREATE TABLE money_erasures (tenant_id TEXT PRIMARY KEY, reason TEXT NOT NULL)`);
  const notErasing = sql.raw('NOT EXISTS (SELECT 1 FROM money_erasures WHERE tenant_id = OLD.tenant_id)');

  // ------------------------------------------------------------------ journal
  await run(sql`
    CREATE TABLE ledger_entries (
      id TEXT PRIMARY KEY,
      tenant_id TEXT NOT NULL REFERENCES tenants(id),
      location_id TEXT REFERENCES locations(id),
      source_type TEXT NOT NULL,
      source_id TEXT NOT NULL,
      currency TEXT NOT NULL CHECK (length(currency) = 3),
      memo TEXT NOT NULL,
      created_at TEXT NOT NULL
    ) WITHOUT ROWID`);
  await run(sql`CREATE INDEX ledger_entries_source_idx ON ledger_entries (tenant_id, source_id)`);
  // Lines are written first and the entry last: the entry's insert checks its lines (the foreign key
  // waits for COMMIT), and once the entry exists no line can join it.
  await run(sql`
    CREATE TABLE ledger_lines (
      entry_id TEXT NOT NULL REFERENCES ledger_entries(id) DEFERRABLE INITIALLY DEFERRED,
      position INTEGER NOT NULL CHECK (position >= 0),
      tenant_id TEXT NOT NULL,
      account TEXT NOT NULL CHECK (length(account) BETWEEN 3 AND 200),
      amount INTEGER NOT NULL CHECK (amount <> 0 AND abs(amount) <= 1000000000000000),
      PRIMARY KEY (entry_id, position)
    ) WITHOUT ROWID`);
  // The account index covers the accounts looked up one by one, per parent and per wallet (receivable:, wallet:).
  // The few shared accounts (cash, revenue, tax, bad debt) are read by scanning: indexing them would cost every
  // posting a write to each of their index pages. Queries repeat this exact WHERE term to use the index.
  await run(sql`CREATE INDEX ledger_lines_account_idx ON ledger_lines (account, entry_id) WHERE substr(account, 1, 7) IN ('receiva', 'wallet:')`);
  await run(sql`
    CREATE TRIGGER ledger_entries_balanced BEFORE INSERT ON ledger_entries
    WHEN (SELECT count(*) < 2 OR total(amount) <> 0 OR total(tenant_id <> NEW.tenant_id) > 0 FROM ledger_lines WHERE entry_id = NEW.id)
    BEGIN
      SELECT RAISE(ABORT, 'ledger entries must balance: two or more lines summing to zero');
    END`);
  await run(sql`
    CREATE TRIGGER ledger_lines_sealed BEFORE INSERT ON ledger_lines
    WHEN EXISTS (SELECT 1 FROM ledger_entries WHERE id = NEW.entry_id)
    BEGIN
      SELECT RAISE(ABORT, 'ledger entries are sealed once posted: post a new entry instead');
    END`);
  for (const table of ['ledger_entries', 'ledger_lines']) {
    await run(sql`
      CREATE TRIGGER ${sql.raw(`${table}_no_update`)} BEFORE UPDATE ON ${sql.raw(table)}
      BEGIN
        SELECT RAISE(ABORT, 'the journal is append-only: post a reversing entry instead');
      END`);
    await run(sql`
      CREATE TRIGGER ${sql.raw(`${table}_no_delete`)} BEFORE DELETE ON ${sql.raw(table)}
      WHEN ${notErasing}
      BEGIN
        SELECT RAISE(ABORT, 'the journal is append-only: post a reversing entry instead');
      END`);
  }

  // ------------------------------------------------------------------ invoices
  await run(sql`
    CREATE TABLE invoices (
      id TEXT PRIMARY KEY,
      tenant_id TEXT NOT NULL REFERENCES tenants(id),
      location_id TEXT NOT NULL REFERENCES locations(id),
      parent_id TEXT NOT NULL REFERENCES pet_parents(id),
      pet_id TEXT REFERENCES pets(id),
      number TEXT,
      status TEXT NOT NULL CHECK (status IN ('draft', 'open', 'paid', 'void', 'uncollectible')),
      currency TEXT NOT NULL CHECK (length(currency) = 3),
      subtotal INTEGER NOT NULL CHECK (subtotal >= 0),
      tax INTEGER NOT NULL CHECK (tax >= 0),
      total INTEGER NOT NULL CHECK (total = subtotal + tax),
      amount_paid INTEGER NOT NULL DEFAULT 0 CHECK (amount_paid >= 0 AND amount_paid <= total),
      amount_refunded INTEGER NOT NULL DEFAULT 0 CHECK (amount_refunded >= 0 AND amount_refunded <= amount_paid),
      due_on TEXT,
      subscription_id TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      finalized_at TEXT,
      paid_at TEXT,
      voided_at TEXT,
      uncollectible_at TEXT,
      CHECK ((status = 'draft') = (number IS NULL)),
      CHECK (status <> 'paid' OR amount_paid = total),
      CHECK (status <> 'void' OR amount_paid = amount_refunded)
    )`);
  await run(sql`CREATE UNIQUE INDEX invoices_number_idx ON invoices (tenant_id, location_id, number) WHERE number IS NOT NULL`);
  await run(sql`CREATE INDEX invoices_tenant_idx ON invoices (tenant_id, id)`);
  await run(sql`CREATE INDEX invoices_parent_idx ON invoices (parent_id, id)`);
  await run(sql`CREATE INDEX invoices_location_idx ON invoices (location_id, status, id)`);
  // OpenVPMS: a finalized document is immutable; only payments, refunds and the status move on it.
  await run(sql`
    CREATE TRIGGER invoices_finalized_immutable BEFORE UPDATE ON invoices
    WHEN OLD.status <> 'draft' AND (
      NEW.subtotal <> OLD.subtotal OR NEW.tax <> OLD.tax OR NEW.total <> OLD.total OR NEW.currency <> OLD.currency
      OR NEW.number IS NOT OLD.number OR NEW.parent_id <> OLD.parent_id OR NEW.location_id <> OLD.location_id
      OR NEW.pet_id IS NOT OLD.pet_id OR NEW.due_on IS NOT OLD.due_on
      OR NEW.amount_paid < OLD.amount_paid OR NEW.amount_refunded < OLD.amount_refunded
      OR NEW.status = 'draft')
    BEGIN
      SELECT RAISE(ABORT, 'a finalized invoice is immutable');
    END`);
  await run(sql`
    CREATE TRIGGER invoices_final_status BEFORE UPDATE OF status ON invoices
    WHEN NEW.status <> OLD.status AND (OLD.status IN ('paid', 'void') OR (OLD.status = 'uncollectible' AND NEW.status <> 'paid'))
    BEGIN
      SELECT RAISE(ABORT, 'paid and void are final invoice states; an uncollectible one can only become paid');
    END`);
  await run(sql`
    CREATE TRIGGER invoices_no_delete BEFORE DELETE ON invoices
    WHEN ${notErasing}
    BEGIN
      SELECT RAISE(ABORT, 'invoices are never deleted: void an open one');
    END`);

  await run(sql`
    CREATE TABLE invoice_lines (
      id TEXT PRIMARY KEY,
      invoice_id TEXT NOT NULL REFERENCES invoices(id),
      tenant_id TEXT NOT NULL,
      position INTEGER NOT NULL CHECK (position >= 0),
      description TEXT NOT NULL,
      quantity INTEGER NOT NULL CHECK (quantity >= 1),
      unit_amount INTEGER NOT NULL CHECK (unit_amount >= 0),
      amount INTEGER NOT NULL CHECK (amount = quantity * unit_amount AND amount <= 1000000000000),
      tax_rate_bps INTEGER NOT NULL CHECK (tax_rate_bps BETWEEN 0 AND 10000),
      tax_amount INTEGER NOT NULL CHECK (tax_amount >= 0),
      source_id TEXT,
      UNIQUE (invoice_id, position)
    )`);
  await run(sql`CREATE INDEX invoice_lines_source_idx ON invoice_lines (source_id) WHERE source_id IS NOT NULL`);
  const draftOnly = (event: 'INSERT' | 'UPDATE' | 'DELETE') => {
    const row = event === 'INSERT' ? 'NEW' : 'OLD';
    const exempt = event === 'DELETE' ? sql` AND ${notErasing}` : sql``;
    return run(sql`
      CREATE TRIGGER ${sql.raw(`invoice_lines_draft_only_${event.toLowerCase()}`)} BEFORE ${sql.raw(event)} ON invoice_lines
      WHEN (SELECT status FROM invoices WHERE id = ${sql.raw(row)}.invoice_id) <> 'draft'${exempt}
      BEGIN
        SELECT RAISE(ABORT, 'the lines of a finalized invoice are immutable');
      END`);
  };
  await draftOnly('INSERT');
  await draftOnly('UPDATE');
  await draftOnly('DELETE');

  // Gapless numbers: the counter row moves in the finalizing transaction, so a rollback gives the number back.
  await run(sql`
    CREATE TABLE invoice_number_counters (
      tenant_id TEXT NOT NULL,
      location_id TEXT NOT NULL REFERENCES locations(id),
      prefix TEXT NOT NULL,
      last_number INTEGER NOT NULL CHECK (last_number >= 1),
      PRIMARY KEY (tenant_id, location_id)
    )`);

  // ------------------------------------------------------------------ wallets
  await run(sql`
    CREATE TABLE wallets (
      id TEXT PRIMARY KEY,
      tenant_id TEXT NOT NULL REFERENCES tenants(id),
      parent_id TEXT NOT NULL REFERENCES pet_parents(id),
      currency TEXT NOT NULL CHECK (length(currency) = 3),
      balance INTEGER NOT NULL DEFAULT 0 CHECK (balance >= 0),
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      UNIQUE (tenant_id, parent_id, currency)
    )`);
  await run(sql`CREATE INDEX wallets_tenant_idx ON wallets (tenant_id, id)`);
  await run(sql`
    CREATE TABLE wallet_transactions (
      id TEXT PRIMARY KEY,
      tenant_id TEXT NOT NULL,
      wallet_id TEXT NOT NULL REFERENCES wallets(id),
      type TEXT NOT NULL CHECK (type IN ('top_up', 'payment', 'refund', 'adjustment')),
      amount INTEGER NOT NULL CHECK (amount <> 0),
      balance_after INTEGER NOT NULL CHECK (balance_after >= 0),
      source_id TEXT,
      method TEXT,
      reference TEXT,
      reason TEXT,
      created_at TEXT NOT NULL,
      CHECK ((type IN ('top_up', 'refund') AND amount > 0) OR (type = 'payment' AND amount < 0) OR type = 'adjustment')
    )`);
  await run(sql`CREATE INDEX wallet_transactions_wallet_idx ON wallet_transactions (wallet_id, id)`);
  // The balance column moves only with a transaction row, so it always equals the sum of them.
  await run(sql`
    CREATE TRIGGER wallet_transactions_chain BEFORE INSERT ON wallet_transactions
    WHEN NEW.balance_after <> (SELECT balance FROM wallets WHERE id = NEW.wallet_id) + NEW.amount
    BEGIN
      SELECT RAISE(ABORT, 'wallet transaction balanceAfter must equal the balance plus its amount');
    END`);
  await run(sql`
    CREATE TRIGGER wallet_transactions_apply AFTER INSERT ON wallet_transactions
    BEGIN
      UPDATE wallets SET balance = NEW.balance_after, updated_at = NEW.created_at WHERE id = NEW.wallet_id;
    END`);
  await run(sql`
    CREATE TRIGGER wallets_balance_from_transactions BEFORE UPDATE OF balance ON wallets
    WHEN NEW.balance <> (SELECT balance_after FROM wallet_transactions WHERE wallet_id = NEW.id ORDER BY id DESC LIMIT 1)
    BEGIN
      SELECT RAISE(ABORT, 'a wallet balance moves only through a wallet transaction');
    END`);
  await run(sql`
    CREATE TRIGGER wallet_transactions_no_update BEFORE UPDATE ON wallet_transactions
    BEGIN
      SELECT RAISE(ABORT, 'wallet transactions are append-only');
    END`);
  await run(sql`
    CREATE TRIGGER wallet_transactions_no_delete BEFORE DELETE ON wallet_transactions
    WHEN ${notErasing}
    BEGIN
      SELECT RAISE(ABORT, 'wallet transactions are append-only');
    END`);

  // ------------------------------------------------------------------ payments and refunds
  await run(sql`
    CREATE TABLE payments (
      id TEXT PRIMARY KEY,
      tenant_id TEXT NOT NULL REFERENCES tenants(id),
      location_id TEXT NOT NULL REFERENCES locations(id),
      parent_id TEXT NOT NULL REFERENCES pet_parents(id),
      invoice_id TEXT REFERENCES invoices(id),
      wallet_id TEXT REFERENCES wallets(id),
      amount INTEGER NOT NULL CHECK (amount > 0 AND amount <= 1000000000000),
      amount_refunded INTEGER NOT NULL DEFAULT 0 CHECK (amount_refunded >= 0 AND amount_refunded <= amount),
      currency TEXT NOT NULL CHECK (length(currency) = 3),
      method TEXT NOT NULL CHECK (method IN ('cash', 'card_terminal', 'bank_transfer', 'check', 'wallet')),
      reference TEXT,
      status TEXT NOT NULL CHECK (status = 'succeeded'),
      settlement_id TEXT,
      created_at TEXT NOT NULL,
      CHECK ((method = 'wallet') = (wallet_id IS NOT NULL))
    ) WITHOUT ROWID`);
  // One index for both filters: an invoice's payments are its parent's (parent_id, invoice_id) prefix.
  await run(sql`CREATE INDEX payments_parent_idx ON payments (parent_id, invoice_id, id)`);
  await run(sql`CREATE INDEX payments_unsettled_idx ON payments (location_id, created_at) WHERE settlement_id IS NULL`);

  await run(sql`
    CREATE TABLE refunds (
      id TEXT PRIMARY KEY,
      tenant_id TEXT NOT NULL REFERENCES tenants(id),
      location_id TEXT NOT NULL REFERENCES locations(id),
      payment_id TEXT NOT NULL REFERENCES payments(id),
      invoice_id TEXT REFERENCES invoices(id),
      amount INTEGER NOT NULL CHECK (amount > 0 AND amount <= 1000000000000),
      currency TEXT NOT NULL CHECK (length(currency) = 3),
      reason TEXT,
      status TEXT NOT NULL CHECK (status = 'succeeded'),
      settlement_id TEXT,
      created_at TEXT NOT NULL
    ) WITHOUT ROWID`);
  await run(sql`CREATE INDEX refunds_payment_idx ON refunds (payment_id, id)`);
  // No index for the daily close: refunds are few, and it scans them once a day.

  // A payment or refund changes only by being refunded further or claimed by a daily close.
  await run(sql`
    CREATE TRIGGER payments_append_only BEFORE UPDATE ON payments
    WHEN NEW.amount <> OLD.amount OR NEW.currency <> OLD.currency OR NEW.method <> OLD.method OR NEW.parent_id <> OLD.parent_id
      OR NEW.invoice_id IS NOT OLD.invoice_id OR NEW.location_id <> OLD.location_id OR NEW.created_at <> OLD.created_at
      OR NEW.amount_refunded < OLD.amount_refunded OR (OLD.settlement_id IS NOT NULL AND NEW.settlement_id IS NOT OLD.settlement_id)
    BEGIN
      SELECT RAISE(ABORT, 'a payment is a record of money received: only its refunded amount and settlement move');
    END`);
  await run(sql`
    CREATE TRIGGER refunds_append_only BEFORE UPDATE ON refunds
    WHEN NEW.amount <> OLD.amount OR NEW.payment_id <> OLD.payment_id OR NEW.created_at <> OLD.created_at OR NEW.location_id <> OLD.location_id
      OR (OLD.settlement_id IS NOT NULL AND NEW.settlement_id IS NOT OLD.settlement_id)
    BEGIN
      SELECT RAISE(ABORT, 'a refund is a record of money paid back: only its settlement moves');
    END`);
  for (const table of ['payments', 'refunds']) {
    await run(sql`
      CREATE TRIGGER ${sql.raw(`${table}_no_delete`)} BEFORE DELETE ON ${sql.raw(table)}
      WHEN ${notErasing}
      BEGIN
        SELECT RAISE(ABORT, 'money records are never deleted');
      END`);
  }

  // ------------------------------------------------------------------ subscriptions
  await run(sql`
    CREATE TABLE subscriptions (
      id TEXT PRIMARY KEY,
      tenant_id TEXT NOT NULL REFERENCES tenants(id),
      location_id TEXT NOT NULL REFERENCES locations(id),
      parent_id TEXT NOT NULL REFERENCES pet_parents(id),
      pet_id TEXT REFERENCES pets(id),
      description TEXT NOT NULL,
      amount INTEGER NOT NULL CHECK (amount > 0 AND amount <= 1000000000000),
      currency TEXT NOT NULL CHECK (length(currency) = 3),
      interval TEXT NOT NULL CHECK (interval IN ('week', 'month', 'year')),
      interval_count INTEGER NOT NULL CHECK (interval_count BETWEEN 1 AND 52),
      collection TEXT NOT NULL CHECK (collection IN ('wallet', 'send_invoice')),
      status TEXT NOT NULL CHECK (status IN ('trialing', 'active', 'past_due', 'paused', 'canceled')),
      start_date TEXT NOT NULL,
      trial_end TEXT,
      anchor_date TEXT NOT NULL,
      next_period_index INTEGER NOT NULL CHECK (next_period_index >= 0),
      current_period_start TEXT NOT NULL,
      current_period_end TEXT NOT NULL,
      latest_invoice_id TEXT,
      cancel_at_period_end INTEGER NOT NULL DEFAULT 0 CHECK (cancel_at_period_end IN (0, 1)),
      canceled_at TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`);
  await run(sql`CREATE INDEX subscriptions_tenant_idx ON subscriptions (tenant_id, id)`);
  await run(sql`CREATE INDEX subscriptions_billing_idx ON subscriptions (status, id)`);
  // Exactly one invoice per subscription period, however often (or in parallel) the job runs.
  await run(sql`
    CREATE TABLE subscription_invoices (
      subscription_id TEXT NOT NULL REFERENCES subscriptions(id),
      period_start TEXT NOT NULL,
      period_end TEXT NOT NULL CHECK (period_end > period_start),
      invoice_id TEXT NOT NULL UNIQUE REFERENCES invoices(id),
      tenant_id TEXT NOT NULL,
      created_at TEXT NOT NULL,
      PRIMARY KEY (subscription_id, period_start)
    )`);

  // ------------------------------------------------------------------ settlements
  await run(sql`
    CREATE TABLE settlements (
      id TEXT PRIMARY KEY,
      tenant_id TEXT NOT NULL REFERENCES tenants(id),
      kind TEXT NOT NULL CHECK (kind IN ('daily_close', 'provider_payout')),
      location_id TEXT REFERENCES locations(id),
      provider_id TEXT,
      period_start TEXT NOT NULL,
      period_end TEXT NOT NULL CHECK (period_end >= period_start),
      currency TEXT NOT NULL CHECK (length(currency) = 3),
      gross INTEGER NOT NULL CHECK (gross >= 0),
      refunds INTEGER NOT NULL CHECK (refunds >= 0),
      net INTEGER NOT NULL,
      by_method TEXT NOT NULL,
      payment_count INTEGER NOT NULL CHECK (payment_count >= 0),
      refund_count INTEGER NOT NULL CHECK (refund_count >= 0),
      status TEXT NOT NULL,
      created_at TEXT NOT NULL,
      CHECK (kind <> 'daily_close' OR (location_id IS NOT NULL AND net = gross - refunds AND status = 'closed'))
    )`);
  await run(sql`CREATE INDEX settlements_tenant_idx ON settlements (tenant_id, id)`);
  await run(sql`CREATE UNIQUE INDEX settlements_daily_close_idx ON settlements (tenant_id, location_id, period_start, currency) WHERE kind = 'daily_close'`);
  await run(sql`
    CREATE TRIGGER settlements_daily_close_immutable BEFORE UPDATE ON settlements
    WHEN OLD.kind = 'daily_close'
    BEGIN
      SELECT RAISE(ABORT, 'a closed day is immutable: later entries fall into the next close');
    END`);
  await run(sql`
    CREATE TRIGGER settlements_no_delete BEFORE DELETE ON settlements
    WHEN ${notErasing}
    BEGIN
      SELECT RAISE(ABORT, 'settlements are never deleted');
    END`);
  // How far each location's days are closed (its local dates), so missed runs catch up from there.
  await run(sql`
    CREATE TABLE daily_close_marks (
      tenant_id TEXT NOT NULL,
      location_id TEXT NOT NULL REFERENCES locations(id),
      closed_through TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      PRIMARY KEY (tenant_id, location_id)
    )`);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'daily_close_marks',
    'settlements',
    'subscription_invoices',
    'subscriptions',
    'refunds',
    'payments',
    'wallet_transactions',
    'wallets',
    'invoice_number_counters',
    'invoice_lines',
    'invoices',
    'ledger_lines',
    'ledger_entries',
    'money_erasures',
  ]) {
    await sql`DROP TABLE IF EXISTS ${sql.raw(table)}`.execute(db);
  }
}
