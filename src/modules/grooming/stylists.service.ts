import type { Executor, LocationsTable } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import {
  busyIntervals,
  covers,
  findSchedule,
  overlapsAny,
  timeOffIntervals,
  toIso,
  weeklyOf,
  workingIntervals,
  zoneClock,
  dayMs,
} from '../scheduling/index.js';
import { providersFor, providerServices, type ProviderRecord } from '../providers/index.js';
import { groomsPerStylist, lastStylistOf } from './grooming.repository.js';
import { packageServices } from './packages.service.js';
import type { GroomingPackagesTable } from './grooming.table.js';

/**
 * A groomer offers a package when its services list is empty (everything), names `grooming`
 * (every grooming package), or names every service of the package.
 */
export function offersPackage(stylist: Pick<ProviderRecord, 'services'>, pkg: Pick<GroomingPackagesTable, 'services'>): boolean {
  const offered = providerServices(stylist);
  if (offered.length === 0 || offered.includes('grooming')) return true;
  return packageServices(pkg).every((service) => offered.includes(service));
}

export interface GroomSlot {
  location: Pick<LocationsTable, 'id' | 'name' | 'timezone'>;
  pkg: GroomingPackagesTable;
  start: number;
  end: number;
  /** The booking being (re)assigned: its own time does not count against it. */
  exceptId?: string;
}

/** Why this stylist cannot take the groom as a sentence, or null when they can: kind, status, location, service, hours, time off, busy time (appointments and grooms). */
export async function stylistProblem(
  db: Executor,
  actor: AccessFilter,
  stylist: ProviderRecord,
  slot: GroomSlot,
): Promise<{ kind: 'input' | 'time'; detail: string } | null> {
  const { location, pkg, start, end } = slot;
  if (stylist.kind !== 'groomer') return { kind: 'input', detail: `provider ${stylist.id} is a ${stylist.kind}, not a groomer` };
  if (stylist.status !== 'active') return { kind: 'input', detail: `stylist ${stylist.id} is ${stylist.status} and takes no new bookings` };
  if (!stylist.locationIds.includes(location.id)) return { kind: 'input', detail: `stylist ${stylist.id} does not work at location ${location.id}` };
  if (!offersPackage(stylist, pkg))
    return { kind: 'input', detail: `stylist ${stylist.id} does not offer the services of package ${pkg.id} (${packageServices(pkg).join(', ')})` };
  const schedule = await findSchedule(db, actor, stylist.id, location.id);
  if (!schedule || !covers(workingIntervals(weeklyOf(schedule), zoneClock(location.timezone), start - dayMs, end + dayMs), start, end)) {
    return { kind: 'time', detail: `${toIso(start)}–${toIso(end)} is outside ${stylist.name}'s working hours at ${location.name} (${location.timezone})` };
  }
  if (overlapsAny(timeOffIntervals(schedule, start, end), start, end))
    return { kind: 'time', detail: `${stylist.name} is off at ${toIso(start)}–${toIso(end)}` };
  const busy = (await busyIntervals(db, [stylist.id], start, end, slot.exceptId)).get(stylist.id) ?? [];
  if (busy.length > 0) return { kind: 'time', detail: `${stylist.name} already has an appointment or a groom at ${toIso(start)}–${toIso(end)}` };
  return null;
}

/**
 * The assignment rule (DESIGN §11): the pet's last stylist when free, else the free stylist with
 * the fewest grooms that local day (then by id). Null when nobody is free. Runs inside the write
 * transaction, so the pick and the booking see the same calendar.
 */
export async function pickStylist(db: Executor, actor: AccessFilter, petId: string, slot: GroomSlot): Promise<ProviderRecord | null> {
  const candidates = (await providersFor(db, actor, { locationId: slot.location.id, kind: 'groomer', status: 'active' })).filter((p) =>
    offersPackage(p, slot.pkg),
  );
  if (candidates.length === 0) return null;
  const last = await lastStylistOf(db, actor, petId, slot.exceptId ?? '');
  const previous = candidates.find((c) => c.id === last);
  if (previous && !(await stylistProblem(db, actor, previous, slot))) return previous;
  const clock = zoneClock(slot.location.timezone);
  const date = clock.localDate(slot.start);
  const counts = await groomsPerStylist(
    db,
    actor,
    candidates.map((c) => c.id),
    toIso(clock.toUtc(date, 0)),
    toIso(clock.toUtc(date, 1440)),
  );
  const ordered = candidates.filter((c) => c !== previous).sort((a, b) => (counts.get(a.id) ?? 0) - (counts.get(b.id) ?? 0) || (a.id < b.id ? -1 : 1));
  for (const candidate of ordered) if (!(await stylistProblem(db, actor, candidate, slot))) return candidate;
  return null;
}
