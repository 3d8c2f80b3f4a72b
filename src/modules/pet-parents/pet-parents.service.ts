import type { Executor, PetParentsTable } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import type { Actor } from '../../http/actor.js';
import { foundOr404, missingReference } from '../../http/errors.js';
import { findLocation } from '../locations/index.js';
import { findPetParent, insertPetParent, updatePetParent } from './pet-parents.repository.js';
import type { CreatePetParentInput, UpdatePetParentInput } from './pet-parents.schema.js';

async function requireLocation(db: Executor, actor: Actor, locationId: string): Promise<void> {
  if (!(await findLocation(db, actor, locationId))) throw missingReference('locationId', 'location', locationId);
}

/** A new parent's row from the API's create input: the one shape POST /v1/pet-parents and imports write. */
export const petParentRow = (tenantId: string, input: CreatePetParentInput, at: string, externalId?: string): PetParentsTable => ({
  id: newId('usr'),
  tenant_id: tenantId,
  location_id: input.locationId,
  name: input.name,
  email: input.email ?? null,
  phone: input.phone ?? null,
  reminder_consent: input.reminderConsent ? 1 : 0,
  created_at: at,
  updated_at: at,
  ...(externalId === undefined ? {} : { external_id: externalId }),
});

export async function createPetParent(db: Executor, actor: Actor, input: CreatePetParentInput, now: number): Promise<PetParentsTable> {
  await requireLocation(db, actor, input.locationId);
  const row = petParentRow(actor.tenantId, input, new Date(now).toISOString());
  await insertPetParent(db, actor, row);
  return row;
}

export async function getPetParent(db: Executor, actor: Actor, id: string): Promise<PetParentsTable> {
  return foundOr404(await findPetParent(db, actor, id), 'pet parent', id);
}

export async function patchPetParent(db: Executor, actor: Actor, id: string, input: UpdatePetParentInput, now: number): Promise<PetParentsTable> {
  const existing = await getPetParent(db, actor, id);
  if (input.locationId !== undefined) await requireLocation(db, actor, input.locationId);
  const patch: Partial<PetParentsTable> = { updated_at: new Date(now).toISOString() };
  if (input.name !== undefined) patch.name = input.name;
  if (input.email !== undefined) patch.email = input.email;
  if (input.phone !== undefined) patch.phone = input.phone;
  if (input.locationId !== undefined) patch.location_id = input.locationId;
  if (input.reminderConsent !== undefined) patch.reminder_consent = input.reminderConsent ? 1 : 0;
  await updatePetParent(db, actor, id, patch);
  return { ...existing, ...patch };
}
