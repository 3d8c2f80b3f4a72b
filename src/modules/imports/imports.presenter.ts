import type { ImportOut } from './imports.schema.js';
import type { ImportsTable } from './imports.table.js';

export const presentImport = (row: ImportsTable): ImportOut => ({
  id: row.id,
  type: row.type,
  status: row.status,
  dryRun: row.dry_run === 1,
  format: row.format,
  locationId: row.location_id,
  mapping: JSON.parse(row.mapping) as Record<string, string>,
  filename: row.filename,
  sizeBytes: row.size_bytes,
  sha256: row.sha256,
  total: row.total,
  processed: row.processed,
  created: row.created,
  updated: row.updated,
  skipped: row.skipped,
  failed: row.failed,
  errors: JSON.parse(row.errors) as ImportOut['errors'],
  failure: row.failure,
  createdAt: row.created_at,
  startedAt: row.started_at,
  finishedAt: row.finished_at,
});
