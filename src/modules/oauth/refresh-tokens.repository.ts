import { acrossTenants, scoped } from '../../db/access-policy.js';
import type { Executor, RefreshTokensTable } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';

/**
 * Refresh tokens are the tenant's (the policy): the token endpoint works within the tenant of the
 * client it has just authenticated, so a token of another tenant is never found, as it never matched.
 */

export async function insertRefreshToken(db: Executor, access: AccessFilter, row: RefreshTokensTable): Promise<void> {
  await scoped(db, access).insert('refresh_tokens', row);
}

export async function findRefreshTokenByHash(db: Executor, access: AccessFilter, tokenHash: string): Promise<RefreshTokensTable | null> {
  return (await scoped(db, access).selectFrom('refresh_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst()) ?? null;
}

/** Marks a token spent; false when another request spent it first (a race is a re-use). */
export async function spendRefreshToken(db: Executor, access: AccessFilter, id: string, now: string): Promise<boolean> {
  const result = await scoped(db, access)
    .updateTable('refresh_tokens')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Revokes every refresh token of a family and, through the family id that access tokens carry
 * as `sid`, the access tokens issued from it (kept in the revocation list until they expire).
 */
export async function revokeFamily(db: Executor, access: AccessFilter, familyId: string, now: string, accessTokensExpireBy: string): Promise<void> {
  await scoped(db, access).updateTable('refresh_tokens').set({ revoked_at: now }).where('family_id', '=', familyId).where('revoked_at', 'is', null).execute();
  await revokeAccessToken(db, familyId, accessTokensExpireBy);
}

/** Adds a token id (jti) or a family id (sid) to the revocation list. */
export async function revokeAccessToken(db: Executor, jti: string, expiresAt: string): Promise<void> {
  await acrossTenants(db, 'the revocation list is one for the whole environment, found by token id')
    .insertInto('revoked_access_tokens')
    .values({ jti, expires_at: expiresAt })
    .onConflict((oc) => oc.column('jti').doNothing())
    .execute();
}

/** Drops refresh tokens and revocations nobody can present any more; returns how many rows went. */
export async function sweepExpiredTokens(db: Executor, now: string): Promise<number> {
  const everyTenant = acrossTenants(db, 'a sweep of expired tokens in every tenant');
  const tokens = await everyTenant.deleteFrom('refresh_tokens').where('expires_at', '<=', now).executeTakeFirst();
  const revocations = await everyTenant.deleteFrom('revoked_access_tokens').where('expires_at', '<=', now).executeTakeFirst();
  return Number(tokens.numDeletedRows) + Number(revocations.numDeletedRows);
}
