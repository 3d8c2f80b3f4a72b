import { holdsConnection, runStatement, type Db, type Trx } from './database.js';

interface Job {
  work(trx: Trx): Promise<unknown>;
  resolve(value: unknown): void;
  reject(reason: unknown): void;
}

/** Most requests one COMMIT covers: bounds how long the first of them waits for its answer. */
const maxBatch = 64;

/**
 * Group commit for the API's write transactions. A COMMIT costs ~50 µs of CPU plus ~15 µs per page
 * it writes to the WAL, more than the rest of a typical write, so concurrent writes share one:
 * each request runs in its own savepoint of one SQLite transaction, and the transaction commits
 * once no other write is waiting (the requests whose bytes already arrived get their turn first).
 * Each request keeps its own outcome: a failure rolls back to its savepoint and the others go on;
 * a request is answered only after the COMMIT that covers it, and if that COMMIT fails, every
 * request it covered fails. Reads never see a batch's uncommitted rows: while it is open they
 * queue behind it like behind any transaction.
 */
export class WriteBatches {
  private readonly queue: Job[] = [];
  private draining = false;

  constructor(private readonly db: Db) {}

  /** Runs `work` in a savepoint of the next batch; resolves once the batch has committed. */
  run<T>(work: (trx: Trx) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length > 0) await this.batch();
    } finally {
      this.draining = false;
    }
  }

  private async batch(): Promise<void> {
    const done: Array<{ job: Job; value: unknown }> = [];
    try {
      await this.db.transaction().execute(async (trx) => {
        holdsConnection(trx, this.db);
        let waited = false;
        while (done.length < maxBatch) {
          let job = this.queue.shift();
          if (!job) {
            // Once per batch, let the requests already received (their I/O callbacks run before this)
            // join it. Waiting longer would hold every client until all of them are in one batch.
            if (waited) break;
            waited = true;
            await new Promise<void>((resolve) => setImmediate(resolve));
            job = this.queue.shift();
            if (!job) break;
          }
          let value: unknown;
          try {
            await runStatement(trx, 'savepoint request', []);
            value = await job.work(trx);
          } catch (err) {
            job.reject(err);
            // Throws when SQLite already rolled back the whole transaction: then the batch fails.
            await runStatement(trx, 'rollback to request', []);
            await runStatement(trx, 'release request', []);
            continue;
          }
          done.push({ job, value });
          await runStatement(trx, 'release request', []);
        }
      });
    } catch (err) {
      for (const { job } of done) job.reject(err);
      return;
    }
    for (const { job, value } of done) job.resolve(value);
  }
}
