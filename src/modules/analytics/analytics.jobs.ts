import { acrossTenants } from '../../db/access-policy.js';
import { selectRows } from '../../db/database.js';
import type { JobDefinition, JobResult } from '../../jobs/job-definition.js';
import { rebuildDailyAggregates } from './analytics-daily.repository.js';

/**
 * `analytics-rebuild`: recomputes every tenant's daily aggregates (`analytics_daily`) from the
 * records, one tenant per transaction. Triggers keep them exact in every write, so this is a repair
 * (after a write made around them, e.g. a restore of rows with triggers off) and is run on demand.
 */
export function analyticsJobs(): JobDefinition[] {
  return [
    {
      name: 'analytics-rebuild',
      description:
        "Rebuilds every tenant's daily analytics aggregates (revenue, appointments, grooming, pets, open invoices, vaccination compliance per location and day) from the records, " +
        'one tenant per transaction. Triggers keep them in every write; run it to repair them.',
      schedule: null,
      async run({ store, signal }): Promise<JobResult> {
        const tenants = await selectRows<{ id: string }>(acrossTenants(store.db, 'the rebuild covers every tenant'), 'select id from tenants order by id', []);
        let rebuilt = 0;
        let rows = 0;
        for (const { id } of tenants) {
          if (signal.aborted) break;
          rows += await store.db.transaction().execute((trx) => rebuildDailyAggregates(trx, id));
          rebuilt++;
        }
        return { tenants: rebuilt, rows };
      },
    },
  ];
}
