import type { ModuleManifest } from '../../module-manifest.js';
import type { AnalyticsTables } from './analytics.table.js';
import { analyticsJobs } from './analytics.jobs.js';
import { analyticsRoutes } from './analytics.routes.js';

// The module's tables join the `Database` type here, so src/db imports no module.
declare module '../../db/database.js' {
  interface Database extends AnalyticsTables {}
}

export const analyticsModule: ModuleManifest<Parameters<typeof analyticsRoutes>[0]> = {
  name: 'analytics',
  sdk: {
    analytics: {
      summary: 'getAnalyticsSummary',
      metrics: {
        get: 'getAnalyticsMetricSeries',
        records: 'listAnalyticsMetricRecords',
      },
    },
  },
  routes: (deps) => analyticsRoutes(deps),
  jobs: () => analyticsJobs(),
  tags: {
    Analytics:
      "Metrics over the other modules' records (revenue, open invoices, appointments, no-shows, occupancy, grooming, vaccination compliance, pets, marketplace), each with its declared basis, as a summary, a series (JSON or CSV) and the records behind a value.",
  },
  tables: ['analytics_versions', 'analytics_daily', 'analytics_pet_events'],
  access: {
    analytics_versions: { system: 'counters of writes that invalidate cached summaries' },
    analytics_daily: { location: 'location_id' },
    analytics_pet_events: { location: 'location_id' },
  },
  // Triggers move the aggregates as the other modules' rows go; the location's delete takes what is left.
  reset: { cascades: { analytics_daily: 'locations', analytics_pet_events: 'locations' } },
};
