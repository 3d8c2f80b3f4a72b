import { createReadStream, promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import { Type, type TSchema } from '@sinclair/typebox';
import type { Logger } from 'pino';
import type { Environment } from '../../config.js';
import { holdsConnection, type Db, type Executor } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import type { SecretBox } from '../../db/secret-box.js';
import type { AccessFilter, Actor } from '../../http/actor.js';
import { textProblem } from '../../http/input-strings.js';
import { AppError, foundOr404, missingReference, validationFailed, type FieldError } from '../../http/errors.js';
import type { PageRequest } from '../../http/paging.js';
import type { Staged } from '../../http/route.js';
import { validateBody } from '../../http/validation.js';
import { enqueueJob } from '../../jobs/jobs.repository.js';
import { findLocation } from '../locations/index.js';
import type { ImportFiles } from './import-files.js';
import { formatOf, headerOf, readRows, scanColumn, type ImportFormat, type SourceRow } from './import-rows.js';
import { isFailure, typeHandlers, type ImportedInsert, type ImportRun, type Planned, type TypeHandler } from './import-types.js';
import { receiveImport, TextInspector } from './import-upload.js';
import {
  deferCompliance,
  findImport,
  importStatus,
  insertImport,
  insertImportedRows,
  settleCompliance,
  listImports as listImportRows,
  updateImport,
} from './imports.repository.js';
import { ImportFieldsSchema, maxReportedErrors, type ImportFields } from './imports.schema.js';
import type { ImportStatus, ImportsTable, ImportType } from './imports.table.js';

/** The job that runs imports, one at a time per environment, in upload order. */
export const importJobName = 'imports';
/**
 * Rows written per transaction: each batch commits whole or not at all, with the progress that counts
 * it. The API's writes wait while a batch writes (queued for their connection during the import
 * worker's turn, or on this thread's for a small file; the triggers of pets and vaccinations cost
 * ~0.1 ms a row), so batches stay small: the API answers between them.
 */
export const importBatchRows = 100;

/** An upload read, checked and written to a temp file, waiting for its import row to commit. */
export interface StagedImport {
  id: string;
  type: ImportType;
  dryRun: boolean;
  mapping: Record<string, string>;
  locationId: string | null;
  format: ImportFormat;
  filename: string | null;
  sizeBytes: number;
  sha256: string;
}

const fieldSchemas = ImportFieldsSchema.properties as Record<string, TSchema>;

function mappingOf(text: string | undefined): Record<string, string> {
  if (text === undefined || text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw validationFailed([{ field: 'mapping', message: 'must be a JSON object of source column → column name' }]);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw validationFailed([{ field: 'mapping', message: 'must be a JSON object of source column → column name' }]);
  }
  const mapping: Record<string, string> = {};
  for (const [from, to] of Object.entries(parsed)) {
    if (typeof to !== 'string' || to.length === 0 || to.length > 100 || from.length > 200) {
      throw validationFailed([{ field: `mapping.${from.slice(0, 100)}`, message: 'must name a column (a string of 1–100 characters)' }]);
    }
    // The JSON text may span lines; the column names it holds (escapes decoded) are one-line text.
    const problem = textProblem(from, 'line') ?? textProblem(to, 'line');
    if (problem !== null) throw validationFailed([{ field: `mapping.${from.slice(0, 100)}`, message: problem }]);
    mapping[from.trim()] = to.trim();
  }
  return mapping;
}

function handlerOf(type: ImportType): TypeHandler {
  const handler = typeHandlers[type];
  if (!handler)
    throw validationFailed([{ field: 'type', message: `${type} imports are not available yet (available: ${Object.keys(typeHandlers).join(', ')})` }]);
  return handler;
}

/**
 * The columns the header row lacks, before any row is read: the type's required columns, and
 * locationId for pet parents when the form gives none.
 */
function missingColumns(type: ImportType, header: readonly string[], formLocation: string | null): FieldError[] {
  const names = new Set(header);
  const required = handlerOf(type)
    .columns.filter((c) => c.required)
    .map((c) => c.name);
  if (type === 'pet-parents' && formLocation === null) required.push('locationId');
  return required
    .filter((name) => !names.has(name))
    .map((field) => ({ field, message: `is a required column of a ${type} import and is missing from the header row` }));
}

/** The form's fields and the received file, checked: type, mapping, location, format and header row. */
async function checkedImport(
  input: { actor: Actor; db: Executor },
  id: string,
  rawFields: Record<string, string>,
  file: { head: Buffer; sizeBytes: number; sha256: string; filename: string | undefined },
): Promise<StagedImport> {
  const fields = validateBody<ImportFields>(ImportFieldsSchema, rawFields);
  const mapping = mappingOf(fields.mapping);
  handlerOf(fields.type);
  const locationId = fields.locationId ?? null;
  if (locationId !== null && !(await findLocation(input.db, input.actor, locationId))) throw missingReference('locationId', 'location', locationId);
  // A client confined to locations imports into one of them, named on the form (rows may name others of its own).
  if (locationId === null && input.actor.locationIds !== null) {
    throw new AppError('locations_required', 'A client confined to locations must name the locationId the import goes to.', {
      errors: [{ field: 'locationId', message: 'is required for a client confined to locations' }],
    });
  }
  const format = formatOf(file.head);
  const header = headerOf(file.head, format, mapping);
  if (!header) {
    throw validationFailed([
      { field: 'file', message: format === 'csv' ? 'has no readable header row' : 'does not start with a JSON object on its first line' },
    ]);
  }
  const missing = missingColumns(fields.type, header, locationId);
  if (missing.length > 0) throw validationFailed(missing, `The file lacks required columns: ${missing.map((m) => m.field).join(', ')}.`);
  return {
    id,
    type: fields.type,
    dryRun: fields.dryRun === 'true',
    mapping,
    locationId,
    format,
    filename: file.filename ? file.filename.slice(0, 255) : null,
    sizeBytes: file.sizeBytes,
    sha256: file.sha256,
  };
}

/** The staged file's persist (renamed to its final name once the row commits) and discard. */
function stagedFile(files: ImportFiles, env: Environment, tempPath: string, value: StagedImport, fingerprint: unknown): Staged<StagedImport> {
  const finalPath = files.pathOf(env, value.id, value.format);
  return {
    value,
    fingerprint,
    persist: () => fs.rename(tempPath, finalPath),
    discard: async () => {
      await files.remove(tempPath);
      await files.remove(finalPath);
    },
  };
}

/**
 * The one way a file is staged: written to a temp file in the data dir by `fill` (which says what it
 * read), synced and closed, then its fields and header row checked; anything refused removes it.
 */
async function stageThrough(
  files: ImportFiles,
  input: { env: Environment; actor: Actor; db: Executor },
  fill: (out: FileHandle) => Promise<{ fields: Record<string, string>; file: Parameters<typeof checkedImport>[3]; fingerprint: unknown }>,
): Promise<Staged<StagedImport>> {
  const id = newId('imp');
  await files.ensureDirectory(input.env);
  const tempPath = files.tempPathOf(input.env, id);
  const handle: FileHandle = await fs.open(tempPath, 'wx', 0o640);
  let out: FileHandle | null = handle;
  try {
    const read = await fill(handle);
    await handle.sync();
    await handle.close();
    out = null;
    const value = await checkedImport(input, id, read.fields, read.file);
    return stagedFile(files, input.env, tempPath, value, read.fingerprint);
  } catch (err) {
    await out?.close().catch(() => undefined);
    await files.remove(tempPath);
    throw err;
  }
}

/**
 * Reads the form (POST /v1/imports): streams the file to a temp file in the data dir, refuses a
 * file that is not UTF-8, checks the fields and the header row (400 naming a missing column,
 * before any row is read). The staged value's persist() renames the file to its final name.
 */
export function stageImport(
  files: ImportFiles,
  input: { env: Environment; actor: Actor; db: Executor; req: IncomingMessage; maxBytes: number },
): Promise<Staged<StagedImport>> {
  return stageThrough(files, input, async (out) => {
    const received = await receiveImport(input.req, {
      maxBytes: input.maxBytes,
      out,
      checkField: (name, value) => {
        const schema = fieldSchemas[name];
        if (schema) validateBody(Type.Object({ [name]: schema }), { [name]: value });
      },
    });
    return {
      fields: received.fields,
      file: received,
      fingerprint: { sha256: received.sha256, sizeBytes: received.sizeBytes, fields: received.fields },
    };
  });
}

/**
 * The same checks for a file on this machine (the operator CLI's `petcare import`): copied into the
 * data dir through the same UTF-8 and size checks, streamed.
 */
export function stageImportFile(
  files: ImportFiles,
  input: { env: Environment; actor: Actor; db: Executor; source: string; fields: Record<string, string>; maxBytes: number },
): Promise<Staged<StagedImport>> {
  return stageThrough(files, input, async (out) => {
    const inspector = new TextInspector(input.maxBytes, 64 * 1024);
    for await (const chunk of createReadStream(input.source)) {
      inspector.push(chunk as Buffer);
      await out.write(chunk as Buffer);
    }
    if (inspector.size === 0) throw validationFailed([{ field: 'file', message: 'is empty' }]);
    const file = inspector.finish();
    return { fields: input.fields, file: { ...file, filename: path.basename(input.source) }, fingerprint: { sha256: file.sha256 } };
  });
}

/** Writes the import row and queues its job run, in the request's transaction (both or neither). */
export async function createImport(
  db: Executor,
  actor: Actor,
  staged: StagedImport,
  now: number,
  options: { queue: boolean } = { queue: true },
): Promise<ImportsTable> {
  const at = new Date(now).toISOString();
  const row: ImportsTable = {
    id: staged.id,
    tenant_id: actor.tenantId,
    type: staged.type,
    status: 'queued',
    dry_run: staged.dryRun ? 1 : 0,
    format: staged.format,
    mapping: JSON.stringify(staged.mapping),
    location_id: staged.locationId,
    access_location_ids: actor.locationIds === null ? null : JSON.stringify(actor.locationIds),
    client_id: actor.clientId,
    role: actor.role,
    filename: staged.filename,
    size_bytes: staged.sizeBytes,
    sha256: staged.sha256,
    total: null,
    processed: 0,
    created: 0,
    updated: 0,
    skipped: 0,
    failed: 0,
    errors: '[]',
    failure: null,
    created_at: at,
    started_at: null,
    finished_at: null,
    updated_at: at,
  };
  await insertImport(db, actor, row);
  await enqueueJob(
    db,
    importJobName,
    { trigger: 'code', payload: { importId: row.id, tenantId: actor.tenantId }, dedupeKey: `import:${row.id}`, defaultMaxAttempts: 1 },
    now,
  );
  return row;
}

export async function getImport(db: Executor, actor: AccessFilter, id: string): Promise<ImportsTable> {
  return foundOr404(await findImport(db, actor, id), 'import', id);
}

export async function listImports(db: Executor, actor: AccessFilter, page: PageRequest): Promise<ImportsTable[]> {
  return listImportRows(db, actor, page);
}

const running: readonly ImportStatus[] = ['queued', 'validating', 'importing'];

/** Stops an import between two batches: what was committed stays (and counts); 409 once it has ended. */
export async function cancelImport(db: Executor, actor: AccessFilter, id: string, now: number): Promise<ImportsTable> {
  const row = await getImport(db, actor, id);
  if (!running.includes(row.status)) {
    throw new AppError('invalid_state_transition', `Import '${id}' has ended (${row.status}); only a queued or running import can be cancelled.`, {
      extensions: { currentStatus: row.status },
    });
  }
  const at = new Date(now).toISOString();
  const patch = { status: 'cancelled' as const, finished_at: at, updated_at: at };
  await updateImport(db, actor, id, patch);
  return { ...row, ...patch };
}

export interface ImportJobContext {
  readonly env: Environment;
  /** The environment's database (a job's: its queries yield to requests between slices). */
  readonly db: Db;
  readonly files: ImportFiles;
  readonly now: () => number;
  readonly signal: AbortSignal;
  readonly logger: Logger;
  /** Seals secrets as the API stores them (an imported appointment's calendar token). */
  readonly secrets: Pick<SecretBox, 'seal'>;
  /** Called after validation and after each committed batch (the CLI's progress bar). */
  readonly onProgress?: (progress: { status: ImportStatus; total: number; processed: number }) => void;
  /**
   * Runs one write (a batch's transaction, a status change) in a turn at the write lock: the import
   * worker's (src/db/write-turns.ts), so the API's writes queue for their connection instead of
   * waiting for the lock with the event loop held. Unset on the API's own connection.
   */
  readonly inTurn?: <T>(write: () => Promise<T>) => Promise<T>;
}

/** `write` in a turn when the context has turns (the import worker), else at once. */
const written = <T>(ctx: ImportJobContext, write: () => Promise<T>): Promise<T> => (ctx.inTurn ? ctx.inTurn(write) : write());

/** What the import worker (import-run.worker.ts) is given: all it needs to open the database and run one import. */
export interface ImportWorkerInput {
  env: Environment;
  dataDir: string;
  databaseFile: string;
  importId: string;
  tenantId: string;
  /** The tables' access policies as the app registered them (plain data). */
  policies: Record<string, unknown>;
  /** The page cache of the worker's connection, in KiB. */
  cacheKb: number;
  /** The job's clock minus the system clock when the task started (a test's clock keeps its offset). */
  clockOffsetMs: number;
  /** Set to 1 (Atomics) to stop between two batches, as the job's signal does: the run ends 'paused'. */
  stop: SharedArrayBuffer;
  /** Turns at the write lock (src/db/write-turns.ts): every write of the worker runs in one. */
  turns: Int32Array;
}

/** What the worker sends while it runs: its log lines (pino JSON). */
export interface ImportWorkerPart {
  log: string;
}

export interface ImportOutcome {
  status: ImportStatus | 'paused' | 'missing';
  processed: number;
}

/** Every externalId seen more than once in the file, with the rows it is on (validation's pass). */
async function countRows(file: string, row: ImportsTable): Promise<{ total: number; duplicates: Map<string, number[]> }> {
  const firstRow = new Map<string, number>();
  const duplicates = new Map<string, number[]>();
  let total = 0;
  await scanColumn(file, row.format, JSON.parse(row.mapping) as Record<string, string>, 'externalId', (externalId, at) => {
    total += 1;
    if (externalId === undefined) return;
    const first = firstRow.get(externalId);
    if (first === undefined) firstRow.set(externalId, at);
    else {
      const rows = duplicates.get(externalId) ?? [first];
      rows.push(at);
      duplicates.set(externalId, rows);
    }
  });
  return { total, duplicates };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Runs one import (the `imports` job): validation reads the whole file once (total, duplicate
 * externalIds), then the rows go in batches of 100, each batch's writes and the progress that counts
 * them in one transaction. Resumable: a run stopped anywhere (kill -9 included) is taken up again
 * from `processed` by the next (the runner queues an interrupted run again at start). Writes go
 * through the repositories directly, as the importer: no events, webhooks or reminders fire for
 * history; what comes due later is reminded by the daily job as any other record.
 */
export async function runImport(ctx: ImportJobContext, importId: string, tenantId: string): Promise<ImportOutcome> {
  const tenant: AccessFilter = { tenantId, locationIds: null };
  let row = await findImport(ctx.db, tenant, importId);
  if (!row) return { status: 'missing', processed: 0 };
  const file = ctx.files.pathOf(ctx.env, row.id, row.format);
  if (!running.includes(row.status)) {
    await ctx.files.remove(file);
    return { status: row.status, processed: row.processed };
  }
  const access: AccessFilter = { tenantId, locationIds: row.access_location_ids ? (JSON.parse(row.access_location_ids) as string[]) : null };
  const handler = handlerOf(row.type);
  const stamp = () => new Date(ctx.now()).toISOString();
  try {
    const startedAt = row.started_at ?? stamp();
    if (row.status === 'queued') {
      await written(ctx, () => updateImport(ctx.db, tenant, importId, { status: 'validating', started_at: startedAt, updated_at: stamp() }, running));
    }
    const { total, duplicates } = await countRows(file, row);
    const current = await findImport(ctx.db, tenant, row.id);
    if (!current || !running.includes(current.status)) return await ended(ctx, file, current);
    if (current.status !== 'importing' || current.total !== total) {
      await written(ctx, () => updateImport(ctx.db, tenant, importId, { status: 'importing', total, started_at: startedAt, updated_at: stamp() }, running));
    }
    row = { ...current, status: 'importing', total, started_at: startedAt };
    ctx.onProgress?.({ status: 'importing', total, processed: row.processed });
    const errors = JSON.parse(row.errors) as Array<{ row: number; field: string; message: string }>;
    const counts = { processed: row.processed, created: row.created, updated: row.updated, skipped: row.skipped, failed: row.failed };
    const run: ImportRun = {
      db: ctx.db,
      access,
      clientId: row.client_id,
      role: row.role,
      locationId: row.location_id,
      now: 0,
      at: '',
      locations: new Map(),
      env: ctx.env,
      seal: (plain) => ctx.secrets.seal(plain),
    };
    const dryRun = row.dry_run === 1;
    for await (const batch of readRows(file, row.format, JSON.parse(row.mapping) as Record<string, string>, row.processed, importBatchRows)) {
      if (ctx.signal.aborted) return { status: 'paused', processed: counts.processed };
      const still = await importStatus(ctx.db, tenant, importId);
      if (still !== 'importing') return await ended(ctx, file, await findImport(ctx.db, tenant, importId));
      const now = ctx.now();
      await writeBatch(ctx, { ...run, now, at: new Date(now).toISOString() }, handler, batch, duplicates, dryRun, counts, errors, importId, tenant);
      ctx.onProgress?.({ status: 'importing', total, processed: counts.processed });
      await turn();
    }
    const at = stamp();
    await written(ctx, () => updateImport(ctx.db, tenant, importId, { status: 'done', finished_at: at, updated_at: at }, ['importing']));
    await ctx.files.remove(file);
    return { status: 'done', processed: counts.processed };
  } catch (err) {
    ctx.logger.error({ err, importId }, 'import failed');
    const at = stamp();
    const failure = err instanceof Error ? err.message.slice(0, 1000) : String(err).slice(0, 1000);
    await written(ctx, () => updateImport(ctx.db, tenant, importId, { status: 'failed', failure, finished_at: at, updated_at: at }, running));
    await ctx.files.remove(file);
    return { status: 'failed', processed: row.processed };
  }
}

async function ended(ctx: ImportJobContext, file: string, row: ImportsTable | null | undefined): Promise<ImportOutcome> {
  await ctx.files.remove(file);
  return { status: row?.status ?? 'missing', processed: row?.processed ?? 0 };
}

/**
 * Plans a batch (look-ups outside the transaction), then writes every planned row and the import's
 * progress in one transaction: all of the batch or none of it. If the batch's transaction fails (a
 * row the checks let through and the database refused), each row is written on its own so only
 * the bad ones are reported; the progress then commits after them (a re-run of a row written but
 * not yet counted finds it by externalId and skips it).
 */
async function writeBatch(
  ctx: ImportJobContext,
  run: ImportRun,
  handler: TypeHandler,
  batch: readonly SourceRow[],
  duplicates: ReadonlyMap<string, number[]>,
  dryRun: boolean,
  counts: { processed: number; created: number; updated: number; skipped: number; failed: number },
  errors: Array<{ row: number; field: string; message: string }>,
  importId: string,
  tenant: AccessFilter,
): Promise<void> {
  const planned: Planned[] = [];
  const readable: SourceRow[] = [];
  for (const source of batch) {
    const dup = source.values.externalId === undefined ? undefined : duplicates.get(source.values.externalId);
    if (source.unreadable) planned.push({ row: source.row, errors: [source.unreadable] });
    else if (dup)
      planned.push({
        row: source.row,
        errors: [
          {
            field: 'externalId',
            message: `'${source.values.externalId}' is on more than one row of this file (rows ${dup.slice(0, 10).join(', ')}${dup.length > 10 ? ', …' : ''})`,
          },
        ],
      });
    else readable.push(source);
  }
  planned.push(...(await handler.plan(run, readable)));
  planned.sort((a, b) => a.row - b.row);

  const progress = (results: readonly Planned[]) => {
    const next = { ...counts, processed: counts.processed + batch.length };
    const added: typeof errors = [];
    for (const result of results) {
      if (isFailure(result)) {
        next.failed += 1;
        for (const e of result.errors) added.push({ row: result.row, field: e.field, message: e.message });
      } else next[result.op === 'create' ? 'created' : result.op === 'update' ? 'updated' : 'skipped'] += 1;
    }
    return { next, added };
  };
  const commit = async (trx: Executor, results: readonly Planned[]) => {
    const { next, added } = progress(results);
    const room = maxReportedErrors - errors.length;
    const kept = room > 0 ? added.slice(0, room) : [];
    await updateImport(
      trx,
      tenant,
      importId,
      {
        processed: next.processed,
        created: next.created,
        updated: next.updated,
        skipped: next.skipped,
        failed: next.failed,
        ...(kept.length > 0 ? { errors: JSON.stringify([...errors, ...kept]) } : {}),
        updated_at: new Date(run.now).toISOString(),
      },
      ['importing'],
    );
    return { next, kept };
  };
  const apply = (outcome: { next: typeof counts; kept: typeof errors }) => {
    Object.assign(counts, outcome.next);
    errors.push(...outcome.kept);
  };

  try {
    apply(
      await written(ctx, () =>
        ctx.db.transaction().execute(async (trx) => {
          holdsConnection(trx, ctx.db);
          if (!dryRun) {
            // Each pet's compliance is recomputed once, at the batch's end, not once per dose.
            await deferCompliance(trx);
            await writePlans(trx, run, planned);
            await settleCompliance(trx);
          }
          return commit(trx, planned);
        }),
      ),
    );
    return;
  } catch (err) {
    if (dryRun) throw err;
    ctx.logger.warn({ err, importId }, 'an import batch was refused whole; writing its rows one by one');
  }
  const results: Planned[] = [];
  for (const plan of planned) {
    if (isFailure(plan) || (!plan.write && !plan.insert)) {
      results.push(plan);
      continue;
    }
    try {
      await written(ctx, () =>
        ctx.db.transaction().execute(async (trx) => {
          holdsConnection(trx, ctx.db);
          await writePlans(trx, run, [plan]);
        }),
      );
      results.push(plan);
    } catch (err) {
      results.push({ row: plan.row, errors: [{ field: 'row', message: `could not be written: ${err instanceof Error ? err.message : String(err)}` }] });
    }
  }
  apply(await written(ctx, () => ctx.db.transaction().execute((trx) => commit(trx, results))));
}

/**
 * The writes of planned rows, in order: each run of consecutive inserts into one table goes in
 * together (multi-row statements), every other write on its own.
 */
async function writePlans(trx: Executor, run: ImportRun, planned: readonly Planned[]): Promise<void> {
  let inserts: ImportedInsert[] = [];
  const flush = async () => {
    const first = inserts[0];
    if (!first) return;
    await insertImportedRows(trx, run.access, first.table, inserts.map((i) => i.row) as Array<typeof first.row>);
    inserts = [];
  };
  for (const plan of planned) {
    if (isFailure(plan)) continue;
    if (plan.insert) {
      if (inserts.length > 0 && inserts[0]?.table !== plan.insert.table) await flush();
      inserts.push(plan.insert);
    } else if (plan.write) {
      await flush();
      await plan.write(trx);
    }
  }
  await flush();
}
