import type { Static } from '@sinclair/typebox';
import type { JobDefinition } from '../../jobs/job-definition.js';
import type { JobSchedulesTable, JobsTable } from '../../jobs/jobs.table.js';
import type { JobRunSchema, JobSchema } from './jobs.schema.js';

type Run = Static<typeof JobRunSchema>;
type Job = Static<typeof JobSchema>;

const parse = (text: string | null): Run['result'] => (text ? (JSON.parse(text) as Run['result']) : null);

export const presentJobRun = (row: JobsTable): Run => ({
  id: row.id,
  name: row.name,
  status: row.status as Run['status'],
  trigger: row.trigger as Run['trigger'],
  attempts: row.attempts,
  maxAttempts: row.max_attempts,
  runAt: row.run_at,
  startedAt: row.started_at,
  finishedAt: row.finished_at,
  result: parse(row.result),
  error: row.error,
  createdAt: row.created_at,
});

export function presentJob(definition: JobDefinition, state: JobSchedulesTable | undefined, nextRunAt: string | null, openRuns: number): Job {
  const schedule = definition.schedule;
  return {
    name: definition.name,
    description: definition.description,
    schedule: !schedule ? null : 'cron' in schedule ? { type: 'cron', expression: schedule.cron } : { type: 'interval', everyMs: schedule.everyMs },
    lastRun:
      state?.last_run_at && state.last_status
        ? { id: state.last_run_id, at: state.last_run_at, status: state.last_status, result: parse(state.last_result), error: state.last_error }
        : null,
    nextRunAt: nextRunAt ?? state?.next_run_at ?? null,
    openRuns,
  };
}
