import { sql } from 'kysely';
import type { Executor } from '../db/database.js';
import { newId } from '../db/ids.js';
import type { JobResult, EnqueueOptions } from './job-definition.js';
import type { JobSchedulesTable, JobsTable } from './jobs.table.js';
import { isoAt as iso } from '../clock.js';

/**
 * Queues a run. Call it inside the transaction of the write that needs the work, so the job
 * exists exactly when the write does. With a dedupe key a second enqueue is a no-op (returns the
 * existing run's id).
 */
export async function enqueueJob(
  db: Executor,
  name: string,
  options: EnqueueOptions & { trigger?: 'schedule' | 'manual' | 'code'; defaultMaxAttempts?: number },
  now: number,
): Promise<string> {
  const id = newId('job');
  const inserted = await db
    .insertInto('jobs')
    .values({
      id,
      name,
      status: 'queued',
      trigger: options.trigger ?? 'code',
      payload: JSON.stringify(options.payload ?? {}),
      attempts: 0,
      max_attempts: options.maxAttempts ?? options.defaultMaxAttempts ?? 3,
      run_at: iso(options.runAt ?? now),
      lease_until: null,
      dedupe_key: options.dedupeKey ?? null,
      result: null,
      error: null,
      created_at: iso(now),
      started_at: null,
      finished_at: null,
      updated_at: iso(now),
    })
    .onConflict((oc) => oc.column('dedupe_key').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted) return inserted.id;
  const existing = await db
    .selectFrom('jobs')
    .select('id')
    .where('dedupe_key', '=', options.dedupeKey ?? '')
    .executeTakeFirstOrThrow();
  return existing.id;
}

/**
 * Takes the oldest due run whose job is not already running here: queued and due, or running
 * with a lapsed lease (its process died). One statement, so two loops never take the same row.
 */
export async function claimDueJob(db: Executor, busyNames: readonly string[], now: number, leaseMs: number): Promise<JobsTable | null> {
  const at = iso(now);
  let candidate = db
    .selectFrom('jobs')
    .select('id')
    .where((eb) => eb.or([eb.and([eb('status', '=', 'queued'), eb('run_at', '<=', at)]), eb.and([eb('status', '=', 'running'), eb('lease_until', '<', at)])]))
    .orderBy('run_at')
    .limit(1);
  if (busyNames.length) candidate = candidate.where('name', 'not in', [...busyNames]);
  const row = await db
    .updateTable('jobs')
    .set({ status: 'running', attempts: sql`attempts + 1`, lease_until: iso(now + leaseMs), started_at: at, updated_at: at })
    .where('id', '=', candidate)
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}

export async function extendLease(db: Executor, id: string, now: number, leaseMs: number): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ lease_until: iso(now + leaseMs) })
    .where('id', '=', id)
    .where('status', '=', 'running')
    .execute();
}

export async function finishJob(
  db: Executor,
  row: JobsTable,
  outcome: { status: 'succeeded' | 'failed'; result?: JobResult; error?: string },
  now: number,
): Promise<void> {
  const at = iso(now);
  await db
    .updateTable('jobs')
    .set({
      status: outcome.status,
      lease_until: null,
      result: outcome.result ? JSON.stringify(outcome.result) : null,
      error: outcome.error ?? null,
      finished_at: at,
      updated_at: at,
      // The key only guards against double queuing; a finished run frees it for the next one.
      dedupe_key: null,
    })
    .where('id', '=', row.id)
    .execute();
  await recordLastRun(db, row.name, { id: row.id, status: outcome.status, result: outcome.result ?? null, error: outcome.error ?? null }, now);
}

export async function retryJob(db: Executor, row: JobsTable, error: string, runAt: number, now: number): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ status: 'queued', lease_until: null, error, run_at: iso(runAt), updated_at: iso(now) })
    .where('id', '=', row.id)
    .execute();
}

/** After a restart nothing of ours is running: runs left `running` belonged to the dead process. */
export async function requeueInterrupted(db: Executor, now: number): Promise<number> {
  const result = await db
    .updateTable('jobs')
    .set({ status: 'queued', lease_until: null, error: 'interrupted by a restart', run_at: iso(now), updated_at: iso(now) })
    .where('status', '=', 'running')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function recordLastRun(
  db: Executor,
  name: string,
  run: { id: string | null; status: string; result: JobResult | null; error: string | null },
  now: number,
): Promise<void> {
  const at = iso(now);
  const values = {
    last_run_id: run.id,
    last_run_at: at,
    last_status: run.status,
    last_result: run.result ? JSON.stringify(run.result) : null,
    last_error: run.error,
    updated_at: at,
  };
  await db
    .insertInto('job_schedules')
    .values({ name, next_run_at: null, ...values })
    .onConflict((oc) => oc.column('name').doUpdateSet(values))
    .execute();
}

export async function recordNextRun(db: Executor, name: string, nextRunAt: string | null, now: number): Promise<void> {
  await db
    .insertInto('job_schedules')
    .values({
      name,
      last_run_id: null,
      last_run_at: null,
      last_status: null,
      last_result: null,
      last_error: null,
      next_run_at: nextRunAt,
      updated_at: iso(now),
    })
    .onConflict((oc) => oc.column('name').doUpdateSet({ next_run_at: nextRunAt, updated_at: iso(now) }))
    .execute();
}

export async function findSchedules(db: Executor): Promise<Map<string, JobSchedulesTable>> {
  const rows = await db.selectFrom('job_schedules').selectAll().execute();
  return new Map(rows.map((row) => [row.name, row]));
}

export async function findJobRun(db: Executor, id: string): Promise<JobsTable | null> {
  return (await db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
}

export async function countOpenRuns(db: Executor): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('jobs')
    .select(['name', db.fn.countAll<number>().as('open')])
    .where('status', 'in', ['queued', 'running'])
    .groupBy('name')
    .execute();
  return new Map(rows.map((row) => [row.name, Number(row.open)]));
}

export async function listJobRuns(db: Executor, name: string, limit: number): Promise<JobsTable[]> {
  return db.selectFrom('jobs').selectAll().where('name', '=', name).orderBy('id', 'desc').limit(limit).execute();
}

/** Finished runs older than the cutoff are history nobody reads; housekeeping drops them. */
export async function pruneFinishedRuns(db: Executor, before: number): Promise<number> {
  const result = await db.deleteFrom('jobs').where('status', 'in', ['succeeded', 'failed']).where('finished_at', '<', iso(before)).executeTakeFirst();
  return Number(result.numDeletedRows);
}
