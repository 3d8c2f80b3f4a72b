import type { RecordRow } from './analytics.repository.js';
import type { MetricRecord, Series } from './analytics.schema.js';

export function presentRecord(row: RecordRow): MetricRecord {
  return {
    sourceType: row.source_type,
    sourceId: row.id,
    occurredAt: row.occurred_at,
    locationId: row.location_id,
    ...(row.amount !== null ? { amount: row.amount } : {}),
    ...(row.currency !== null ? { currency: row.currency } : {}),
    ...(row.status !== null ? { status: row.status } : {}),
    counted: row.counted,
  };
}

/** The series as CSV (RFC 4180): a header `bucket,value`, then one line per bucket, CRLF line ends. */
export function seriesCsv(series: Series): string {
  return ['bucket,value', ...series.points.map((p) => `${p.bucket},${p.value}`)].join('\r\n') + '\r\n';
}
