import type { Static } from '@sinclair/typebox';
import type { PetsTable } from '../../db/database.js';
import './pets.table.js';
import type { PetSchema, VaccinationStatus } from './pets.schema.js';

/** The seed's six fields first (id, name, breed, ownerId, vaccinationStatus, lastVisit), then ours. */
export const presentPet = (row: PetsTable, vaccinationStatus: VaccinationStatus): Static<typeof PetSchema> => ({
  id: row.id,
  name: row.name,
  breed: row.breed,
  ownerId: row.owner_id,
  vaccinationStatus,
  lastVisit: row.last_visit,
  species: row.species as Static<typeof PetSchema>['species'],
  birthDate: row.birth_date,
  locationId: row.location_id,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  size: (row.size ?? null) as Static<typeof PetSchema>['size'],
  externalId: row.external_id ?? null,
});
