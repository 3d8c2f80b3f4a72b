import { once } from 'node:events';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** The worker: its own connection to the file, a PASSIVE checkpoint every `intervalMs`. */
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const timer = setInterval(() => {
  try {
    checkpoint.get();
  } catch {
    // a busy or failed checkpoint is retried next time; the main connection's backstop remains
  }
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/** WAL pages after which the main connection checkpoints by itself (the worker fell behind). */
export const backstopPages = 10_000;

/**
 * WAL checkpoints on a thread of their own. A checkpoint copies the WAL into the database file and
 * syncs both; left to SQLite, it runs inside whichever COMMIT crosses wal_autocheckpoint and held
 * the event loop for 5-70 ms every few hundred writes (the tail of the request latency). The
 * worker runs PASSIVE checkpoints, which neither wait for nor block readers and writers; once the
 * WAL is copied, the next write starts it over, so it stays small. A passive checkpoint does not
 * change PRAGMA data_version for other connections, so it is not mistaken for another process's
 * write. The main connection keeps autocheckpoint at `backstopPages` in case the worker stops.
 */
export class Checkpointer {
  private readonly worker: Worker;

  constructor(file: string, intervalMs = 200) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(workerSource, { eval: true, workerData: { file, intervalMs, driver } });
    this.worker.unref();
    // A dead worker leaves the backstop: nothing to do but not crash the process.
    this.worker.on('error', () => undefined);
  }

  /** Stops the worker and closes its connection. */
  async stop(): Promise<void> {
    if (this.worker.threadId === -1) return;
    const exited = once(this.worker, 'exit');
    this.worker.ref(); // unreferenced, its exit would not keep this process waiting for it
    this.worker.postMessage('stop');
    await exited;
  }
}
