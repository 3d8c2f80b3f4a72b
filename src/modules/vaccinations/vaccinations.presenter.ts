import type { Static } from '@sinclair/typebox';
import type { VaccinationsTable } from './vaccinations.table.js';
import type { VaccinationSchema } from './vaccinations.schema.js';

export const presentVaccination = (row: VaccinationsTable): Static<typeof VaccinationSchema> => ({
  id: row.id,
  petId: row.pet_id,
  vaccine: row.vaccine,
  administeredOn: row.administered_on,
  dueOn: row.due_on,
  lotNumber: row.lot_number,
  providerId: row.provider_id,
  locationId: row.location_id,
  recordedBy: { clientId: row.recorded_by_client_id, role: row.recorded_by_role },
  createdAt: row.created_at,
  externalId: row.external_id ?? null,
});
