import { DateTime } from 'luxon';
import { addDays, dayMs, localDate } from '../../calendar-dates.js';
import { isoAt } from '../../clock.js';
import type { Medication } from './care-plans.schema.js';

/** Days of missed doses one plan looks back over: a stay is at most 60 nights, overstays a little more. */
const maxLookbackDays = 120;

export const medicationKey = (name: string): string => name.trim().toLowerCase();

/**
 * The instant of a plan time (HH:MM) on a local date at a location. A time a DST change skips is
 * moved forward by luxon, and an ambiguous one takes its first occurrence: one instant per dose,
 * the same for the overdue job and the dose log.
 */
export const doseInstant = (date: string, time: string, zone: string): number => DateTime.fromISO(`${date}T${time}`, { zone }).toMillis();

/** The doses due in [from, to]: each medication time on each local date, as UTC instants. */
export function scheduledDoses(
  medications: readonly Pick<Medication, 'name' | 'times'>[],
  zone: string,
  from: number,
  to: number,
): Array<{ medication: string; scheduledFor: string }> {
  const out: Array<{ medication: string; scheduledFor: string }> = [];
  const last = localDate(to, zone);
  let date = localDate(Math.max(from, to - maxLookbackDays * dayMs), zone);
  for (let i = 0; i <= maxLookbackDays + 1 && date <= last; i++, date = addDays(date, 1)) {
    for (const medication of medications) {
      for (const time of medication.times) {
        const at = doseInstant(date, time, zone);
        if (at >= from && at <= to) out.push({ medication: medication.name, scheduledFor: isoAt(at) });
      }
    }
  }
  return out;
}

/**
 * Whether `at` is a dose of the medication on a day of the stay: one of its times on a local date
 * from the check-in day up to the last night (check-out day exclusive) or, for a stay still in house
 * past its check-out day, up to today (check-out bills those nights too). `today` is the local date
 * now at the location.
 */
export function isScheduledDose(
  medication: Pick<Medication, 'times'>,
  zone: string,
  stay: { checkInOn: string; checkOutOn: string },
  today: string,
  at: number,
): boolean {
  if (!Number.isFinite(at)) return false;
  const date = localDate(at, zone);
  if (date < stay.checkInOn || (date >= stay.checkOutOn && date > today)) return false;
  return medication.times.some((time) => doseInstant(date, time, zone) === at);
}
