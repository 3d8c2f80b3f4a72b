import SQLite from 'better-sqlite3';
import { createRequire } from 'node:module';
import {
  CompiledQuery,
  Kysely,
  type Generated,
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
  /** Token generation: moved by a secret rotation or a disable; access tokens carrying an older `gen` are refused. */
  token_generation: number;
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
  /** Commit order (the rowid, named): SQLite gives a new row max(seq) + 1, one writer at a time. Webhook fan-out reads by it. */
  seq: Generated<number>;
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
  /** The source system's id of an imported row (imports module), null otherwise; unique per tenant. */
  external_id?: string | null;
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

/**
 * Foundation tables are declared here; each later module declares its own in `<module>.table.ts`
 * and adds them to this interface from its manifest (`declare module '../../db/database.js'` in
 * `<module>.module.ts`), so src/db imports no module.
 */
export interface Database extends JobsTables {
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
 * Prepared statements by SQL text, the least recently used evicted first. A use only stamps its
 * entry (moving it to the end of the Map, a delete and a set per statement, cost ~0.7 µs each on
 * the hot paths); a miss with the cache full finds the oldest stamp, as rare as a prepare is.
 */
class StatementCache {
  private readonly statements = new Map<string, { statement: SQLite.Statement; used: number }>();
  private uses = 0;

  constructor(private readonly sqlite: SQLite.Database) {}

  prepare(sql: string): SQLite.Statement {
    const found = this.statements.get(sql);
    if (found) {
      found.used = ++this.uses;
      return found.statement;
    }
    const statement = this.sqlite.prepare(sql);
    if (this.statements.size >= statementCacheSize) {
      let oldest: string | undefined;
      let oldestUse = Number.POSITIVE_INFINITY;
      for (const [text, entry] of this.statements) {
        if (entry.used < oldestUse) {
          oldestUse = entry.used;
          oldest = text;
        }
      }
      if (oldest !== undefined) this.statements.delete(oldest);
    }
    this.statements.set(sql, { statement, used: ++this.uses });
    return statement;
  }
}

/**
 * Kysely prepares every query afresh; preparing costs more than running a primary-key lookup.
 * This keeps the most recent prepared statements by SQL text (Kysely serialises queries on the
 * connection, so a cached statement is never in use twice at once).
 */
export function withStatementCache(sqlite: SQLite.Database, cache = new StatementCache(sqlite)): SqliteDatabase {
  return {
    close: () => sqlite.close(),
    prepare: (sql: string): SqliteStatement => cache.prepare(sql) as unknown as SqliteStatement,
  };
}

/**
 * The connection behind a Kysely instance, for statements given as SQL text. `owned` marks a
 * transaction the caller holds (registered by `holdsConnection`): nothing else can run on the
 * connection until it ends, so a synchronous call there is inside that transaction.
 */
interface RawConnection {
  readonly sqlite: SQLite.Database;
  readonly statements: StatementCache;
  readonly owned: boolean;
}

const rawConnections = new WeakMap<Executor, RawConnection>();

/**
 * A stable identity of the database behind an executor (its SQLite connection, the same for the
 * database and for every transaction the router opens on it; the executor itself when unknown),
 * for per-database caches that must hold across transactions.
 */
export function databaseIdentity(db: Executor): object {
  return rawConnections.get(db)?.sqlite ?? db;
}

/** The connection a statement may run on at once, synchronously; null when it must queue through Kysely. */
function runnableNow(db: Executor): RawConnection | null {
  const raw = rawConnections.get(db);
  // On the database itself, only while no transaction is open on the connection: a transaction
  // spans awaits, and a statement run in between would read its uncommitted rows.
  return raw && (raw.owned || !raw.sqlite.inTransaction) ? raw : null;
}

/**
 * Rows of a read given as SQL text (a constant, or text built once per shape). It skips Kysely's
 * builder, compiler and asynchronous connection hand-off, which cost more than a primary-key
 * lookup: on the database with no transaction open, or in a transaction the router holds, it runs
 * at once; otherwise it queues through Kysely like any query (behind the open transaction).
 */
export async function selectRows<Row>(db: Executor, sql: string, parameters: readonly unknown[]): Promise<Row[]> {
  const raw = runnableNow(db);
  if (raw) return raw.statements.prepare(sql).all(parameters) as Row[];
  return (await db.executeQuery<Row>(CompiledQuery.raw(sql, [...parameters]))).rows;
}

/** A write given as SQL text, run as `selectRows` runs reads; returns the number of rows changed. */
export async function runStatement(db: Executor, sql: string, parameters: readonly unknown[]): Promise<number> {
  const raw = runnableNow(db);
  if (raw) return raw.statements.prepare(sql).run(parameters).changes;
  const result = await db.executeQuery(CompiledQuery.raw(sql, [...parameters]));
  return Number(result.numAffectedRows ?? 0n);
}

const insertTexts = new Map<string, string>();

/**
 * Inserts one row (columns are the row's own keys, undefined ones left out) with SQL text built
 * once per table and column list, run as `runStatement` runs writes: for inserts on hot paths,
 * where Kysely's builder and compiler cost more than the insert.
 */
export async function insertRow<T extends keyof Database & string>(db: Executor, table: T, row: Database[T]): Promise<void> {
  const columns: string[] = [];
  const values: unknown[] = [];
  for (const [column, value] of Object.entries(row)) {
    if (value === undefined) continue;
    columns.push(column);
    values.push(value);
  }
  const shape = `${table}(${columns.join(',')})`;
  let text = insertTexts.get(shape);
  if (!text) {
    text = `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values (${columns.map(() => '?').join(', ')})`;
    if (insertTexts.size < 1000) insertTexts.set(shape, text);
  }
  await runStatement(db, text, values);
}

/**
 * Declares that `trx` is a transaction of `db` that the caller holds for its whole callback (the
 * router's write transactions), so `selectRows`/`runStatement` on it run at once, inside it.
 */
export function holdsConnection(trx: Trx, db: Db): void {
  const raw = rawConnections.get(db);
  if (raw) rawConnections.set(trx, { ...raw, owned: true });
}

/**
 * Declares `alias` (`db.withPlugin(…)`: the same connection through other plugins) as `db` for raw
 * statements and `databaseIdentity`, so per-database caches and fast paths hold through it.
 */
export function sameConnection(alias: Db, db: Db): Db {
  const raw = rawConnections.get(db);
  if (raw) rawConnections.set(alias, raw);
  return alias;
}

/**
 * Runs synchronous work on the raw connection while holding Kysely's connection lock, so no
 * Kysely transaction is open or can start meanwhile (batched writes of prepared statements).
 */
export async function withConnection<T>(db: Db, work: (sqlite: SQLite.Database, prepare: (sql: string) => SQLite.Statement) => T): Promise<T> {
  const raw = rawConnections.get(db);
  if (!raw) throw new Error('withConnection needs a database opened by openDatabase');
  return db.connection().execute(async () => work(raw.sqlite, (sql) => raw.statements.prepare(sql)));
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

/** Whether sqlite-vec loaded into the connections opened so far, and why not when it did not. */
let vectorExtension: { loaded: boolean; reason: string | null } = { loaded: false, reason: 'no database opened yet' };

/** sqlite-vec's state for the AI platform: without it retrieval stays lexical and says why. */
export const vectorExtensionStatus = (): { loaded: boolean; reason: string | null } => vectorExtension;

const requireModule = createRequire(import.meta.url);

/**
 * Loads sqlite-vec (vector distance functions for the AI platform's retrieval) into a connection.
 * A platform without its binary still opens the database: lexical search keeps working.
 */
function loadVectorExtension(sqlite: SQLite.Database): void {
  try {
    (requireModule('sqlite-vec') as { load(db: SQLite.Database): void }).load(sqlite);
    vectorExtension = { loaded: true, reason: null };
  } catch (err) {
    vectorExtension = { loaded: false, reason: `sqlite-vec could not be loaded: ${err instanceof Error ? err.message : String(err)}`.slice(0, 300) };
  }
}

/** Opens one environment's SQLite file: WAL for concurrent readers, enforced foreign keys, a busy timeout for the CLI. */
export function openDatabase(file: string): DatabaseHandle {
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // Each API write runs in a savepoint of a group-committed transaction (WriteBatches), and a
  // savepoint keeps the pages it changes in a sub-journal: in memory that costs a copy, in a temp
  // file a system call per page (measured: 135 → 76 µs of SQLite CPU per POST /v1/pets).
  sqlite.pragma('temp_store = MEMORY');
  // Sized for a multi-GB file (years of a group's data): SQLite's default page cache (2 MB) keeps
  // too few index pages to stay off the disk; 64 MB holds the hot ones (allocated as used). Reads
  // through a memory map of the first 1 GB skip a copy per page (the OS page cache is shared).
  sqlite.pragma('cache_size = -65536');
  sqlite.pragma('mmap_size = 1073741824');
  loadVectorExtension(sqlite);
  const statements = new StatementCache(sqlite);
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: withStatementCache(sqlite, statements) }) });
  rawConnections.set(db, { sqlite, statements, owned: false });
  return { db, sqlite, file };
}
