import type { SecretBox } from '../../db/secret-box.js';
import type { HousekeepingTask } from '../../jobs/housekeeping.js';
import { sealClearCalendarTokens } from './appointments.repository.js';

/** The module's housekeeping: calendar tokens an older release stored in clear get sealed (SecretBox). */
export function appointmentHousekeeping(deps: { secretBox: SecretBox }): HousekeepingTask[] {
  return [
    {
      name: 'appointments.seal-calendar-tokens',
      drops: 'calendar tokens an older release stored in clear (sealed)',
      run: async ({ store }) => ({ sealedCalendarTokens: await sealClearCalendarTokens(store.db, deps.secretBox) }),
    },
  ];
}
