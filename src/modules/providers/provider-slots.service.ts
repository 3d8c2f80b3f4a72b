import { addDays, isCalendarDate } from '../../calendar-dates.js';
import type { Executor } from '../../db/database.js';
import type { Actor, AccessFilter } from '../../http/actor.js';
import { missingReference, validationFailed } from '../../http/errors.js';
import { providersFor, schedulesOfProviders, shortestListings, type ProviderFilters, type ProviderScheduleFacts } from './providers.repository.js';
import type { ProviderAvailabilityInput } from './providers.schema.js';
import type { ListingCategory } from './providers.table.js';
import {
  cachedBusyIntervals,
  freeSlots,
  maxProviderBookingMinutes,
  minuteMs,
  readWindow,
  timeOffIntervals,
  toIso,
  weeklyOf,
  workingIntervals,
  zoneClock,
} from '../scheduling/index.js';

/**
 * Open slots of many providers across their locations, through the scheduling kernel's slot
 * engine: working hours minus time off minus busy time (appointments and bookings holding the
 * provider).
 */

/** Slot length of a provider without a matching listing (clinic staff): the appointment grid. */
export const staffSlotMinutes = 30;

/** The statuses that take bookings: what the directory lists by default and availability searches. */
export const bookableStatuses = ['approved', 'active'] as const;

interface Candidate {
  id: string;
  minutes: number;
}

export interface ProviderSlot {
  providerId: string;
  from: number;
  to: number;
}

/** Each schedule's window in its location's zone: a local date, or from/to as the appointments availability reads them. */
type WindowOf = (timezone: string) => { from: number; to: number };

/** `earliest`: the first bookable start (now plus the booking notice, as orders require it). */
async function searchProviders(
  db: Executor,
  actor: AccessFilter,
  candidates: readonly Candidate[],
  windowOf: WindowOf,
  earliest: number,
  locationId?: string,
): Promise<ProviderSlot[]> {
  if (candidates.length === 0) return [];
  const minutes = new Map(candidates.map((c) => [c.id, c.minutes]));
  const schedules = await schedulesOfProviders(db, actor, [...minutes.keys()], locationId);
  if (schedules.length === 0) return [];
  const windows = new Map<ProviderScheduleFacts, { from: number; to: number }>(schedules.map((s) => [s, windowOf(s.timezone)]));
  const spans = [...windows.values()];
  const busy = await cachedBusyIntervals(
    db,
    [...new Set(schedules.map((s) => s.provider_id))],
    Math.min(...spans.map((w) => w.from)),
    Math.max(...spans.map((w) => w.to)) + maxProviderBookingMinutes * minuteMs,
  );
  const out: ProviderSlot[] = [];
  for (const [schedule, window] of windows) {
    const durationMs = (minutes.get(schedule.provider_id) ?? staffSlotMinutes) * minuteMs;
    const reach = window.to + durationMs;
    const clock = zoneClock(schedule.timezone);
    const slots = freeSlots({
      working: workingIntervals(weeklyOf(schedule), clock, window.from, reach),
      timeOff: timeOffIntervals(schedule, window.from, reach),
      busy: busy.get(schedule.provider_id) ?? [],
      durationMs,
      bufferBeforeMs: 0,
      bufferAfterMs: 0,
      from: window.from,
      to: window.to,
      earliest,
    });
    for (const slot of slots) out.push({ providerId: schedule.provider_id, from: slot.from, to: slot.to });
  }
  return out;
}

/** Slot lengths: the requested duration, else each provider's shortest active listing (of the category), else the staff grid. */
async function candidatesOf(
  db: Executor,
  actor: AccessFilter,
  ids: readonly string[],
  durationMinutes: number | undefined,
  category: ListingCategory | undefined,
): Promise<Candidate[]> {
  if (durationMinutes !== undefined) return ids.map((id) => ({ id, minutes: durationMinutes }));
  const shortest = await shortestListings(db, actor, ids, category);
  return ids.map((id) => ({ id, minutes: shortest.get(id) ?? staffSlotMinutes }));
}

/** The providers among `ids` with at least one open slot on a local date (the directory's `availableOn`). */
export async function openOn(
  db: Executor,
  actor: AccessFilter,
  ids: readonly string[],
  date: string,
  earliest: number,
  category?: ListingCategory,
  locationId?: string,
): Promise<Set<string>> {
  if (!isCalendarDate(date)) throw validationFailed([{ field: 'availableOn', message: 'must be a real date YYYY-MM-DD' }]);
  const windowOf: WindowOf = (timezone) => {
    const clock = zoneClock(timezone);
    return { from: clock.toUtc(date, 0), to: clock.toUtc(addDays(date, 1), 0) };
  };
  const slots = await searchProviders(db, actor, await candidatesOf(db, actor, ids, undefined, category), windowOf, earliest, locationId);
  return new Set(slots.map((s) => s.providerId));
}

export interface ProviderAvailability {
  data: Array<{ providerId: string; startsAt: string; endsAt: string }>;
  hasMore: boolean;
  nextFrom: string | null;
}

/**
 * Open slots across bookable providers (approved marketplace, active staff) chosen by `category`
 * (an active listing of it) or `providerIds`, earliest first. Suspended, pending and inactive
 * providers have no open slots; their existing bookings are untouched.
 */
export async function providerAvailability(
  db: Executor,
  actor: Actor,
  input: ProviderAvailabilityInput,
  now: number,
  noticeMinutes: number,
): Promise<ProviderAvailability> {
  if (input.category === undefined && input.providerIds === undefined) {
    throw validationFailed([{ field: 'category', message: 'give category or providerIds' }]);
  }
  const ids = input.providerIds === undefined ? undefined : [...new Set(input.providerIds.split(',').map((id) => id.trim()))];
  if (ids !== undefined) {
    const bad = ids.findIndex((id) => !/^prv_[a-z0-9_]{1,60}$/.test(id));
    if (bad >= 0 || ids.length > 50) throw validationFailed([{ field: 'providerIds', message: 'a comma-separated list of up to 50 provider ids (prv_…)' }]);
  }
  const filters: ProviderFilters & { ids?: readonly string[] } = { statuses: bookableStatuses, category: input.category, locationId: input.locationId };
  if (ids !== undefined) filters.ids = ids;
  const providers = await providersFor(db, actor, filters);
  if (ids !== undefined && input.category === undefined) {
    // Naming a provider the caller cannot see is a bad reference; one that is not bookable just has no slots.
    const seen = new Set((await providersFor(db, actor, { ids })).map((p) => p.id));
    const unknown = ids.find((id) => !seen.has(id));
    if (unknown !== undefined) throw missingReference('providerIds', 'provider', unknown);
  }
  const windowOf: WindowOf = (timezone) => readWindow(zoneClock(timezone), input, now, 7);
  const candidates = await candidatesOf(
    db,
    actor,
    providers.map((p) => p.id),
    input.durationMinutes,
    input.category,
  );
  const all = await searchProviders(db, actor, candidates, windowOf, now + noticeMinutes * minuteMs, input.locationId);
  all.sort((a, b) => a.from - b.from || (a.providerId < b.providerId ? -1 : a.providerId > b.providerId ? 1 : 0));
  const limit = input.limit ?? 500;
  const hasMore = all.length > limit;
  const page = hasMore ? all.slice(0, limit) : all;
  return {
    data: page.map((s) => ({ providerId: s.providerId, startsAt: toIso(s.from), endsAt: toIso(s.to) })),
    hasMore,
    nextFrom: hasMore ? toIso(all[limit]!.from) : null,
  };
}
