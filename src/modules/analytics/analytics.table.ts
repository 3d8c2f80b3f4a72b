/**
 * Change counters of what the metrics read, one per kind of record (money, invoices, appointments,
 * pets, bookings, boarding, marketplace), each moved by triggers on its tables.
 */
export interface AnalyticsVersionsTable {
  name: string;
  version: number;
}

export interface AnalyticsTables {
  analytics_versions: AnalyticsVersionsTable;
}
