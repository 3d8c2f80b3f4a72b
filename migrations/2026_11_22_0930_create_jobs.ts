import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('run_at', 'text', (c) => c.notNull())
    .addColumn('lease_until', 'text')
    .addColumn('dedupe_key', 'text', (c) => c.unique())
    .addColumn('result', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('jobs_due_idx').on('jobs').columns(['status', 'run_at']).execute();
  await db.schema.createIndex('jobs_name_idx').on('jobs').columns(['name', 'id']).execute();

  await db.schema
    .createTable('job_schedules')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('last_run_id', 'text')
    .addColumn('last_run_at', 'text')
    .addColumn('last_status', 'text')
    .addColumn('last_result', 'text')
    .addColumn('last_error', 'text')
    .addColumn('next_run_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('job_schedules').execute();
  await db.schema.dropTable('jobs').execute();
}
