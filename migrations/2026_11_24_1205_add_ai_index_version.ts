import { sql, type Kysely } from 'kysely';

/**
 * A change counter of the knowledge index (every chunk written, changed or removed), kept by
 * triggers so no write path can forget it. The query path's term statistics (how many chunks of the
 * searched services hold each question word) are reused while it stands still. One row, never erased.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE ai_index_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)`.execute(db);
  await sql`INSERT INTO ai_index_version (id, version) VALUES (1, 0)`.execute(db);
  for (const event of ['INSERT', 'UPDATE', 'DELETE']) {
    await sql`
      CREATE TRIGGER ${sql.raw(`ai_chunks_version_${event.toLowerCase()}`)} AFTER ${sql.raw(event)} ON ai_chunks
      BEGIN UPDATE ai_index_version SET version = version + 1 WHERE id = 1; END`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const event of ['insert', 'update', 'delete']) await sql`DROP TRIGGER IF EXISTS ${sql.raw(`ai_chunks_version_${event}`)}`.execute(db);
  await sql`DROP TABLE IF EXISTS ai_index_version`.execute(db);
}
