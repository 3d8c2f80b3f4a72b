import test from 'ava';
import { DateTime } from 'luxon';
import { addDays } from '../../src/calendar-dates.js';
import { bucketsOf, startOfDay, windowRows } from '../../src/modules/analytics/metric-windows.js';
import { prng } from '../helpers/prng.js';

/** What a local midnight was before the integer arithmetic: luxon, every day. */
const luxonMidnight = (date: string, zone: string): string => new Date(DateTime.fromISO(date, { zone }).toMillis()).toISOString();

// The sandbox's zones (DST north and south), non-hour offsets with and without DST, a 30-minute DST
// (Lord Howe), zones whose transitions happen at midnight (Santiago, Havana, Beirut, Asuncion) or that
// skipped a whole day (Apia, 2011-12-30), with DST suspended for Ramadan (Casablanca) or transitions
// at odd dates (Gaza), and UTC.
const zones = [
  'America/New_York',
  'Europe/London',
  'Australia/Sydney',
  'Asia/Kolkata',
  'Australia/Adelaide',
  'Asia/Kathmandu',
  'Australia/Lord_Howe',
  'America/St_Johns',
  'America/Santiago',
  'America/Havana',
  'Asia/Beirut',
  'America/Asuncion',
  'Pacific/Apia',
  'Africa/Casablanca',
  'Asia/Gaza',
  'UTC',
];

test('local midnights equal luxon’s on every day of 2010-2031, across DST transitions and non-hour offsets', (t) => {
  for (const zone of zones) {
    let mismatches = 0;
    for (let date = '2010-01-01'; date <= '2031-12-31'; date = addDays(date, 1)) {
      const expected = luxonMidnight(date, zone);
      const actual = startOfDay(date, zone);
      if (actual !== expected && mismatches++ < 3) t.fail(`${zone} ${date}: ${actual}, luxon ${expected}`);
    }
    t.is(mismatches, 0, zone);
  }
});

test('the midnights around known transitions', (t) => {
  // New York springs forward at 02:00: that day still starts at 05:00Z, the next at 04:00Z.
  t.is(startOfDay('2026-03-08', 'America/New_York'), '2026-03-08T05:00:00.000Z');
  t.is(startOfDay('2026-03-09', 'America/New_York'), '2026-03-09T04:00:00.000Z');
  // London: BST from 29 March 2026.
  t.is(startOfDay('2026-03-29', 'Europe/London'), '2026-03-29T00:00:00.000Z');
  t.is(startOfDay('2026-03-30', 'Europe/London'), '2026-03-29T23:00:00.000Z');
  // Sydney leaves DST on 5 April 2026 (+11 → +10).
  t.is(startOfDay('2026-04-05', 'Australia/Sydney'), '2026-04-04T13:00:00.000Z');
  t.is(startOfDay('2026-04-06', 'Australia/Sydney'), '2026-04-05T14:00:00.000Z');
  // Kolkata +05:30, Adelaide +10:30 in summer and +09:30 in winter.
  t.is(startOfDay('2026-07-01', 'Asia/Kolkata'), '2026-06-30T18:30:00.000Z');
  t.is(startOfDay('2026-01-15', 'Australia/Adelaide'), '2026-01-14T13:30:00.000Z');
  t.is(startOfDay('2026-07-15', 'Australia/Adelaide'), '2026-07-14T14:30:00.000Z');
  // Santiago's midnight skipped on 2026-09-06 (DST from 24:00): luxon's first hour that exists.
  t.is(startOfDay('2026-09-06', 'America/Santiago'), luxonMidnight('2026-09-06', 'America/Santiago'));
});

test('windows of a year by day equal luxon’s, location by location', (t) => {
  const locations = ['America/New_York', 'Europe/London', 'Australia/Sydney', 'Asia/Kolkata', 'Australia/Adelaide'].map((timezone, i) => ({
    id: `loc_${i}`,
    timezone,
    currency: 'USD',
  }));
  for (const interval of ['day', 'week', 'month'] as const) {
    const buckets = bucketsOf('2025-11-15', '2026-11-14', interval);
    const expected = locations.flatMap((l) =>
      buckets.map((b) => [l.id, b.bucket, luxonMidnight(b.from, l.timezone), luxonMidnight(addDays(b.to, 1), l.timezone), b.from, b.to]),
    );
    t.deepEqual(windowRows(locations, buckets), expected, interval);
  }
});

/** The buckets as they were built with addDays, date by date: the definition bucketsOf is compared with. */
function bucketsByAddDays(from: string, to: string, interval: 'day' | 'week' | 'month'): Array<{ bucket: string; from: string; to: string }> {
  const weekday = (date: string) => new Date(`${date}T00:00:00Z`).getUTCDay() || 7;
  const next = (start: string) => {
    if (interval === 'day') return addDays(start, 1);
    if (interval === 'week') return addDays(start, 7);
    const [year, month] = [Number(start.slice(0, 4)), Number(start.slice(5, 7))];
    return month === 12 ? `${String(year + 1).padStart(4, '0')}-01-01` : `${start.slice(0, 5)}${String(month + 1).padStart(2, '0')}-01`;
  };
  const first = interval === 'day' ? from : interval === 'week' ? addDays(from, 1 - weekday(from)) : `${from.slice(0, 8)}01`;
  const buckets = [];
  for (let start = first; start <= to; start = next(start)) {
    const end = addDays(next(start), -1);
    buckets.push({ bucket: start, from: start < from ? from : start, to: end > to ? to : end });
  }
  return buckets;
}

test('buckets counted in epoch days equal those built with addDays', (t) => {
  const random = prng(27);
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const cases: Array<[string, string]> = [
    ['2024-02-29', '2025-02-28'],
    ['2025-12-29', '2026-01-04'],
    ['1969-12-25', '1970-01-10'],
    ['0040-08-27', '0041-03-01'],
    ['2026-03-01', '2026-03-01'],
  ];
  for (let i = 0; i < 200; i++) {
    const from = Date.UTC(1900, 0, 1) + Math.floor(random() * 200 * 365) * 86_400_000;
    cases.push([day(from), day(from + Math.floor(random() * 729) * 86_400_000)]);
  }
  for (const [from, to] of cases)
    for (const interval of ['day', 'week', 'month'] as const)
      t.deepEqual(bucketsOf(from, to, interval), bucketsByAddDays(from, to, interval), `${from}..${to} by ${interval}`);
});
