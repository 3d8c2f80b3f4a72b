import { sql, type Kysely } from 'kysely';

// Migrations are frozen in time: they use Kysely<unknown>, never the app's Database type.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('vaccinations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('location_id', 'text', (c) => c.notNull().references('locations.id'))
    .addColumn('pet_id', 'text', (c) => c.notNull().references('pets.id'))
    .addColumn('vaccine', 'text', (c) => c.notNull())
    // lower-case vaccine name: "Rabies" and "rabies" are one vaccine for the status and the filter
    .addColumn('vaccine_key', 'text', (c) => c.notNull())
    .addColumn('administered_on', 'text', (c) => c.notNull())
    .addColumn('due_on', 'text', (c) => c.notNull())
    .addColumn('lot_number', 'text')
    // no foreign key: providers live in their own module's migration
    .addColumn('provider_id', 'text')
    .addColumn('recorded_by_client_id', 'text', (c) => c.notNull())
    .addColumn('recorded_by_role', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('vaccinations_pet_idx').on('vaccinations').columns(['pet_id', 'id']).execute();
  // latest record per pet and vaccine (vaccinationStatus)
  await db.schema.createIndex('vaccinations_pet_vaccine_idx').on('vaccinations').columns(['pet_id', 'vaccine_key', 'administered_on']).execute();
  // the reminders job and analytics scan by due date
  await db.schema.createIndex('vaccinations_due_idx').on('vaccinations').columns(['tenant_id', 'due_on']).execute();

  await db.schema
    .createTable('medical_records')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('location_id', 'text', (c) => c.notNull().references('locations.id'))
    .addColumn('pet_id', 'text', (c) => c.notNull().references('pets.id'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('note', 'diagnosis', 'prescription', 'weight', 'allergy')`))
    .addColumn('text', 'text')
    .addColumn('diagnosis_code', 'text')
    .addColumn('medication', 'text')
    .addColumn('dosage', 'text')
    .addColumn('frequency', 'text')
    .addColumn('duration_days', 'integer')
    .addColumn('weight_kg', 'real')
    .addColumn('allergen', 'text')
    .addColumn('severity', 'text')
    .addColumn('amends', 'text', (c) => c.references('medical_records.id'))
    .addColumn('amendment_reason', 'text')
    .addColumn('author_client_id', 'text', (c) => c.notNull())
    .addColumn('author_role', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('medical_records_pet_idx').on('medical_records').columns(['pet_id', 'id']).execute();
  // One amendment per record: corrections form a chain, so "the current version" is never ambiguous.
  await db.schema.createIndex('medical_records_amends_idx').on('medical_records').column('amends').unique().where(sql.ref('amends'), 'is not', null).execute();

  // Erasing a tenant's records (sandbox reset) is the one deliberate exception to append-only:
  // a row here for the tenant, inserted and removed in the erasing transaction, lets its DELETEs through.
  await db.schema
    .createTable('medical_record_erasures')
    .addColumn('tenant_id', 'text', (c) => c.primaryKey())
    .addColumn('reason', 'text', (c) => c.notNull())
    .execute();

  // Append-only is enforced by the database itself, so no code path (or bug) can rewrite history.
  await sql`
    CREATE TRIGGER medical_records_no_update BEFORE UPDATE ON medical_records
    BEGIN
      SELECT RAISE(ABORT, 'medical records are append-only: record an amendment instead');
    END
  `.execute(db);
  await sql`
    CREATE TRIGGER medical_records_no_delete BEFORE DELETE ON medical_records
    WHEN NOT EXISTS (SELECT 1 FROM medical_record_erasures WHERE tenant_id = OLD.tenant_id)
    BEGIN
      SELECT RAISE(ABORT, 'medical records are append-only: they cannot be deleted');
    END
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS medical_records_no_delete`.execute(db);
  await sql`DROP TRIGGER IF EXISTS medical_records_no_update`.execute(db);
  for (const table of ['medical_record_erasures', 'medical_records', 'vaccinations']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
