import { sql, type Kysely } from 'kysely';

/**
 * A client's token watermark: access tokens whose id (jti, time-ordered like every id) sorts before
 * it are refused. Set by a secret rotation, a disable or a secret changed from the environment, so
 * tokens issued before the change stay dead (also after a re-enable) and one issued right after works.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE api_clients ADD COLUMN tokens_valid_from TEXT`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE api_clients DROP COLUMN tokens_valid_from`.execute(db);
}
