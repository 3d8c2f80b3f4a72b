import { readFile } from 'node:fs/promises';
import progress from 'cli-progress';
import pino from 'pino';
import { DataDirBusyError, lockDataDir, type DataDirLock } from '../data-dir.js';
import { SecretBox } from '../db/secret-box.js';
import { AppError } from '../http/errors.js';
import { createImport, getImport, ImportFiles, presentImport, runImport, stageImportFile } from '../modules/imports/index.js';
import type { CliCommand, CommandContext } from './command.js';
import { audited, environmentOf, operator } from './session.js';

/** A progress bar on stderr when it is a terminal (cli-progress), else nothing: the report says it all. */
function progressBar(type: string): { update(processed: number, total: number): void; stop(): void } {
  const quiet = { update: () => undefined, stop: () => undefined };
  if (!process.stderr.isTTY) return quiet;
  const bar = new progress.SingleBar(
    { format: `${type} |{bar}| {percentage}% {value}/{total} rows {duration_formatted}`, stream: process.stderr },
    progress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(processed, total) {
      if (!started) {
        bar.start(total, processed);
        started = true;
      } else bar.update(processed);
    },
    stop: () => started && bar.stop(),
  };
}

/**
 * `petcare import` runs the import in this process, for minutes, so it works on a data dir no
 * appliance is running on, holding the data dir's lock as a restore does (the other commands are
 * one short transaction each, beside the appliance): the appliance would otherwise run its own
 * writes and jobs beside the import's, and a restore could swap the files under it.
 */
function lockForImport(dataDir: string): DataDirLock {
  try {
    return lockDataDir(dataDir, 'import');
  } catch (err) {
    if (!(err instanceof DataDirBusyError)) throw err;
    throw new AppError(
      'service_unavailable',
      `${err.message}. petcare import works on a stopped appliance's data dir; while the appliance runs, send the file to it instead: POST /v1/imports (the same checks and report).`,
    );
  }
}

async function importCommand(ctx: CommandContext): Promise<void> {
  const lock = lockForImport(ctx.config.dataDir);
  try {
    await importLocked(ctx);
  } finally {
    lock.release();
  }
}

async function importLocked(ctx: CommandContext): Promise<void> {
  const session = await ctx.session();
  const env = environmentOf(session, ctx.values.env);
  const actor = operator(session, env);
  const [type = '', source = ''] = ctx.args;
  const fields: Record<string, string> = { type };
  if (ctx.values['dry-run']) fields.dryRun = 'true';
  if (ctx.values.location !== undefined) fields.locationId = ctx.values.location;
  if (ctx.values.mapping !== undefined) fields.mapping = await readFile(ctx.values.mapping, 'utf8');
  const files = new ImportFiles(session.config.dataDir);
  const db = session.stores.get(env).db;
  const staged = await stageImportFile(files, { env, actor, db, source, fields, maxBytes: session.config.importMaxBytes });
  let created;
  try {
    created = await audited(
      session,
      env,
      'import',
      async (trx) => {
        const row = await createImport(trx, actor, staged.value, ctx.clock.now(), { queue: false });
        await staged.persist?.();
        return row;
      },
      (row) => row.id,
      202,
    );
  } catch (error) {
    await staged.discard();
    throw error;
  }
  const bar = progressBar(type);
  try {
    await runImport(
      {
        env,
        db,
        files,
        now: () => ctx.clock.now(),
        signal: new AbortController().signal,
        logger: pino({ level: 'silent' }),
        secrets: SecretBox.forDataDir(session.config.dataDir),
        onProgress: (p) => bar.update(p.processed, p.total),
      },
      created.id,
      session.tenantId,
    );
  } finally {
    bar.stop();
  }
  const report = presentImport(await getImport(db, actor, created.id));
  if (session.json) session.out(JSON.stringify(report, null, 2));
  else {
    session.out(
      `${report.id} ${report.type}${report.dryRun ? ' (dry run)' : ''}: ${report.status}; ${report.total ?? 0} rows: ` +
        `${report.created} created, ${report.updated} updated, ${report.skipped} skipped, ${report.failed} failed`,
    );
    if (report.failure) session.out(`failure: ${report.failure}`);
    for (const e of report.errors.slice(0, 50)) session.out(`row ${e.row}: ${e.field}: ${e.message}`);
    if (report.errors.length > 50) session.out(`… ${report.errors.length - 50} more (GET /v1/imports/${report.id}, or --json)`);
  }
  // Exit 1 (the report above says why) when the import did not finish or a row was refused.
  if (report.status !== 'done') throw new Error(`the import ended ${report.status}`);
  if (report.failed > 0) throw new Error(`${report.failed} of ${report.total ?? 0} rows were refused (listed above)`);
}

export const importCommands: Record<string, CliCommand> = {
  import: { options: ['env', 'dry-run', 'location', 'mapping'], arguments: ['<type>', '<file>'], run: importCommand },
};
