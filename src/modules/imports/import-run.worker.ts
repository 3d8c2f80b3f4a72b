/**
 * The import worker (a thread of the job runner's WorkerPool): runs one import (runImport) on a
 * connection of its own to the environment's database, so the garbage of parsing, checking and
 * writing hundreds of thousands of rows builds up in this thread's capped heap, not in the API's,
 * and the parsing never holds the API's event loop. Its writes run in turns the main thread grants
 * while holding the API's connection (src/db/write-turns.ts), so an API write never waits for the
 * lock in SQLite's busy handler with the event loop held. See runImportOffThread.
 */
import pino from 'pino';
import { registerAccessPolicies, type TablePolicy } from '../../db/access-policy.js';
import { openDatabase } from '../../db/database.js';
import { SecretBox } from '../../db/secret-box.js';
import { doneWithTurns, inTurnAsync } from '../../db/write-turns.js';
import { serveWorkerTask } from '../../jobs/worker-pool.js';
import { ImportFiles } from './import-files.js';
import { runImport, type ImportOutcome, type ImportWorkerInput, type ImportWorkerPart } from './imports.service.js';

serveWorkerTask<ImportWorkerInput, ImportOutcome, ImportWorkerPart>(async (input, send) => {
  registerAccessPolicies('imports (worker)', input.policies as Record<string, TablePolicy>);
  const handle = openDatabase(input.databaseFile);
  // This connection writes the import and reads what it looks up: a small page cache, and no memory
  // map (the pages it touches would count in the process's RSS; read() goes through the OS's page
  // cache instead), where the API's connection keeps 64 MB and maps the file.
  handle.sqlite.pragma(`cache_size = -${input.cacheKb}`);
  handle.sqlite.pragma('mmap_size = 0');
  // WAL checkpoints stay at SQLite's default on this connection (a COMMIT copies the WAL back every
  // 1,000 pages or so, in the worker's turn): left to the store's checkpointer thread, they ran beside
  // the import on the other core and the API's GETs waited for a CPU (probe p99 during the
  // vaccinations import 45-46 ms against 22 ms, quiet machine, 2026-11-27).
  const stop = new Int32Array(input.stop);
  const controller = new AbortController();
  const logger = pino({ level: 'info', base: null }, { write: (line: string) => send({ log: line }) });
  try {
    return await runImport(
      {
        env: input.env,
        db: handle.db,
        files: new ImportFiles(input.dataDir),
        now: () => Date.now() + input.clockOffsetMs,
        signal: controller.signal,
        logger,
        secrets: SecretBox.forDataDir(input.dataDir),
        onProgress: () => {
          if (Atomics.load(stop, 0) !== 0) controller.abort();
        },
        inTurn: (write) => inTurnAsync(input.turns, write),
      },
      input.importId,
      input.tenantId,
    );
  } finally {
    await handle.db.destroy();
    // After a failure too: the main thread stops granting turns.
    doneWithTurns(input.turns);
  }
});
