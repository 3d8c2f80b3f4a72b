import type { Static } from '@sinclair/typebox';
import type { Executor } from '../../db/database.js';
import type { Actor } from '../../http/actor.js';
import { foundOr404, missingReference } from '../../http/errors.js';
import {
  dayMs,
  minuteMs,
  mergeIntervals,
  readWindow,
  schedulesAt,
  searchSlots,
  timeOffIntervals,
  toIso,
  weeklyOf,
  workingIntervals,
  zoneClock,
  type Interval,
} from '../scheduling/index.js';
import { findLocation } from '../locations/index.js';
import { providersFor } from '../providers/index.js';
import type { GroomingAvailabilityInput, GroomingAvailabilitySchema, availabilityReasons } from './grooming.schema.js';
import { checkPackageAt, maxLeadDays, type GroomingSettings } from './grooming-appointments.service.js';
import { findPackage } from './grooming.repository.js';
import { packageDuration } from './packages.service.js';
import { offersPackage } from './stylists.service.js';

type Reason = (typeof availabilityReasons)[number];

/** True when some working time of [from, to) is not taken by time off. */
function worksIn(working: readonly Interval[], timeOff: readonly Interval[], from: number, to: number): boolean {
  for (const w of working) {
    const start = Math.max(w.from, from);
    const end = Math.min(w.to, to);
    if (end <= start) continue;
    const off = mergeIntervals(timeOff.filter((o) => o.from < end && o.to > start));
    if (!off.some((o) => o.from <= start && o.to >= end)) return true;
  }
  return false;
}

/**
 * Free grooming slots of the package's duration for the size, per stylist (active groomers working at
 * the location who offer the package), through appointments' slot engine and the one busy time
 * (appointments and grooms alike), and per local day the count and, for an empty day, why.
 */
export async function groomingAvailability(
  db: Executor,
  actor: Actor,
  input: GroomingAvailabilityInput,
  now: number,
  settings: GroomingSettings,
): Promise<Static<typeof GroomingAvailabilitySchema>> {
  const location = foundOr404(await findLocation(db, actor, input.locationId), 'location', input.locationId);
  const pkg = await findPackage(db, actor, input.packageId);
  if (!pkg) throw missingReference('packageId', 'package', input.packageId);
  checkPackageAt(pkg, location.id);
  const clock = zoneClock(location.timezone);
  const window = readWindow(clock, input, now, 7);
  const duration = packageDuration(pkg, input.size);
  const stylists = (await providersFor(db, actor, { locationId: location.id, kind: 'groomer', status: 'active' })).filter((p) => offersPackage(p, pkg));
  const schedules = await schedulesAt(
    db,
    actor,
    location.id,
    stylists.map((s) => s.id),
  );
  const earliest = now + settings.bookingMinNoticeMinutes * minuteMs;
  const latest = now + maxLeadDays * dayMs;
  const slots = await searchSlots(db, {
    location,
    type: { duration_minutes: duration, buffer_before_minutes: 0, buffer_after_minutes: 0 },
    schedules,
    window: { from: window.from, to: Math.min(window.to, latest) },
    earliest,
  });

  const data: Array<{ stylistId: string; from: number; to: number }> = [];
  for (const [stylistId, list] of slots) for (const slot of list) data.push({ stylistId, from: slot.from, to: slot.to });
  data.sort((a, b) => a.from - b.from || (a.stylistId < b.stylistId ? -1 : 1));
  const perDay = new Map<string, number>();
  for (const slot of data) {
    const date = clock.localDate(slot.from);
    perDay.set(date, (perDay.get(date) ?? 0) + 1);
  }

  const days = clock.dates(window.from, window.to - 1).map(({ date }) => {
    const count = perDay.get(date) ?? 0;
    const reasons: Reason[] = [];
    if (count === 0) {
      const dayStart = Math.max(clock.toUtc(date, 0), window.from);
      const dayEnd = Math.min(clock.toUtc(date, 1440), window.to);
      const working = schedules.filter((s) =>
        worksIn(workingIntervals(weeklyOf(s), clock, dayStart, dayEnd), timeOffIntervals(s, dayStart, dayEnd), dayStart, dayEnd),
      );
      const bookable = Math.max(dayStart, earliest) < Math.min(dayEnd, latest);
      const workingInWindow =
        bookable &&
        working.some((s) =>
          worksIn(
            workingIntervals(weeklyOf(s), clock, dayStart, dayEnd),
            timeOffIntervals(s, dayStart, dayEnd),
            Math.max(dayStart, earliest),
            Math.min(dayEnd, latest),
          ),
        );
      if (!bookable) reasons.push('outside_booking_window');
      else if (working.length === 0) reasons.push('no_stylist_working');
      else if (!workingInWindow) reasons.push('outside_booking_window');
      else reasons.push('fully_booked');
    }
    return { date, slots: count, reasons };
  });
  return { data: data.map((s) => ({ stylistId: s.stylistId, startsAt: toIso(s.from), endsAt: toIso(s.to) })), days };
}
