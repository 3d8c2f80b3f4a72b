import type { BoardingRoomsTable } from './boarding.table.js';
import { roomSpecies } from './rooms.presenter.js';

/** Why a room type cannot take a pet at all, or on which nights it is full. */
export type Vacancy = { ok: true } | { ok: false; reason: 'room_type_not_offered' | 'species_not_accepted' | 'full'; fullNights: string[] };

/**
 * Can one more pet of `species` stay every night? Capacity per night is the sum of the capacities
 * of the room type's active rooms that take the species (DESIGN §10). Rooms may take several
 * species, so every set S of species that contains the new pet's is checked (Hall's condition):
 * the pets of the species in S must fit in the rooms that take any of them. For S = {species}
 * that is exactly the DESIGN rule; the larger sets stop a cat from taking the last place of a
 * shared room that the dogs already booked.
 */
export function checkVacancy(
  rooms: readonly BoardingRoomsTable[],
  roomTypeRooms: number,
  species: string,
  taken: ReadonlyArray<{ night: string; species: string; reserved: number; checked_in: number }>,
  nights: readonly string[],
): Vacancy {
  if (roomTypeRooms === 0) return { ok: false, reason: 'room_type_not_offered', fullNights: [] };
  const roomSets = rooms.map((r) => ({ capacity: r.capacity, species: new Set(roomSpecies(r)) }));
  if (!roomSets.some((r) => r.species.has(species))) return { ok: false, reason: 'species_not_accepted', fullNights: [] };

  const byNight = new Map<string, Map<string, number>>();
  for (const row of taken) {
    const count = row.reserved + row.checked_in;
    if (count === 0) continue;
    let perSpecies = byNight.get(row.night);
    if (!perSpecies) byNight.set(row.night, (perSpecies = new Map()));
    perSpecies.set(row.species, (perSpecies.get(row.species) ?? 0) + count);
  }
  const fullNights: string[] = [];
  for (const night of nights) {
    const demand = new Map(byNight.get(night) ?? []);
    demand.set(species, (demand.get(species) ?? 0) + 1);
    const others = [...demand.keys()].filter((s) => s !== species).slice(0, 12);
    for (let mask = 0; mask < 1 << others.length; mask++) {
      const set = new Set([species, ...others.filter((_, i) => mask & (1 << i))]);
      let need = 0;
      for (const s of set) need += demand.get(s) ?? 0;
      let places = 0;
      for (const room of roomSets) if ([...set].some((s) => room.species.has(s))) places += room.capacity;
      if (need > places) {
        fullNights.push(night);
        break;
      }
    }
  }
  return fullNights.length === 0 ? { ok: true } : { ok: false, reason: 'full', fullNights };
}
