import { DateTime } from 'luxon';
import type { Executor } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import type { Actor } from '../../http/actor.js';
import { type FieldError, foundOr404, missingReference, validationFailed } from '../../http/errors.js';
import { findLocation } from '../locations/index.js';
import { findPet } from '../pets/index.js';
import { findProvider } from '../providers/index.js';
import type { PetsTable } from '../../db/database.js';
import { findVaccination, insertVaccination, vaccineKey } from './vaccinations.repository.js';
import type { CreateVaccinationInput } from './vaccinations.schema.js';
import type { VaccinationsTable } from './vaccinations.table.js';
import { isCalendarDate, utcDate } from '../../calendar-dates.js';

/**
 * Today at the pet's location: a dose given this morning in Sydney is still "yesterday" in UTC,
 * and must not be refused as future-dated.
 */
async function localToday(db: Executor, actor: Actor, pet: PetsTable, now: number): Promise<string> {
  const location = await findLocation(db, actor, pet.location_id);
  const local = location ? DateTime.fromMillis(now, { zone: location.timezone }).toISODate() : null;
  return local ?? utcDate(now);
}

export async function requireVisiblePet(db: Executor, actor: Actor, petId: string): Promise<PetsTable> {
  return foundOr404(await findPet(db, actor, petId), 'pet', petId);
}

export async function createVaccination(db: Executor, actor: Actor, petId: string, input: CreateVaccinationInput, now: number): Promise<VaccinationsTable> {
  const pet = await requireVisiblePet(db, actor, petId);
  const errors: FieldError[] = [];
  for (const field of ['administeredOn', 'dueOn'] as const) {
    if (!isCalendarDate(input[field])) errors.push({ field, message: `'${input[field]}' is not a calendar date` });
  }
  if (errors.length === 0) {
    const today = await localToday(db, actor, pet, now);
    if (input.administeredOn > today) errors.push({ field: 'administeredOn', message: `cannot be in the future (today is ${today} at the pet's location)` });
    if (input.dueOn <= input.administeredOn) errors.push({ field: 'dueOn', message: 'must be after administeredOn' });
    // A typo such as 0202 for 2026 would otherwise pass as history; no record of a pet predates its birth.
    const earliest = pet.birth_date ?? '1900-01-01';
    if (input.administeredOn < earliest)
      errors.push({ field: 'administeredOn', message: `cannot be before ${pet.birth_date ? "the pet's birthDate" : '1900'} (${earliest})` });
    if (input.dueOn > '2199-12-31') errors.push({ field: 'dueOn', message: 'must be before 2200' });
  }
  if (errors.length > 0) throw validationFailed(errors);
  // Any provider the caller can see (also an inactive one or one from another clinic: records are history).
  if (input.providerId != null && !(await findProvider(db, actor, input.providerId))) throw missingReference('providerId', 'provider', input.providerId);

  const vaccine = input.vaccine.trim();
  const row: VaccinationsTable = {
    id: newId('vac'),
    tenant_id: actor.tenantId,
    location_id: pet.location_id,
    pet_id: pet.id,
    vaccine,
    vaccine_key: vaccineKey(vaccine),
    administered_on: input.administeredOn,
    due_on: input.dueOn,
    lot_number: input.lotNumber?.trim() ?? null,
    provider_id: input.providerId ?? null,
    recorded_by_client_id: actor.clientId,
    recorded_by_role: actor.role,
    created_at: new Date(now).toISOString(),
  };
  await insertVaccination(db, actor, row);
  return row;
}

export async function getVaccination(db: Executor, actor: Actor, id: string): Promise<VaccinationsTable> {
  return foundOr404(await findVaccination(db, actor, id), 'vaccination', id);
}
