/**
 * Change counters of what the metrics read, one per kind of record (money, invoices, appointments,
 * pets, bookings, boarding, marketplace), each moved by triggers on its tables.
 */
export interface AnalyticsVersionsTable {
  name: string;
  version: number;
}

/**
 * What the records add up per location, measure, UTC day and key ('' day: the running total), kept
 * by triggers (migration 2026_11_26_1910; see analytics-daily.repository.ts).
 */
export interface AnalyticsDailyTable {
  tenant_id: string;
  location_id: string;
  measure: string;
  day: string;
  key: string;
  num: number;
  den: number;
}

/** A pet's vaccination-compliance events (JSON [day, key, num, den] list), as last added to analytics_daily. */
export interface AnalyticsPetEventsTable {
  pet_id: string;
  tenant_id: string;
  location_id: string;
  events: string;
}

export interface AnalyticsTables {
  analytics_versions: AnalyticsVersionsTable;
  analytics_daily: AnalyticsDailyTable;
  analytics_pet_events: AnalyticsPetEventsTable;
}
