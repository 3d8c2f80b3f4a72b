import type { Kysely } from 'kysely';

// Migrations are frozen in time: they use Kysely<unknown>, never the app's Database type.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Each client's pinned Petcare-Version (DESIGN §16). Clients that exist already were created
  // while the 2026-11-01 answers were live, so they keep them. No CHECK: the list of versions
  // grows with releases and the app validates it.
  await db.schema
    .alterTable('api_clients')
    .addColumn('api_version', 'text', (c) => c.notNull().defaultTo('2026-11-01'))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_clients').dropColumn('api_version').execute();
}
