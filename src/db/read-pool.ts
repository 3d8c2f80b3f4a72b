import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import {
  CompiledQuery,
  Kysely,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
} from 'kysely';
import { workerScriptPresent } from '../jobs/worker-pool.js';
import { databaseIdentity, selectRows, type Database, type Db, type Executor } from './database.js';

/**
 * Heavy reads (analytics summaries, series, CSV exports, records pages over years of rows) off the
 * API's thread. A store's ReadPool keeps up to `readThreads` worker threads, each with its own
 * read-only connection to the store's file: in WAL mode readers neither wait for the writer nor
 * block it, and a read started after a commit sees it, so a client reads its own writes. A query is
 * built and compiled on the main thread (through `scoped(db, access)` or as SQL text, so access
 * policies apply as everywhere); only its SQL text and parameters cross to the worker, and its rows
 * come back. `offThread(db)` is the way in: an Executor whose queries (Kysely's and `selectRows`'s)
 * run on the pool, or `db` itself where there is none (a transaction the caller holds must read
 * its own uncommitted rows; a database opened without a pool; a pool whose worker could not start,
 * as in a single-file bundle without better-sqlite3 beside it): the same answer, on this thread.
 *
 * Workers start on first use and end after `idleMs` without work (an idle pool holds no thread);
 * `close()` (Stores.close, at the appliance's shutdown) terminates them and fails what they still
 * had with ReadPoolClosed. Light point reads stay on the main connection: a round trip to a worker
 * costs about 50 µs, a primary-key lookup on the main connection about 6 µs.
 *
 * A computation that reads many rows to answer few (a year of a metric by day: thousands of
 * windows, their rows summed into a few hundred figures) is better sent whole: `onReadPool` runs a
 * named task — an exported function of a module beside its caller, given `Reads` over the worker's
 * connection and a structured-clone input — on a worker, and only its result comes back. The
 * caller decides everything about access (which tenant and locations) on the main thread and
 * passes it in; the task runs the same statements it would run here, and where there is no worker
 * (a transaction, no pool, a bundle without the task's module beside it) `inline` does the same
 * work on this thread, through `db`.
 */

/** Worker threads per store: each runs one statement at a time. */
const readThreads = 2;
const idleMs = 30_000;

/** Why a query did not run: the pool was closed (the process is stopping). */
export class ReadPoolClosed extends Error {
  constructor() {
    super('the read pool was closed before the query ran');
    this.name = 'ReadPoolClosed';
  }
}

/** A pool's worker could not open the database: queries run on the main connection instead. */
class ReadPoolUnavailable extends Error {}

type Reply =
  | { type: 'ready' }
  | { type: 'failed'; message: string }
  | { type: 'rows'; id: number; rows: unknown[]; blobs: boolean; changes: number | null }
  | { type: 'done'; id: number; value: unknown; ran: number; statements: string[] | null }
  | { type: 'error'; id: number; message: string; name: string; code: string | undefined };

/** The rows of one statement (SQL text and its parameters), read where a task runs. */
export type Reads = (sql: string, parameters: readonly unknown[]) => Promise<unknown[]>;

/** A task for `onReadPool`: the exported function `name` of the module at `module` (a file beside its caller: `workerScript` of src/jobs/worker-pool.ts gives its URL). */
export interface ReadTask<Input, Output> {
  module: URL;
  name: string;
  /** Only for the types: what the task takes and answers. */
  readonly _types?: (input: Input) => Output;
}

/** The worker: the same pragmas as openDatabase's connection, read-only; statements cached by SQL text. */
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
(() => {
  let db;
  try {
    if (!workerData.driver) throw new Error('better-sqlite3 cannot be found from here');
    const Database = require(workerData.driver);
    db = new Database(workerData.file, { readonly: true, fileMustExist: true });
    db.pragma('query_only = ON');
    db.pragma('busy_timeout = 5000');
    db.pragma('temp_store = MEMORY');
    db.pragma('cache_size = -65536');
    db.pragma('mmap_size = 1073741824');
    if (workerData.vec) try { require(workerData.vec).load(db); } catch {}
  } catch (err) {
    parentPort.postMessage({ type: 'failed', message: err && err.message ? err.message : String(err) });
    return;
  }
  const statements = new Map();
  const prepared = (sql) => {
    let statement = statements.get(sql);
    if (statement) statements.delete(sql);
    else {
      statement = db.prepare(sql);
      if (statements.size >= 200) statements.delete(statements.keys().next().value);
    }
    statements.set(sql, statement);
    return statement;
  };
  const failure = (id, err) => ({ type: 'error', id, message: String(err && err.message), name: String(err && err.name), code: typeof err?.code === 'string' ? err.code : undefined });
  // A task: the module's exported function, given reads on this connection (each statement at once: no
  // other message runs between a task's statements, which are synchronous), answers its value.
  const modules = new Map();
  let typescript;
  const runTask = async ({ id, module, name, input, trace }) => {
    try {
      // Under tsx (tests, benches, npm run dev) a task module is TypeScript: an eval'd worker runs
      // without tsx's hooks, so they are registered here, once.
      if (module.endsWith('.ts') && workerData.tsx)
        await (typescript ??= import(require('node:url').pathToFileURL(workerData.tsx).href).then((api) => api.register()));
      let loaded = modules.get(module);
      if (!loaded) modules.set(module, (loaded = import(module)));
      const task = (await loaded)[name];
      if (typeof task !== 'function') throw new Error('the read task ' + name + ' is not exported by ' + module);
      let ran = 0;
      const seen = trace ? [] : null;
      const reads = async (sql, parameters) => {
        ran++;
        if (seen && !seen.includes(sql)) seen.push(sql);
        return prepared(sql).all(parameters);
      };
      const value = await task(reads, input);
      parentPort.postMessage({ type: 'done', id, value, ran, statements: seen });
    } catch (err) {
      parentPort.postMessage(failure(id, err));
    }
  };
  parentPort.on('message', (message) => {
    if (message.module) return void runTask(message);
    const { id, sql, parameters } = message;
    try {
      const statement = prepared(sql);
      if (!statement.reader) {
        parentPort.postMessage({ type: 'rows', id, rows: [], blobs: false, changes: statement.run(parameters).changes });
        return;
      }
      const rows = statement.all(parameters);
      // A Buffer arrives as a Uint8Array: flagged, so the main thread rebuilds Buffers only then.
      let blobs = false;
      for (const row of rows) {
        for (const key in row) if (row[key] instanceof Uint8Array) { blobs = true; break; }
        if (blobs) break;
      }
      parentPort.postMessage({ type: 'rows', id, rows, blobs, changes: null });
    } catch (err) {
      parentPort.postMessage(failure(id, err));
    }
  });
  parentPort.postMessage({ type: 'ready' });
})();
`;

const requireModule = createRequire(import.meta.url);
/** This code runs as TypeScript (under tsx): task modules are too. */
const underTsx = import.meta.url.endsWith('.ts');

/** A module's resolved path for the worker's require, or null when it is not installed. */
function resolved(name: string): string | null {
  try {
    return requireModule.resolve(name);
  } catch {
    return null;
  }
}

interface Pending {
  resolve(result: unknown): void;
  reject(err: Error): void;
}

interface PoolWorker {
  readonly thread: Worker;
  readonly ready: Promise<void>;
  readonly pending: Map<number, Pending>;
  idleTimer: NodeJS.Timeout | undefined;
}

export class ReadPool {
  private readonly workers = new Set<PoolWorker>();
  private unavailable: string | null = null;
  private closed = false;
  private nextId = 1;
  private ran = 0;

  constructor(
    readonly file: string,
    private readonly size = readThreads,
  ) {}

  /**
   * Called with the SQL of each statement a task ran on a worker (tests capture what a route runs,
   * as they wrap `run`); while it is null the workers do not report them.
   */
  taskStatements: ((sql: string) => void) | null = null;

  /** Statements run on a worker so far, tasks' included (for tests: that a read went off the thread). */
  get queriesRun(): number {
    return this.ran;
  }

  /** Worker threads alive now (for tests: 0 after close). */
  get alive(): number {
    return this.workers.size;
  }

  /** Runs one statement on a worker: its rows (a reader) or the rows it changed (refused: the connections are read-only). */
  async run(sql: string, parameters: readonly unknown[]): Promise<{ rows: unknown[]; changes: number | null }> {
    const result = (await this.send((id) => ({ id, sql, parameters }))) as { rows: unknown[]; changes: number | null };
    this.ran++;
    return result;
  }

  /** Runs a task (the function `name` exported by the module at `module`, a file URL) on a worker: its value. */
  async task(module: string, name: string, input: unknown): Promise<unknown> {
    const trace = this.taskStatements;
    const { value, ran, statements } = (await this.send((id) => ({ id, module, name, input, trace: trace !== null }))) as {
      value: unknown;
      ran: number;
      statements: string[] | null;
    };
    this.ran += ran;
    if (trace && statements) for (const sql of statements) trace(sql);
    return value;
  }

  private async send(message: (id: number) => object): Promise<unknown> {
    if (this.closed) throw new ReadPoolClosed();
    if (this.unavailable !== null) throw new ReadPoolUnavailable(this.unavailable);
    const worker = this.pick();
    await worker.ready;
    if (this.closed) throw new ReadPoolClosed();
    const id = this.nextId++;
    if (worker.idleTimer !== undefined) clearTimeout(worker.idleTimer);
    worker.idleTimer = undefined;
    worker.thread.ref();
    return new Promise<unknown>((resolve, reject) => {
      worker.pending.set(id, { resolve, reject });
      worker.thread.postMessage(message(id));
    });
  }

  /** Terminates the workers; what they still had fails with ReadPoolClosed. */
  async close(): Promise<void> {
    this.closed = true;
    const workers = [...this.workers];
    this.workers.clear();
    await Promise.all(workers.map((w) => this.end(w, new ReadPoolClosed())));
  }

  /** The least busy worker; a new one while all are busy and the pool is not full. */
  private pick(): PoolWorker {
    let best: PoolWorker | undefined;
    for (const w of this.workers) if (best === undefined || w.pending.size < best.pending.size) best = w;
    if (best !== undefined && (best.pending.size === 0 || this.workers.size >= this.size)) return best;
    return this.start();
  }

  private start(): PoolWorker {
    const thread = new Worker(workerSource, {
      eval: true,
      workerData: { file: this.file, driver: resolved('better-sqlite3'), vec: resolved('sqlite-vec'), tsx: underTsx ? resolved('tsx/esm/api') : null },
    });
    const pending = new Map<number, Pending>();
    let started = false;
    let ready!: () => void;
    let failed!: (err: Error) => void;
    const worker: PoolWorker = { thread, pending, idleTimer: undefined, ready: new Promise<void>((res, rej) => ((ready = res), (failed = rej))) };
    // A rejection nobody waits for yet is not unhandled: run() awaits `ready`.
    worker.ready.catch(() => undefined);
    this.workers.add(worker);
    thread.on('message', (reply: Reply) => {
      if (reply.type === 'ready') {
        started = true;
        return ready();
      }
      if (reply.type === 'failed') {
        this.unavailable = reply.message;
        failed(new ReadPoolUnavailable(reply.message));
        void this.end(worker, new ReadPoolUnavailable(reply.message));
        return;
      }
      const call = pending.get(reply.id);
      if (call === undefined) return;
      pending.delete(reply.id);
      if (pending.size === 0) this.idle(worker);
      if (reply.type === 'error') {
        const err = new Error(reply.message) as NodeJS.ErrnoException;
        err.name = reply.name;
        if (reply.code !== undefined) err.code = reply.code;
        call.reject(err);
      } else if (reply.type === 'done') {
        call.resolve({ value: reply.value, ran: reply.ran, statements: reply.statements });
      } else {
        if (reply.blobs)
          for (const row of reply.rows as Array<Record<string, unknown>>)
            for (const key in row) if (row[key] instanceof Uint8Array) row[key] = Buffer.from(row[key] as Uint8Array);
        call.resolve({ rows: reply.rows, changes: reply.changes });
      }
    });
    const died = (err: Error) => {
      // A worker that never opened the database (no driver beside a bundle, no threads): the main connection answers.
      if (!started && !this.closed) {
        this.unavailable = err.message;
        err = new ReadPoolUnavailable(err.message);
      }
      failed(err);
      void this.end(worker, err);
    };
    thread.once('error', died);
    thread.once('exit', (code) => died(this.closed ? new ReadPoolClosed() : new Error(`a read thread stopped (exit code ${code})`)));
    return worker;
  }

  /** Lets an idle worker go: unref'd at once (it keeps no process alive), ended after idleMs. */
  private idle(worker: PoolWorker): void {
    worker.thread.unref();
    worker.idleTimer = setTimeout(() => {
      if (worker.pending.size === 0) void this.end(worker, new ReadPoolClosed());
    }, idleMs);
    worker.idleTimer.unref();
  }

  private async end(worker: PoolWorker, reason: Error): Promise<void> {
    this.workers.delete(worker);
    if (worker.idleTimer !== undefined) clearTimeout(worker.idleTimer);
    for (const call of worker.pending.values()) call.reject(reason);
    worker.pending.clear();
    await worker.thread.terminate();
  }
}

/** Kysely on a read pool: each query compiled here and run on a worker; the main connection where the pool cannot start. */
class ReadPoolDriver implements Driver {
  constructor(
    private readonly pool: ReadPool,
    private readonly fallback: Db,
  ) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const { pool, fallback } = this;
    return {
      async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
        try {
          const { rows, changes } = await pool.run(compiled.sql, compiled.parameters);
          return changes === null ? { rows: rows as R[] } : { rows: [], numAffectedRows: BigInt(changes) };
        } catch (err) {
          if (err instanceof ReadPoolUnavailable) return fallback.executeQuery<R>(compiled);
          throw err;
        }
      },
      streamQuery(): never {
        throw new Error('the read pool does not stream');
      },
    };
  }

  async beginTransaction(): Promise<void> {
    throw new Error('the read pool runs no transactions: each statement reads the last commit');
  }

  async commitTransaction(): Promise<void> {}
  async rollbackTransaction(): Promise<void> {}
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {}
}

class ReadPoolDialect implements Dialect {
  constructor(private readonly driver: ReadPoolDriver) {}
  createAdapter = () => new SqliteAdapter();
  createDriver = () => this.driver;
  createQueryCompiler = () => new SqliteQueryCompiler();
  createIntrospector = (db: Kysely<unknown>) => new SqliteIntrospector(db);
}

/** Each database's pool and its Kysely, by the database's identity (its connection). */
const pools = new WeakMap<object, { pool: ReadPool; db: Db }>();

/** Gives `db` (a file database opened by openDatabase) a read pool; Stores does it for each store and closes the pool. */
export function attachReadPool(db: Db, file: string): ReadPool | null {
  if (file === '' || file === ':memory:' || file.startsWith('file::memory:')) return null;
  const pool = new ReadPool(file);
  const reader = new Kysely<Database>({ dialect: new ReadPoolDialect(new ReadPoolDriver(pool, db)) });
  pools.set(databaseIdentity(db), { pool, db: reader });
  return pool;
}

/**
 * Where a heavy read runs: the pool of `db`'s database (queries through the returned Executor run
 * on its workers), or `db` itself inside a transaction (which must see its own writes) or where the
 * database has no pool.
 */
export function offThread(db: Executor): Executor {
  if (db.isTransaction) return db;
  return pools.get(databaseIdentity(db))?.db ?? db;
}

/** The pool behind `db`'s database, if any (for tests and benches). */
export function readPoolOf(db: Executor): ReadPool | null {
  return pools.get(databaseIdentity(db))?.pool ?? null;
}

/**
 * Runs `task` on the read pool of `db`'s database (see the header): its value, computed on a worker
 * from `input`. Where there is no worker for it — `db` is a transaction (which must read its own
 * writes), the database has no pool or its pool cannot start, the task's module is not beside its
 * caller (a single-file bundle) — `inline` computes the same on this thread, reading through `db`.
 */
export async function onReadPool<Input, Output>(
  db: Executor,
  task: ReadTask<Input, Output>,
  input: Input,
  inline: (reads: Reads) => Promise<Output>,
): Promise<Output> {
  const here: Reads = (sql, parameters) => selectRows<unknown>(db, sql, parameters);
  const pool = db.isTransaction ? undefined : pools.get(databaseIdentity(db))?.pool;
  if (pool === undefined || !hasModule(task.module)) return inline(here);
  try {
    return (await pool.task(task.module.href, task.name, input)) as Output;
  } catch (err) {
    if (err instanceof ReadPoolUnavailable) return inline(here);
    throw err;
  }
}

const modulesFound = new Map<string, boolean>();
function hasModule(module: URL): boolean {
  let found = modulesFound.get(module.href);
  if (found === undefined) modulesFound.set(module.href, (found = workerScriptPresent(module)));
  return found;
}
