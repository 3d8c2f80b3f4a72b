import { isoAt } from '../../clock.js';
import type { Executor, PetsTable } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import type { Actor } from '../../http/actor.js';
import { foundOr404, missingReference, validationFailed } from '../../http/errors.js';
import { emit } from '../events/index.js';
import { findLocation } from '../locations/index.js';
import { findPetParent } from '../pet-parents/index.js';
import { findPet, insertPet, updatePet } from './pets.repository.js';
import type { CreatePetInput, UpdatePetInput } from './pets.schema.js';
import { isCalendarDate, utcDate } from '../../calendar-dates.js';

/** A real calendar date, not in the future. */
function checkBirthDate(value: string | null | undefined, now: number): void {
  if (value === undefined || value === null) return;
  if (!isCalendarDate(value)) {
    throw validationFailed([{ field: 'birthDate', message: `'${value}' is not a calendar date` }]);
  }
  if (value > utcDate(now)) {
    throw validationFailed([{ field: 'birthDate', message: 'cannot be in the future' }]);
  }
}

async function checkReferences(db: Executor, actor: Actor, ownerId: string | undefined, locationId: string | undefined): Promise<void> {
  if (ownerId !== undefined && !(await findPetParent(db, actor, ownerId))) throw missingReference('ownerId', 'pet parent', ownerId);
  if (locationId !== undefined && !(await findLocation(db, actor, locationId))) throw missingReference('locationId', 'location', locationId);
}

export async function createPet(db: Executor, actor: Actor, input: CreatePetInput, now: number): Promise<PetsTable> {
  checkBirthDate(input.birthDate, now);
  await checkReferences(db, actor, input.ownerId, input.locationId);
  const at = isoAt(now);
  const row: PetsTable = {
    id: newId('pet'),
    tenant_id: actor.tenantId,
    location_id: input.locationId,
    owner_id: input.ownerId,
    name: input.name,
    breed: input.breed,
    species: input.species,
    birth_date: input.birthDate ?? null,
    size: input.size ?? null,
    last_visit: null,
    created_at: at,
    updated_at: at,
  };
  await insertPet(db, actor, row);
  await emit(
    db,
    'pet.registered',
    { petId: row.id, ownerId: row.owner_id, locationId: row.location_id, name: row.name, species: row.species },
    actor.tenantId,
    now,
  );
  return row;
}

export async function getPet(db: Executor, actor: Actor, id: string): Promise<PetsTable> {
  return foundOr404(await findPet(db, actor, id), 'pet', id);
}

export async function patchPet(db: Executor, actor: Actor, id: string, input: UpdatePetInput, now: number): Promise<PetsTable> {
  const existing = await getPet(db, actor, id);
  checkBirthDate(input.birthDate, now);
  await checkReferences(db, actor, input.ownerId, input.locationId);
  const patch: Partial<PetsTable> = { updated_at: new Date(now).toISOString() };
  if (input.name !== undefined) patch.name = input.name;
  if (input.breed !== undefined) patch.breed = input.breed;
  if (input.species !== undefined) patch.species = input.species;
  if (input.ownerId !== undefined) patch.owner_id = input.ownerId;
  if (input.locationId !== undefined) patch.location_id = input.locationId;
  if (input.birthDate !== undefined) patch.birth_date = input.birthDate;
  if (input.size !== undefined) patch.size = input.size;
  await updatePet(db, actor, id, patch);
  return { ...existing, ...patch };
}
