/**
 * Medical records are append-only (database triggers refuse UPDATE and DELETE): a correction is a
 * new row whose `amends` names the record it corrects. Kind-specific columns are null for other kinds.
 */
export interface MedicalRecordsTable {
  id: string;
  tenant_id: string;
  /** The pet's location when recorded. */
  location_id: string;
  pet_id: string;
  /** note | diagnosis | prescription | weight | allergy */
  kind: string;
  text: string | null;
  diagnosis_code: string | null;
  medication: string | null;
  dosage: string | null;
  frequency: string | null;
  duration_days: number | null;
  weight_kg: number | null;
  allergen: string | null;
  /** mild | moderate | severe */
  severity: string | null;
  /** The record this one corrects (med_…), or null for an original. */
  amends: string | null;
  amendment_reason: string | null;
  /** The API client (cli_…) that wrote it, and its role then. */
  author_client_id: string;
  author_role: string;
  created_at: string;
  /** The source system's id of an imported row (imports module), null otherwise; unique per tenant. */
  external_id?: string | null;
}

/** While a tenant has a row here, its medical records may be deleted (sandbox reset only). */
export interface MedicalRecordErasuresTable {
  tenant_id: string;
  reason: string;
}

export interface MedicalRecordsTables {
  medical_records: MedicalRecordsTable;
  medical_record_erasures: MedicalRecordErasuresTable;
}
