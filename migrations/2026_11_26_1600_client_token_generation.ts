import { sql, type Kysely } from 'kysely';

/**
 * api_clients.token_generation replaces the tokens_valid_from watermark (a `tok_` id compared with a
 * token's jti). An id carries a time, and a time can be moved: ids made while the sandbox test clock
 * reached the id generator sorted past every later cut, so a rotated secret no longer cut a token
 * issued before it. A generation is a counter: a rotation or a disable adds one, a token carries the
 * generation it was issued under (`gen`), and an older one is refused. A client that had been cut
 * starts at 1, so tokens from before this migration (no `gen`: 0) stay cut; that also refuses its
 * tokens issued after the cut and before the upgrade, which live an hour at most.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE api_clients ADD COLUMN token_generation INTEGER NOT NULL DEFAULT 0 CHECK (token_generation >= 0)`.execute(db);
  await sql`UPDATE api_clients SET token_generation = 1 WHERE tokens_valid_from IS NOT NULL`.execute(db);
  await sql`ALTER TABLE api_clients DROP COLUMN tokens_valid_from`.execute(db);
}

/** A `tok_` id's time part for `ms` (10 Crockford base32 characters), as ids had them. */
function idTime(ms: number): string {
  const alphabet = '0123456789abcdefghjkmnpqrstvwxyz';
  let out = '';
  for (let i = 0, value = ms; i < 10; i++, value = Math.floor(value / 32)) out = alphabet[value % 32]! + out;
  return out;
}

/** Back to the watermark: a cut client's tokens issued before the downgrade stay cut. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE api_clients ADD COLUMN tokens_valid_from TEXT`.execute(db);
  await sql`UPDATE api_clients SET tokens_valid_from = ${`tok_${idTime(Date.now())}`} WHERE token_generation > 0`.execute(db);
  await sql`ALTER TABLE api_clients DROP COLUMN token_generation`.execute(db);
}
