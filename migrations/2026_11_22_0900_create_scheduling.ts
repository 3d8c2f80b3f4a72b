import { sql, type Kysely } from 'kysely';

// Migrations are frozen in time: they use Kysely<unknown>, never the app's Database type.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('providers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('services', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('rating', 'real')
    .addColumn('rating_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('providers_tenant_idx').on('providers').columns(['tenant_id', 'id']).execute();

  await db.schema
    .createTable('provider_locations')
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('location_id', 'text', (c) => c.notNull().references('locations.id'))
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('provider_locations_pk', ['provider_id', 'location_id'])
    .execute();
  await db.schema.createIndex('provider_locations_location_idx').on('provider_locations').columns(['location_id', 'provider_id']).execute();

  await db.schema
    .createTable('appointment_types')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('duration_minutes', 'integer', (c) => c.notNull())
    .addColumn('buffer_before_minutes', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('buffer_after_minutes', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('appointment_types_pk', ['tenant_id', 'code'])
    .execute();

  await db.schema
    .createTable('provider_schedules')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('location_id', 'text', (c) => c.notNull().references('locations.id'))
    .addColumn('weekly', 'text', (c) => c.notNull())
    .addColumn('time_off', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('provider_schedules_provider_location_uq', ['provider_id', 'location_id'])
    .execute();
  await db.schema.createIndex('provider_schedules_location_idx').on('provider_schedules').columns(['tenant_id', 'location_id', 'id']).execute();

  await db.schema
    .createTable('appointments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('location_id', 'text', (c) => c.notNull().references('locations.id'))
    .addColumn('pet_id', 'text', (c) => c.notNull().references('pets.id'))
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('starts_at', 'text', (c) => c.notNull())
    .addColumn('ends_at', 'text', (c) => c.notNull())
    .addColumn('notes', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('blocked_from', 'text', (c) => c.notNull())
    .addColumn('blocked_until', 'text', (c) => c.notNull())
    .addColumn('calendar_token', 'text', (c) => c.notNull())
    .addColumn('sequence', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // Overlap checks and availability read the providers' window from this index alone (it covers the columns they need).
  await db.schema
    .createIndex('appointments_provider_start_idx')
    .on('appointments')
    .columns(['provider_id', 'starts_at', 'status', 'blocked_from', 'blocked_until'])
    .execute();
  await db.schema.createIndex('appointments_location_idx').on('appointments').columns(['tenant_id', 'location_id', 'id']).execute();
  await db.schema.createIndex('appointments_pet_idx').on('appointments').columns(['tenant_id', 'pet_id', 'id']).execute();
  // Reminders and reports scan by start time.
  await db.schema.createIndex('appointments_start_idx').on('appointments').columns(['tenant_id', 'starts_at']).execute();

  // A counter every change to appointments bumps, whoever writes (any module, the CLI, another process):
  // availability caches providers' busy times and trusts them only while the counter stands still.
  await db.schema
    .createTable('scheduling_versions')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('version', 'integer', (c) => c.notNull())
    .execute();
  await sql`insert into scheduling_versions (name, version) values ('appointments', 0)`.execute(db);
  for (const event of ['insert', 'update', 'delete']) {
    await sql
      .raw(
        `create trigger appointments_version_${event} after ${event} on appointments ` +
          `begin update scheduling_versions set version = version + 1 where name = 'appointments'; end`,
      )
      .execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['scheduling_versions', 'appointments', 'provider_schedules', 'appointment_types', 'provider_locations', 'providers']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
