import type { Static } from '@sinclair/typebox';
import type { MedicalRecordSchema } from './medical-records.schema.js';
import type { MedicalRecordsTable } from './medical-records.table.js';

type MedicalRecord = Static<typeof MedicalRecordSchema>;

export const presentMedicalRecord = (row: MedicalRecordsTable, supersededBy: string | null): MedicalRecord => ({
  id: row.id,
  petId: row.pet_id,
  kind: row.kind as MedicalRecord['kind'],
  text: row.text,
  code: row.diagnosis_code,
  medication: row.medication,
  dosage: row.dosage,
  frequency: row.frequency,
  durationDays: row.duration_days,
  weightKg: row.weight_kg,
  allergen: row.allergen,
  severity: row.severity as MedicalRecord['severity'],
  amends: row.amends,
  amendmentReason: row.amendment_reason,
  supersededBy,
  locationId: row.location_id,
  recordedBy: { clientId: row.author_client_id, role: row.author_role },
  createdAt: row.created_at,
  externalId: row.external_id ?? null,
});
