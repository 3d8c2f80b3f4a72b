/** The change counter of everything the metrics read (one row, id 1), moved by triggers on those tables. */
export interface AnalyticsVersionTable {
  id: number;
  version: number;
}

export interface AnalyticsTables {
  analytics_version: AnalyticsVersionTable;
}
