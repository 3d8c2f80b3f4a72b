/**
 * The slot engine: pure functions over UTC millisecond intervals (half-open [from, to)).
 * Working hours come from a weekly pattern in the location's zone; time off, existing
 * appointments (with their buffers) and the minimum notice are taken away.
 */
import { minuteMs, type ZoneClock } from './local-time.js';

export interface Interval {
  from: number;
  to: number;
}

/** A weekly working window in local minutes since midnight (end may be 1440 = 24:00). */
export interface WeeklyWindow {
  weekday: number;
  start: number;
  end: number;
}

/** Sorts and merges overlapping or touching intervals. */
export function mergeIntervals(list: readonly Interval[]): Interval[] {
  const sorted = [...list].filter((i) => i.to > i.from).sort((a, b) => a.from - b.from);
  const out: Interval[] = [];
  for (const next of sorted) {
    const last = out[out.length - 1];
    if (last && next.from <= last.to) last.to = Math.max(last.to, next.to);
    else out.push({ ...next });
  }
  return out;
}

/** The working intervals touching [from, to): each local day's windows, converted through the zone (DST-aware), merged. */
export function workingIntervals(weekly: readonly WeeklyWindow[], clock: ZoneClock, from: number, to: number): Interval[] {
  if (weekly.length === 0) return [];
  const byWeekday = new Map<number, WeeklyWindow[]>();
  for (const w of weekly) byWeekday.set(w.weekday, [...(byWeekday.get(w.weekday) ?? []), w]);
  const out: Interval[] = [];
  // A day's windows may start before `from` and still reach into it: begin one day early.
  for (const { date, weekday } of clock.dates(from - 86_400_000, to)) {
    for (const w of byWeekday.get(weekday) ?? []) {
      const interval = { from: clock.toUtc(date, w.start), to: clock.toUtc(date, w.end) };
      if (interval.to > from && interval.from < to) out.push(interval);
    }
  }
  return mergeIntervals(out);
}

/** True when one interval of `merged` contains all of [from, to). */
export const covers = (merged: readonly Interval[], from: number, to: number): boolean => merged.some((i) => i.from <= from && i.to >= to);

/** True when [from, to) overlaps any interval. */
export const overlapsAny = (list: readonly Interval[], from: number, to: number): boolean => list.some((i) => i.from < to && i.to > from);

export interface SlotQuery {
  /** Merged working intervals. */
  working: readonly Interval[];
  /** Merged time off: the visit itself may not touch it. */
  timeOff: readonly Interval[];
  /** Merged blocked intervals of existing appointments (their buffers included). */
  busy: readonly Interval[];
  durationMs: number;
  bufferBeforeMs: number;
  bufferAfterMs: number;
  /** Slots start in [from, to). */
  from: number;
  to: number;
  /** No slot starts before this (now + minimum notice). */
  earliest: number;
  /** Stop after this many slots. */
  limit?: number;
}

const ceilMinute = (ms: number): number => Math.ceil(ms / minuteMs) * minuteMs;

/**
 * Free slots, earliest first. Inside a working interval slots step by the duration from its start;
 * when a candidate hits time off or a booked appointment, the next candidate starts right after it
 * (plus this type's buffer before), then steps on from there. One pass with two cursors: O(slots + busy).
 */
export function freeSlots(q: SlotQuery): Interval[] {
  const out: Interval[] = [];
  const limit = q.limit ?? Number.POSITIVE_INFINITY;
  const lowest = Math.max(q.from, q.earliest);
  let off = 0;
  let busy = 0;
  for (const w of q.working) {
    if (w.to <= lowest || w.from >= q.to) continue;
    let start = w.from;
    // Skip to the first grid point not before `lowest`, keeping the grid of the working interval.
    if (start < lowest) start += Math.ceil((lowest - start) / q.durationMs) * q.durationMs;
    while (start < q.to && start + q.durationMs <= w.to) {
      const end = start + q.durationMs;
      while (off < q.timeOff.length && q.timeOff[off]!.to <= start) off++;
      const away = q.timeOff[off];
      if (away && away.from < end) {
        start = ceilMinute(away.to);
        continue;
      }
      const blockedFrom = start - q.bufferBeforeMs;
      while (busy < q.busy.length && q.busy[busy]!.to <= blockedFrom) busy++;
      const booked = q.busy[busy];
      if (booked && booked.from < end + q.bufferAfterMs) {
        start = ceilMinute(booked.to + q.bufferBeforeMs);
        continue;
      }
      out.push({ from: start, to: end });
      if (out.length >= limit) return out;
      start = end;
    }
  }
  return out;
}
