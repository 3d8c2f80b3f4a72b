import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Environment } from '../config.js';
import { openDatabase, type DatabaseHandle } from './database.js';
import { migrateToLatest } from './migrator.js';
import { backstopPages, Checkpointer } from './checkpointer.js';
import { WriteBatches } from './write-batches.js';
import { attachReadPool, type ReadPool } from './read-pool.js';

export interface EnvironmentStore extends DatabaseHandle {
  readonly env: Environment;
  /** The API's write transactions, committed in groups (see WriteBatches). */
  readonly writes: WriteBatches;
  /** Heavy reads off the API's thread (`offThread(db)`, src/db/read-pool.ts); null for a database in memory. */
  readonly reads: ReadPool | null;
}

/** Where an environment's SQLite file lives in the data dir. */
export const databaseFile = (dataDir: string, env: Environment): string => path.join(dataDir, `${env}.sqlite`);

/** One SQLite file per environment: live and sandbox never share a row. */
export class Stores {
  private readonly byEnv = new Map<Environment, EnvironmentStore>();

  private constructor(
    stores: EnvironmentStore[],
    private readonly checkpointers: Checkpointer[],
  ) {
    for (const s of stores) this.byEnv.set(s.env, s);
  }

  static async open(dataDir: string, environments: readonly Environment[]): Promise<Stores> {
    mkdirSync(dataDir, { recursive: true });
    const stores: EnvironmentStore[] = [];
    const checkpointers: Checkpointer[] = [];
    for (const env of environments) {
      const handle = openDatabase(databaseFile(dataDir, env));
      await migrateToLatest(handle.db);
      // Checkpoints run on a worker thread; the connection's own is only a backstop.
      handle.sqlite.pragma(`wal_autocheckpoint = ${backstopPages}`);
      checkpointers.push(new Checkpointer(handle.file));
      stores.push({ ...handle, env, writes: new WriteBatches(handle.db), reads: attachReadPool(handle.db, handle.file) });
    }
    return new Stores(stores, checkpointers);
  }

  has(env: Environment): boolean {
    return this.byEnv.has(env);
  }

  get(env: Environment): EnvironmentStore {
    const store = this.byEnv.get(env);
    if (!store) throw new Error(`environment ${env} is not enabled`);
    return store;
  }

  all(): EnvironmentStore[] {
    return [...this.byEnv.values()];
  }

  /** The store that records calls nobody could be identified for (live, else sandbox). */
  primary(): EnvironmentStore {
    return this.byEnv.get('live') ?? this.get('sandbox');
  }

  async close(): Promise<void> {
    for (const checkpointer of this.checkpointers) await checkpointer.stop();
    for (const s of this.byEnv.values()) await s.reads?.close();
    for (const s of this.byEnv.values()) await s.db.destroy();
  }
}
