import { promises as fs } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * A consistent copy of a live SQLite database, taken with `VACUUM INTO` on a connection of a
 * worker thread. VACUUM INTO reads the whole database in one read transaction: in WAL mode that
 * is a snapshot writers never wait for nor invalidate, so the copy takes as long as reading the
 * file, however busy the API is. SQLite's online backup API, stepped page by page on its own
 * connection, starts over whenever another connection writes: with one request every 50 ms (each
 * writes an audit row) a 161 MB database never finished. The worker keeps the copy (and its
 * sha256) off the API's event loop; meanwhile the WAL grows by what the API writes (checkpoints cannot pass the
 * snapshot) and shrinks at the next checkpoint after.
 */
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const Database = require(workerData.driver);
let db;
try {
  db = new Database(workerData.source, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 10000');
  // No temp files: the image may run with a read-only root (no writable /tmp).
  db.pragma('temp_store = MEMORY');
  db.prepare('VACUUM INTO ?').run(workerData.target);
  db.close();
  db = undefined;
  // Hashed here too: the copy is ours and does not change, and its bytes are most of an archive.
  const hash = createHash('sha256');
  const fd = fs.openSync(workerData.target, 'r');
  const chunk = Buffer.allocUnsafe(1 << 20);
  let size = 0;
  try {
    for (let n; (n = fs.readSync(fd, chunk, 0, chunk.length, size)) > 0; size += n) hash.update(chunk.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  parentPort.postMessage({ ok: true, sha256: hash.digest('hex'), size });
} catch (err) {
  parentPort.postMessage({ ok: false, message: err && err.message ? err.message : String(err) });
} finally {
  if (db) db.close();
}
`;

const driver = (): string => createRequire(import.meta.url).resolve('better-sqlite3');

/** Writes a consistent copy of the database `source` to `target` (which must not exist); returns the copy's sha256 and size. */
export async function snapshotDatabase(source: string, target: string): Promise<{ sha256: string; size: number }> {
  const worker = new Worker(workerSource, { eval: true, workerData: { source, target, driver: driver() } });
  const outcome = await new Promise<{ ok: boolean; message?: string; sha256?: string; size?: number }>((resolve) => {
    worker.once('message', resolve);
    worker.once('error', (err) => resolve({ ok: false, message: err.message }));
    worker.once('exit', (code) => resolve({ ok: false, message: `the copying thread stopped (exit ${code})` }));
  });
  await worker.terminate();
  if (!outcome.ok) {
    await fs.rm(target, { force: true });
    throw new Error(`could not copy ${source}: ${outcome.message}`);
  }
  return { sha256: outcome.sha256!, size: outcome.size! };
}

const sqliteHeader = Buffer.from('SQLite format 3\0', 'latin1');

/** Whether a file is a SQLite database (its first 16 bytes), so it is copied through SQLite rather than byte by byte. */
export async function isSqliteDatabase(file: string): Promise<boolean> {
  const handle = await fs.open(file, 'r');
  try {
    const head = Buffer.alloc(sqliteHeader.length);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return bytesRead === head.length && head.equals(sqliteHeader);
  } finally {
    await handle.close();
  }
}
