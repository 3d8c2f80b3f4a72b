import SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type SqliteDatabase,
  type SqliteDialectConfig,
  type SqliteStatement,
  type Transaction,
} from 'kysely';
import type { JobsTables } from '../jobs/jobs.table.js';
import type { AppointmentsTables } from '../modules/appointments/appointments.table.js';
import type { DocumentsTables } from '../modules/documents/documents.table.js';
import type { MedicalRecordsTables } from '../modules/medical-records/medical-records.table.js';
import type { NotificationsTables } from '../modules/notifications/notifications.table.js';
import type { PaymentsTables } from '../modules/payments/payments.table.js';
import type { ProvidersTables } from '../modules/providers/providers.table.js';
import type { SandboxClockTables } from '../modules/sandbox/sandbox-clock.table.js';
import type { VaccinationsTables } from '../modules/vaccinations/vaccinations.table.js';
import type { WebhooksTables } from '../modules/webhooks/webhooks.table.js';

/** Times are ISO 8601 UTC strings, dates YYYY-MM-DD, booleans 0/1, lists JSON text. */
export interface TenantsTable {
  id: string;
  name: string;
  created_at: string;
}

export interface LocationsTable {
  id: string;
  tenant_id: string;
  name: string;
  timezone: string;
  /** ISO 4217 code its invoices default to (payments module). */
  currency: string;
  /** Tax rate in basis points (825 = 8.25 %) for invoice lines that do not set their own. */
  tax_rate_bps: number;
  created_at: string;
  updated_at: string;
}

export interface ApiClientsTable {
  id: string;
  tenant_id: string;
  client_id: string;
  name: string;
  role: string;
  scopes: string;
  secret_hash: string;
  location_ids: string | null;
  ip_allowlist: string | null;
  rate_limit_per_minute: number | null;
  disabled: number;
  /** Petcare-Version answered when a request sends none (a dated API version). */
  api_version: string;
  created_at: string;
  updated_at: string;
}

export interface RefreshTokensTable {
  id: string;
  tenant_id: string;
  client_id: string;
  family_id: string;
  token_hash: string;
  scope: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  revoked_at: string | null;
}

export interface RevokedAccessTokensTable {
  jti: string;
  expires_at: string;
}

export interface IdempotencyKeysTable {
  client_id: string;
  key: string;
  fingerprint: string;
  response_status: number;
  response_body: string;
  created_at: string;
  expires_at: string;
}

export interface AuditEventsTable {
  id: string;
  tenant_id: string | null;
  request_id: string;
  occurred_at: string;
  client_id: string | null;
  role: string | null;
  ip: string;
  method: string;
  route: string;
  path: string;
  resource_id: string | null;
  status: number;
  latency_ms: number;
}

export interface EventsTable {
  id: string;
  tenant_id: string;
  type: string;
  data: string;
  created_at: string;
}

export interface PetParentsTable {
  id: string;
  tenant_id: string;
  location_id: string;
  name: string;
  email: string | null;
  phone: string | null;
  reminder_consent: number;
  created_at: string;
  updated_at: string;
}

export interface PetsTable {
  id: string;
  tenant_id: string;
  location_id: string;
  owner_id: string;
  name: string;
  breed: string;
  species: string;
  birth_date: string | null;
  last_visit: string | null;
  created_at: string;
  updated_at: string;
}

/** Foundation tables are declared here; each later module declares its own in `<module>.table.ts`. */
export interface Database
  extends ProvidersTables,
    AppointmentsTables,
    VaccinationsTables,
    MedicalRecordsTables,
    DocumentsTables,
    JobsTables,
    WebhooksTables,
    NotificationsTables,
    PaymentsTables,
    SandboxClockTables {
  tenants: TenantsTable;
  locations: LocationsTable;
  api_clients: ApiClientsTable;
  refresh_tokens: RefreshTokensTable;
  revoked_access_tokens: RevokedAccessTokensTable;
  idempotency_keys: IdempotencyKeysTable;
  audit_events: AuditEventsTable;
  events: EventsTable;
  pet_parents: PetParentsTable;
  pets: PetsTable;
}

export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;
/** Anything queries can run on: the database or an open transaction. */
export type Executor = Db | Trx;

export interface DatabaseHandle {
  readonly db: Db;
  readonly sqlite: SQLite.Database;
  readonly file: string;
}

const statementCacheSize = 500;

/**
 * Kysely prepares every query afresh; preparing costs more than running a primary-key lookup.
 * This keeps the most recent prepared statements by SQL text (Kysely serialises queries on the
 * connection, so a cached statement is never in use twice at once).
 */
export function withStatementCache(sqlite: SQLite.Database): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string): SqliteStatement {
      let statement = cache.get(sql);
      if (statement) {
        cache.delete(sql); // re-insert below: Map order doubles as LRU order
      } else {
        statement = sqlite.prepare(sql);
        if (cache.size >= statementCacheSize) {
          const oldest = cache.keys().next().value;
          if (oldest !== undefined) cache.delete(oldest);
        }
      }
      cache.set(sql, statement);
      return statement;
    },
  };
}

/**
 * Transactions take the write lock up front (BEGIN IMMEDIATE). With a deferred BEGIN, another
 * process (the CLI) committing between our read and our write makes SQLite fail the write with
 * SQLITE_BUSY_SNAPSHOT, which no busy timeout retries; IMMEDIATE waits for the lock instead.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly dialectConfig: SqliteDialectConfig) {
    super(dialectConfig);
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.dialectConfig);
  }
}

/** Opens one environment's SQLite file: WAL for concurrent readers, enforced foreign keys, a busy timeout for the CLI. */
export function openDatabase(file: string): DatabaseHandle {
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: withStatementCache(sqlite) }) });
  return { db, sqlite, file };
}
