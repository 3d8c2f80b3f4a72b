import type { Static } from '@sinclair/typebox';
import type { StayRecord } from './stays.repository.js';
import type { StaySchema, StayStatus } from './stays.schema.js';

export const presentStay = (row: StayRecord): Static<typeof StaySchema> => ({
  id: row.id,
  kind: 'boarding',
  status: row.status as StayStatus,
  petId: row.pet_id,
  parentId: row.parent_id,
  locationId: row.location_id,
  roomType: row.room_type,
  roomId: row.room_id,
  checkInOn: row.check_in_on,
  checkOutOn: row.check_out_on,
  nights: row.nights,
  amount: row.amount,
  currency: row.currency,
  invoiceId: row.invoice_id,
  notes: row.notes,
  vaccinationOverride:
    row.vaccination_override_reason === null
      ? null
      : {
          reason: row.vaccination_override_reason,
          clientId: row.vaccination_override_by ?? '',
          role: row.vaccination_override_role ?? '',
          missing: JSON.parse(row.vaccination_override_missing ?? '[]') as string[],
          at: row.vaccination_override_at ?? row.checked_in_at ?? row.created_at,
        },
  createdAt: row.created_at,
  checkedInAt: row.checked_in_at,
  checkedOutAt: row.checked_out_at,
});
