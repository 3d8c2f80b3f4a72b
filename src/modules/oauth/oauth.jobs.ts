import type { HousekeepingTask } from '../../jobs/housekeeping.js';
import { isoAt } from '../../clock.js';
import { sweepExpiredTokens } from './refresh-tokens.repository.js';

/** The module's housekeeping: refresh tokens and revocations nobody can present any more. */
export function oauthHousekeeping(): HousekeepingTask[] {
  return [
    {
      name: 'oauth.expired-tokens',
      drops: 'spent or expired tokens',
      run: async ({ store, clock }) => ({ expiredTokens: await sweepExpiredTokens(store.db, isoAt(clock.now())) }),
    },
  ];
}
