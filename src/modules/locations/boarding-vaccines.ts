import type { LocationsTable } from '../../db/database.js';
import type { BoardingRequiredVaccinesValue } from './locations.schema.js';
import './locations.table.js';

/** The stored form: names trimmed, each vaccine once per species (case-insensitively), species without vaccines left out. */
export function storedRequiredVaccines(value: BoardingRequiredVaccinesValue): string {
  const out: Record<string, string[]> = {};
  for (const [species, names] of Object.entries(value)) {
    const seen = new Set<string>();
    const kept: string[] = [];
    for (const name of names ?? []) {
      const trimmed = name.trim();
      if (seen.has(trimmed.toLowerCase())) continue;
      seen.add(trimmed.toLowerCase());
      kept.push(trimmed);
    }
    if (kept.length > 0) out[species] = kept;
  }
  return JSON.stringify(out);
}

/** What a location requires of boarded pets, per species (empty when nothing is set). */
export function requiredVaccinesOf(row: Pick<LocationsTable, 'boarding_required_vaccines'>): BoardingRequiredVaccinesValue {
  return JSON.parse(row.boarding_required_vaccines ?? '{}') as BoardingRequiredVaccinesValue;
}
