import type { Static } from '@sinclair/typebox';
import type { PetParentsTable } from '../../db/database.js';
import type { PetParentSchema } from './pet-parents.schema.js';

export const presentPetParent = (row: PetParentsTable): Static<typeof PetParentSchema> => ({
  id: row.id,
  name: row.name,
  email: row.email,
  phone: row.phone,
  locationId: row.location_id,
  reminderConsent: row.reminder_consent === 1,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  externalId: row.external_id ?? null,
});
