import type { Clock } from '../../clock.js';
import { pageRequest, pageSchema, toPage } from '../../http/paging.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { presentRecord, seriesCsv } from './analytics.presenter.js';
import { MetricParams, MetricRecordSchema, RecordsQuery, SeriesOrCsvSchema, SummaryQuery, SummarySchema, SeriesQuery } from './analytics.schema.js';
import { metricRecords, metricSeries, metricSummary } from './analytics.service.js';

const tags = ['Analytics'];

const access =
  'Needs `analytics.read` (admins; doctors read). A location-scoped client counts only its own locations; a locationId outside them → 404. ' +
  'from and to are local dates, both inclusive, each location counted in its own time zone; to before from, or a range over 2 years → 400. ';

export function analyticsRoutes(deps: { clock: Clock }): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/analytics/summary',
      operationId: 'getAnalyticsSummary',
      summary: 'Every metric over a date range',
      description:
        access +
        'Answers each metric once with its value, unit and declared basis (which date places a record in the window, and the formula), and asOf (the time of the call): ' +
        'figures come from daily aggregates that triggers keep in the same transaction as every write a metric reads (per location and UTC day; the two partial days at a window’s ends in a location’s time zone are read from the records), so they equal what the records give and never lag; a figure is also reused only while a change counter those writes move stands still, so none is stale. The `analytics-rebuild` job recomputes the aggregates from the records. A money metric (unit minor) answers once per currency of the locations covered and the rows found. ' +
        'revenue_net reconciles with the journal to the cent. Emits nothing.',
      tags,
      access: { scope: 'analytics.read' },
      query: SummaryQuery,
      response: { status: 200, description: 'The metrics', schema: SummarySchema },
      errors: ['not_found'],
      handler: async ({ db, actor, query }) => ({ body: { metrics: await metricSummary(db, actor, query, deps.clock.now()) } }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/analytics/metrics/:name',
      operationId: 'getAnalyticsMetricSeries',
      summary: 'One metric as a series of buckets',
      description:
        access +
        "interval day (default), week (ISO weeks, Monday first) or month, in each location's calendar; every bucket of the range is present, an empty one as 0; the first and last " +
        'buckets are clipped to the range. A state metric (invoices_open, active_pets, vaccination_compliance_rate) is read at the end of each bucket. An unknown metric name or ' +
        'interval → 400. `Accept: text/csv` or `?format=csv` answers text/csv with the columns bucket,value. A money metric over locations with several currencies needs ' +
        '`currency` (400 otherwise). Emits nothing.',
      tags,
      access: { scope: 'analytics.read' },
      params: MetricParams,
      query: SeriesQuery,
      response: { status: 200, description: 'The series (JSON), or its CSV text', schema: SeriesOrCsvSchema, contentTypes: ['text/csv'] },
      errors: ['not_found'],
      handler: async ({ db, actor, params, query, ctx }) => {
        const series = await metricSeries(db, actor, params.name, query, query.interval ?? 'day', deps.clock.now());
        const csv = query.format === 'csv' || ctx.accepts('application/json', 'text/csv') === 'text/csv';
        if (!csv) return { body: series };
        return {
          body: seriesCsv(series),
          headers: { 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `inline; filename="${params.name}.csv"` },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/analytics/metrics/:name/records',
      operationId: 'listAnalyticsMetricRecords',
      summary: 'The records behind a metric',
      description:
        access +
        'Lists the rows the value over [from, to] is computed from, by source id newest first (cursor-paged): sourceType, sourceId, occurredAt (the instant that dates it), ' +
        'locationId, and where it counts (numerator, denominator, or both for a ratio). For a money metric each row has a signed amount (refunds negative) and the amounts ' +
        'of all pages sum to the value; money rows are of one currency (`currency`, needed when the locations use several). Emits nothing.',
      tags,
      access: { scope: 'analytics.read' },
      params: MetricParams,
      query: RecordsQuery,
      response: { status: 200, description: 'A page of records', schema: pageSchema(MetricRecordSchema) },
      errors: ['not_found', 'invalid_cursor'],
      handler: async ({ db, actor, params, query }) => {
        const page = pageRequest(query);
        return { body: toPage(await metricRecords(db, actor, params.name, query, page), page, presentRecord) };
      },
    }),
  ];
}
