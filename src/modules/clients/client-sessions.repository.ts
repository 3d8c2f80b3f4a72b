import { scoped } from '../../db/access-policy.js';
import type { Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';

/**
 * Ends a client's sessions: its refresh tokens stop working (a disable or a secret rotation).
 * Here rather than in oauth, which issues the tokens: oauth builds on clients, not the reverse.
 */
export async function revokeClientRefreshTokens(db: Executor, access: AccessFilter, clientId: string, now: string): Promise<void> {
  await scoped(db, access).updateTable('refresh_tokens').set({ revoked_at: now }).where('client_id', '=', clientId).where('revoked_at', 'is', null).execute();
}
