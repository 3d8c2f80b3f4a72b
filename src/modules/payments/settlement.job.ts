import { acrossTenants } from '../../db/access-policy.js';
import type { JobDefinition } from '../../jobs/job-definition.js';
import { businessNow } from '../business-clock/index.js';
import { closeDay, nextDayToClose } from './settlements.service.js';

/** Days one location may close in one run; a longer backlog continues in the next run. */
const maxDaysPerRun = 400;

/**
 * Hourly: closes each location's local days that have ended (on the business clock), oldest first,
 * every day since the last close so missed runs catch up. One transaction per day; the day to close
 * is re-read inside it, so parallel runs never close a day twice (and a UNIQUE index agrees).
 */
export function settlementJob(): JobDefinition {
  return {
    name: 'settlement',
    description:
      'Hourly. Closes every ended local day of every location (daily_close settlements: payments and refunds not yet counted, per currency, by method), ' +
      'catching up every day since the last close; a closed day is immutable and anything recorded after it falls into the next close. Reads the business clock (the sandbox test clock in the sandbox).',
    schedule: { cron: '15 * * * *' },
    maxAttempts: 3,
    async run(ctx) {
      const { db } = ctx.store;
      const now = await businessNow(db, ctx.env, ctx.clock);
      const locations = await acrossTenants(db, 'the settlement job closes the days of every location of every tenant')
        .selectFrom('locations')
        .selectAll()
        .orderBy('id')
        .execute();
      let days = 0;
      let settlements = 0;
      for (const location of locations) {
        for (let i = 0; i < maxDaysPerRun && !ctx.signal.aborted; i++) {
          const closed = await db.transaction().execute(async (trx) => {
            const day = await nextDayToClose(trx, location, now);
            return day === null ? null : closeDay(trx, location, day, now);
          });
          if (closed === null) break;
          days++;
          settlements += closed.length;
        }
      }
      return { locations: locations.length, days, settlements, businessNow: new Date(now).toISOString() };
    },
  };
}
