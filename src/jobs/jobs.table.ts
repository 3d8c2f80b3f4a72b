/** Tables of the job runner (one set per environment file). */

/** A durable run of a named job: queued → running → succeeded | failed (retries go back to queued). */
export interface JobsTable {
  id: string;
  name: string;
  status: string;
  /** schedule | manual | code */
  trigger: string;
  payload: string;
  attempts: number;
  max_attempts: number;
  /** Not before this instant (ISO UTC); retries move it forward. */
  run_at: string;
  /** A running row whose lease has passed belongs to a dead process and is run again. */
  lease_until: string | null;
  /** Unique while the row exists: a second enqueue with the same key is ignored. */
  dedupe_key: string | null;
  result: string | null;
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
}

/** The last known state of each named job, for GET /v1/jobs. */
export interface JobSchedulesTable {
  name: string;
  last_run_id: string | null;
  last_run_at: string | null;
  last_status: string | null;
  last_result: string | null;
  last_error: string | null;
  /** Next cron fire time recorded at start and after each fire: a missed fire is caught up once. */
  next_run_at: string | null;
  updated_at: string;
}

export interface JobsTables {
  jobs: JobsTable;
  job_schedules: JobSchedulesTable;
}
