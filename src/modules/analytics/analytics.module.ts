import type { ModuleManifest } from '../../module-manifest.js';
import { analyticsRoutes } from './analytics.routes.js';

export const analyticsModule: ModuleManifest<Parameters<typeof analyticsRoutes>[0]> = {
  name: 'analytics',
  routes: (deps) => analyticsRoutes(deps),
  tags: {
    Analytics:
      "Metrics over the other modules' records (revenue, open invoices, appointments, no-shows, occupancy, grooming, vaccination compliance, pets, marketplace), each with its declared basis, as a summary, a series (JSON or CSV) and the records behind a value.",
  },
  tables: ['analytics_versions'],
};
