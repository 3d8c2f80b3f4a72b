import { sql, type Kysely } from 'kysely';

/**
 * Bulk imports (issue 29, DESIGN §17): one row per uploaded file, with its progress. `processed` is
 * the resume point: it moves in the same transaction as the batch of rows it counts, so after a hard
 * stop the rest of the file is taken up from there and nothing counted is lost or written twice.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('imports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('type', 'text', (c) => c.notNull().check(sql`type in ('pet-parents', 'pets', 'vaccinations', 'medical-records', 'appointments', 'providers')`))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('queued', 'validating', 'importing', 'done', 'failed', 'cancelled')`))
    .addColumn('dry_run', 'integer', (c) => c.notNull().check(sql`dry_run in (0, 1)`))
    .addColumn('format', 'text', (c) => c.notNull().check(sql`format in ('csv', 'ndjson')`))
    .addColumn('mapping', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('location_id', 'text')
    .addColumn('access_location_ids', 'text')
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('filename', 'text')
    .addColumn('size_bytes', 'integer', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('total', 'integer')
    .addColumn('processed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('skipped', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('errors', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('failure', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('imports_tenant_idx').on('imports').columns(['tenant_id', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('imports').execute();
}
