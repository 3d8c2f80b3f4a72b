import type { Executor } from '../../db/database.js';
import type { VaccinationStatus } from './pets.schema.js';

/**
 * A pet's vaccinationStatus is derived from its vaccination records, never stored.
 * No vaccination records exist until the vaccinations module lands, so every pet is 'No records';
 * that module replaces this lookup with one over its table.
 */
export async function vaccinationStatuses(_db: Executor, petIds: readonly string[]): Promise<Map<string, VaccinationStatus>> {
  return new Map(petIds.map((id) => [id, 'No records' as const]));
}
