import type { Executor, LocationsTable } from '../../db/database.js';
import type { Actor } from '../../http/actor.js';
import { missingReference } from '../../http/errors.js';
import { findLocation } from '../locations/index.js';
import { findPet } from '../pets/index.js';
import { findProvider, providersFor, type ProviderRecord } from '../providers/index.js';
import {
  appointmentsVersion,
  bookableSchedulesAt,
  minuteMs,
  readWindow,
  schedulesAt,
  searchSlots,
  toIso,
  zoneClock,
  type BookableSchedule,
  type Interval,
  type Window,
} from '../scheduling/index.js';
import { bookableType } from './appointment-types.service.js';
import { VersionedCache } from '../../db/versioned-cache.js';
import { reusableJson } from '../../http/reusable-json.js';
import type { AvailabilityInput, MatchProvidersInput, SlotOut } from './appointments.schema.js';
import type { AppointmentTypesTable } from './appointments.table.js';

/** A provider's JSON services list offers `code` when empty (every type) or when it names it. */
const offers = (services: string, code: string): boolean => services === '[]' || (JSON.parse(services) as string[]).includes(code);

export interface AvailabilityResult {
  data: SlotOut[];
  hasMore: boolean;
  nextFrom: string | null;
}

/**
 * Answers reused while nothing they depend on moved: the appointments counter (triggers on every
 * booking of any kind, by any process) is the version; the location's zone, the type's duration and
 * buffers and the schedules (weekly hours, time off, services, active providers) are read on every
 * call and are part of the key. Only a window that starts after now + notice is reused: its slots do
 * not depend on the clock (no slot is cut by the notice, and the slot grid starts at the window).
 */
const answers = new VersionedCache<AvailabilityResult>(64);

function answerKey(
  tenantId: string,
  location: Pick<LocationsTable, 'id' | 'timezone'>,
  type: AppointmentTypesTable,
  window: Window,
  limit: number,
  schedules: readonly BookableSchedule[],
): string {
  const parts = [
    tenantId,
    location.id,
    location.timezone,
    type.code,
    type.duration_minutes,
    type.buffer_before_minutes,
    type.buffer_after_minutes,
    window.from,
    window.to,
    limit,
  ];
  for (const s of schedules) parts.push(s.provider_id, s.weekly, s.time_off, s.services);
  return JSON.stringify(parts);
}

/** Bookable slots at a location for a type: providers working there, active and offering it; earliest first. */
export async function availability(db: Executor, actor: Actor, input: AvailabilityInput, now: number, noticeMinutes: number): Promise<AvailabilityResult> {
  const location = await findLocation(db, actor, input.locationId);
  if (!location) throw missingReference('locationId', 'location', input.locationId);
  const type = await bookableType(db, actor, input.type);
  if (input.providerId !== undefined && !(await findProvider(db, actor, input.providerId))) throw missingReference('providerId', 'provider', input.providerId);
  const window = readWindow(zoneClock(location.timezone), input, now, 7);
  const schedules = (await bookableSchedulesAt(db, actor, location.id, input.providerId)).filter((s) => offers(s.services, type.code));
  const limit = input.limit ?? 1000;
  const earliest = now + noticeMinutes * minuteMs;
  const reusable = input.from !== undefined && earliest <= window.from;
  // The counter is read before the rows (cachedBusyIntervals reads it again): a booking landing meanwhile only makes the next call recompute.
  const version = reusable ? await appointmentsVersion(db) : 0;
  const key = reusable ? answerKey(actor.tenantId, location, type, window, limit, schedules) : '';
  if (reusable) {
    const hit = answers.get(db, key, version);
    if (hit) return hit;
  }
  const byProvider = await searchSlots(db, { location, type, schedules, window, earliest, limitEach: limit + 1 });

  const all: Array<{ providerId: string; from: number; to: number }> = [];
  for (const [providerId, slots] of byProvider) for (const slot of slots) all.push({ providerId, from: slot.from, to: slot.to });
  all.sort((a, b) => a.from - b.from || (a.providerId < b.providerId ? -1 : a.providerId > b.providerId ? 1 : 0));
  const hasMore = all.length > limit;
  const page = hasMore ? all.slice(0, limit) : all;
  const isoOf = new Map<number, string>();
  const iso = (ms: number) => {
    let value = isoOf.get(ms);
    if (value === undefined) isoOf.set(ms, (value = toIso(ms)));
    return value;
  };
  const result: AvailabilityResult = {
    data: page.map((s) => ({ providerId: s.providerId, startsAt: iso(s.from), endsAt: iso(s.to) })),
    hasMore,
    nextFrom: hasMore ? iso(all[limit]!.from) : null,
  };
  // Reused answers are frozen and keep their JSON text (a fortnight of 20 providers is ~200 KB).
  if (reusable) answers.set(db, key, version, reusableJson(result));
  return result;
}

export interface ProviderMatch {
  provider: ProviderRecord;
  slot: Interval | null;
  reasons: string[];
}

/**
 * Providers for a pet's visit, best first: soonest free slot at the location (none → last), then
 * rating (unrated last), then name. Reasons say why in words a front desk can read out.
 */
export async function matchProviders(db: Executor, actor: Actor, input: MatchProvidersInput, now: number, noticeMinutes: number) {
  const pet = await findPet(db, actor, input.petId);
  if (!pet) throw missingReference('petId', 'pet', input.petId);
  const type = await bookableType(db, actor, input.type);
  const locationId = input.locationId ?? pet.location_id;
  const location = await findLocation(db, actor, locationId);
  if (!location) throw missingReference('locationId', 'location', locationId);
  const clock = zoneClock(location.timezone);
  const window = readWindow(clock, input, now, 14);
  const providers = await providersFor(db, actor, { locationId: location.id, service: type.code, status: 'active' });
  const schedules = await schedulesAt(
    db,
    actor,
    location.id,
    providers.map((p) => p.id),
  );
  const slots = await searchSlots(db, { location, type, schedules, window, earliest: now + noticeMinutes * minuteMs, limitEach: 1 });

  const matches: ProviderMatch[] = providers.map((provider) => ({ provider, slot: slots.get(provider.id)?.[0] ?? null, reasons: [] }));
  matches.sort(
    (a, b) =>
      (a.slot?.from ?? Number.POSITIVE_INFINITY) - (b.slot?.from ?? Number.POSITIVE_INFINITY) ||
      (b.provider.rating ?? -1) - (a.provider.rating ?? -1) ||
      a.provider.name.localeCompare(b.provider.name) ||
      (a.provider.id < b.provider.id ? -1 : 1),
  );
  const local = (ms: number) => {
    const text = new Date(ms).toLocaleString('en-GB', {
      timeZone: location.timezone,
      weekday: 'short',
      day: 'numeric',
      month: 'short',
      hour: '2-digit',
      minute: '2-digit',
    });
    return `${text} ${location.timezone}`;
  };
  const withSlots = matches.filter((m) => m.slot !== null).length;
  matches.forEach((match, index) => {
    const { provider, slot } = match;
    const services = JSON.parse(provider.services) as string[];
    match.reasons.push(`works at ${location.name}`);
    match.reasons.push(services.length === 0 ? `offers every appointment type, including ${type.code}` : `offers ${type.code}`);
    if (slot) {
      match.reasons.push(`next free ${type.code} slot ${toIso(slot.from)} (${local(slot.from)})`);
      const previous = matches[index - 1];
      if (index === 0)
        match.reasons.push(withSlots > 1 ? `soonest available of ${withSlots} providers with free slots` : 'the only provider with a free slot in the window');
      else if (previous?.slot && previous.slot.from === slot.from)
        match.reasons.push(`free as soon as ${previous.provider.name}; ordered by rating, then name`);
      else match.reasons.push(`free later than the ${index} provider${index === 1 ? '' : 's'} above`);
    } else {
      match.reasons.push(`no free slot between ${toIso(window.from)} and ${toIso(window.to)}`);
    }
    match.reasons.push(
      provider.rating === null
        ? 'not rated yet'
        : `rated ${provider.rating.toFixed(1)} from ${provider.rating_count} review${provider.rating_count === 1 ? '' : 's'}`,
    );
  });
  return { matches, petId: pet.id, type: type.code, locationId: location.id, window };
}
