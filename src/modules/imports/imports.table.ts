/** Tables of the imports module (rows follow the conventions at the top of src/db/database.ts). */

export const importTypes = ['pet-parents', 'pets', 'vaccinations', 'medical-records', 'appointments', 'providers'] as const;
export type ImportType = (typeof importTypes)[number];

export const importStatuses = ['queued', 'validating', 'importing', 'done', 'failed', 'cancelled'] as const;
export type ImportStatus = (typeof importStatuses)[number];

/** One uploaded file and its progress; `processed` moves in the transaction of the rows it counts (the resume point). */
export interface ImportsTable {
  id: string;
  tenant_id: string;
  type: ImportType;
  status: ImportStatus;
  dry_run: number;
  /** csv | ndjson, decided from the first byte of the file. */
  format: 'csv' | 'ndjson';
  /** JSON object: source column → our column. */
  mapping: string;
  /** The location every row goes to (the form's locationId), or null: each row names its own. */
  location_id: string | null;
  /** The importer's locations (JSON array), null for a client of the whole tenant: the job writes as it. */
  access_location_ids: string | null;
  client_id: string;
  role: string;
  filename: string | null;
  size_bytes: number;
  sha256: string;
  /** Rows in the file, known once validation has read it. */
  total: number | null;
  processed: number;
  created: number;
  updated: number;
  skipped: number;
  failed: number;
  /** JSON array of {row, field, message}: the first 1,000. */
  errors: string;
  /** Why the whole import failed (status failed), null otherwise. */
  failure: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
}

/** Empty outside an import batch's transaction (migration defer_import_compliance). */
export interface ComplianceDeferralTable {
  pet_id: string;
}

/** Empty outside an import batch's transaction (migration defer_import_pet_triggers): new pets counted for analytics_daily. */
export interface ImportPetsDailyTable {
  location_id: string;
  day: string;
  species: string;
  n: number;
}

export interface ImportsTables {
  imports: ImportsTable;
  compliance_deferral: ComplianceDeferralTable;
  import_pets_daily: ImportPetsDailyTable;
}
