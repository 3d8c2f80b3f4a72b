/** Analytics (DESIGN §14): metrics with declared bases over the other modules' records. */
export { analyticsRoutes } from './analytics.routes.js';
export { computeMetric, computeMetricPerCurrency, type MetricWindow } from './analytics.service.js';
export { metricNames, type Metric, type MetricName } from './analytics.schema.js';
export { petCount } from './analytics-daily.repository.js';
export { analyticsModule } from './analytics.module.js';
