import type { Kysely } from 'kysely';

// Migrations are frozen in time: they use Kysely<unknown>, never the app's Database type.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('documents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    // Cascade: a pet is only ever deleted by a sandbox reset, which must not trip over its documents.
    .addColumn('pet_id', 'text', (c) => c.notNull().references('pets.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('declared_content_type', 'text')
    .addColumn('filename', 'text')
    .addColumn('size_bytes', 'integer', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('storage_key', 'text', (c) => c.notNull().unique())
    .addColumn('text_status', 'text', (c) => c.notNull())
    .addColumn('extracted_text', 'text')
    .addColumn('text_length', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('page_count', 'integer')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('documents_pet_idx').on('documents').columns(['tenant_id', 'pet_id', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('documents').execute();
}
