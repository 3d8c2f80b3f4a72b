import type { SecretBox } from '../../db/secret-box.js';
import type { Config } from '../../config.js';
import type { HousekeepingTask } from '../../jobs/housekeeping.js';
import type { JobDefinition } from '../../jobs/job-definition.js';
import { ImportFiles } from './import-files.js';
import { WorkerPoolClosed, workerScript, type WorkerPool } from '../../jobs/worker-pool.js';
import { runWithTurns } from '../../db/write-turns.js';
import { registeredAccessPolicies } from '../../db/access-policy.js';
import type { JobContext } from '../../jobs/job-definition.js';
import { findImport, updateImport } from './imports.repository.js';
import { importJobName, runImport, type ImportOutcome, type ImportWorkerInput, type ImportWorkerPart } from './imports.service.js';

/**
 * The import worker's heap, capped: its live data is a batch of rows and the file's externalIds
 * (for repeated ones), a few tens of MB for a million rows; the rest of what it allocates is garbage
 * that a capped heap collects early instead of growing the process (issue 29: RSS growth < 100 MB).
 */
const workerLimits = { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 16 };
/**
 * Files from this size run on a worker: starting one (a thread that loads the modules) costs
 * ~0.5 s, more than a small file's whole import, whose garbage is a few MB.
 */
const workerMinBytes = 1024 * 1024;
/** The worker connection's page cache (KiB). */
const workerCacheKb = 8 * 1024;
/** The API's connection is free at least this long between two of the worker's write turns (ms). */
const writeGapMs = 0;

/**
 * Runs an import on a worker thread with a connection of its own (import-run.worker.ts): the
 * parsing, checking and the garbage of each row stay off the API's thread and heap. The job's signal
 * reaches it through a shared flag; its log lines come back to the job's logger. Its writes run in
 * turns granted here while the API's connection is held (src/db/write-turns.ts): the API's queries
 * queue meanwhile instead of blocking the event loop in SQLite's busy handler. `inThread` runs it
 * here instead when the build has no worker module beside this one (a single-file bundle).
 */
async function runImportOffThread(
  ctx: JobContext,
  workers: WorkerPool,
  importId: string,
  tenantId: string,
  inThread: () => Promise<ImportOutcome>,
): Promise<ImportOutcome> {
  const stop = new SharedArrayBuffer(4);
  const flag = new Int32Array(stop);
  const onAbort = () => Atomics.store(flag, 0, 1);
  if (ctx.signal.aborted) onAbort();
  else ctx.signal.addEventListener('abort', onAbort, { once: true });
  const input: Omit<ImportWorkerInput, 'turns'> = {
    env: ctx.env,
    dataDir: ctx.config.dataDir,
    databaseFile: ctx.store.file,
    importId,
    tenantId,
    policies: Object.fromEntries(registeredAccessPolicies()),
    cacheKb: workerCacheKb,
    clockOffsetMs: ctx.clock.now() - Date.now(),
    stop,
  };
  try {
    // Turns until the worker is done, or its task settles (a thread that died never leaves the connection held).
    return await runWithTurns(
      (turns) =>
        workers.run<ImportOutcome, ImportWorkerPart>({
          script: workerScript(import.meta.url, 'import-run.worker'),
          input: { ...input, turns } satisfies ImportWorkerInput,
          resourceLimits: workerLimits,
          onPart: (part) => {
            const { level, msg, ...rest } = JSON.parse(part.log) as { level: number; msg?: string } & Record<string, unknown>;
            if (level >= 50) ctx.logger.error(rest, msg);
            else if (level >= 40) ctx.logger.warn(rest, msg);
            else ctx.logger.info(rest, msg);
          },
          inline: inThread,
        }),
      (during) => ctx.store.db.connection().execute(during),
      writeGapMs,
    );
  } catch (err) {
    // The thread died (its heap cap reached, a crash): the import ends failed, saying so. A pool
    // closed by a stopping process leaves it as it is, to resume at the next start.
    if (err instanceof WorkerPoolClosed) throw err;
    const at = new Date(ctx.clock.now()).toISOString();
    const reason = err instanceof Error ? err.message : String(err);
    ctx.logger.error({ err, importId }, 'import worker failed');
    await updateImport(
      ctx.store.db,
      { tenantId, locationIds: null },
      importId,
      { status: 'failed', failure: `the import's worker thread stopped: ${reason}`.slice(0, 1000), finished_at: at, updated_at: at },
      ['queued', 'validating', 'importing'],
    );
    const row = await findImport(ctx.store.db, { tenantId, locationIds: null }, importId);
    const files = new ImportFiles(ctx.config.dataDir);
    if (row) await files.remove(files.pathOf(ctx.env, importId, row.format));
    return { status: 'failed', processed: row?.processed ?? 0 };
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
  }
}

/**
 * Runs the queued imports (POST /v1/imports queues one run per import), one at a time per
 * environment. A run stopped by a restart is taken up where its last batch committed: the runner
 * queues an interrupted run again at start (kill -9 included), and a graceful stop queues the rest.
 */
export function importJob(deps: { secretBox: Pick<SecretBox, 'seal'> }): JobDefinition {
  return {
    name: importJobName,
    description:
      'Runs one bulk import (POST /v1/imports): validates the file, then writes its rows in batches of 100, each in one transaction with its progress. ' +
      'Queued by the upload; an interrupted run resumes from the last committed batch.',
    schedule: null,
    maxAttempts: 1,
    async run(ctx) {
      const importId = String(ctx.payload.importId ?? '');
      const tenantId = String(ctx.payload.tenantId ?? '');
      const files = new ImportFiles(ctx.config.dataDir);
      const inThread = () =>
        runImport(
          { env: ctx.env, db: ctx.store.db, files, now: () => ctx.clock.now(), signal: ctx.signal, logger: ctx.logger, secrets: deps.secretBox },
          importId,
          tenantId,
        );
      const size = (await findImport(ctx.store.db, { tenantId, locationIds: null }, importId))?.size_bytes ?? 0;
      const onWorker = ctx.workers !== undefined && size >= workerMinBytes;
      const outcome = ctx.workers && onWorker ? await runImportOffThread(ctx, ctx.workers, importId, tenantId, inThread) : await inThread();
      // Stopped between batches by a graceful stop: the rest runs at the next start.
      if (outcome.status === 'paused') await ctx.enqueue(ctx.store.db, importJobName, { payload: ctx.payload, maxAttempts: 1 });
      return { importId, status: outcome.status, processed: outcome.processed, onWorker };
    },
  };
}

/** The module's housekeeping: upload temp files (`.part`) a crash left behind, once an hour old. */
export function importHousekeeping(deps: { config: Pick<Config, 'dataDir'> }): HousekeepingTask[] {
  const files = new ImportFiles(deps.config.dataDir);
  return [
    {
      name: 'imports.stale-uploads',
      drops: 'import uploads a crash left unfinished',
      run: async ({ env, clock }) => ({ staleImportUploads: await files.sweepStaleParts(env, clock.now()) }),
    },
  ];
}
