import { sql } from 'kysely';
import { DateTime } from 'luxon';
import { scoped } from '../../db/access-policy.js';
import type { Executor } from '../../db/database.js';
import { inList } from '../../db/in-list.js';
import type { AccessFilter } from '../../http/actor.js';
import { localDate } from '../../calendar-dates.js';
import type { LiveCount } from './ai.schema.js';
import { computeMetricPerCurrency, petCount, type MetricName } from '../analytics/index.js';
import { wordsOf } from './knowledge-text.js';

/** Point-in-time counts the agent computes in SQL itself (DESIGN §13). */
export const liveMetrics = ['pets_total', 'appointments_today', 'boarded_tonight'] as const;
export type LiveMetric = (typeof liveMetrics)[number];

export interface ScopeLocation {
  id: string;
  name: string;
  timezone: string;
}

export interface CountIntent {
  metric: LiveMetric;
  /** Lower-case singular species (dog, cat…), or null for every pet. */
  species: string | null;
  /** The locations counted: those the question names among the scope's, else all of the scope's. */
  locations: ScopeLocation[];
}

const speciesWords: Record<string, string> = {
  dog: 'dog',
  dogs: 'dog',
  puppy: 'dog',
  puppies: 'dog',
  cat: 'cat',
  cats: 'cat',
  kitten: 'cat',
  kittens: 'cat',
  rabbit: 'rabbit',
  rabbits: 'rabbit',
  bird: 'bird',
  birds: 'bird',
  ferret: 'ferret',
  ferrets: 'ferret',
  horse: 'horse',
  horses: 'horse',
  hamster: 'hamster',
  hamsters: 'hamster',
  reptile: 'reptile',
  reptiles: 'reptile',
};

const countAsk = /\b(how many|number of|count of|total (?:number of )?|how much)\b/i;

/**
 * A deterministic intent matcher: a count question ("how many…", "number of…") about boarding
 * tonight, appointments today or pets, with an optional species word and location name. No model
 * is involved: the same question always asks for the same metric.
 */
export function matchCountIntent(question: string, scope: readonly ScopeLocation[]): CountIntent | null {
  if (!countAsk.test(question)) return null;
  const words = wordsOf(question);
  const has = (...options: string[]) => options.some((o) => words.includes(o));
  let metric: LiveMetric | null = null;
  if (has('boarded', 'boarding', 'staying', 'lodging', 'kennelled', 'overnight') || (has('tonight') && !has('appointment', 'appointments')))
    metric = 'boarded_tonight';
  else if (has('appointment', 'appointments', 'visits', 'consultations', 'bookings') && has('today')) metric = 'appointments_today';
  else if (has('pets', 'pet', 'patients', 'animals', 'registered') || words.some((w) => w in speciesWords)) metric = 'pets_total';
  if (!metric) return null;
  const speciesWord = words.find((w) => w in speciesWords);
  const lower = ` ${words.join(' ')} `;
  const named = scope.filter((l) => {
    const name = wordsOf(l.name).join(' ');
    return name !== '' && lower.includes(` ${name} `);
  });
  return { metric, species: speciesWord ? (speciesWords[speciesWord] as string) : null, locations: named.length ? named : [...scope] };
}

/** Computes the intent's count from the database as of `now`, each location in its own time zone. */
export async function computeCount(db: Executor, actor: AccessFilter, intent: CountIntent, now: number): Promise<LiveCount> {
  const asOf = new Date(now).toISOString();
  const locationIds = intent.locations.map((l) => l.id);
  const speciesNote = intent.species ? ` of species ${intent.species}` : '';
  if (locationIds.length === 0) {
    return { metric: intent.metric, value: 0, unit: 'count', asOf, locationIds, basis: { date: 'no location in scope', formula: 'nothing to count' } };
  }
  let value = 0;
  // The intent's locations are the scope's, which scopeLocations took among the caller's.
  const tenant = scoped(db, actor);
  if (intent.metric === 'pets_total') {
    // Analytics' running totals per location and species (kept by triggers), not a count of every pet.
    value = await petCount(db, actor, locationIds, intent.species);
    return {
      metric: 'pets_total',
      value,
      unit: 'count',
      asOf,
      locationIds,
      basis: {
        date: 'pets registered at asOf (point in time)',
        formula: `count of pets whose current location is in locationIds${speciesNote}`,
        ...(intent.species ? { species: intent.species } : {}),
      },
    };
  }
  if (intent.metric === 'appointments_today') {
    for (const location of intent.locations) {
      const day = DateTime.fromMillis(now, { zone: location.timezone }).startOf('day');
      const from = day.toUTC().toJSDate().toISOString();
      const to = day.plus({ days: 1 }).toUTC().toJSDate().toISOString();
      const row = await tenant
        .selectFrom('appointments')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('location_id', '=', location.id)
        .where('starts_at', '>=', from)
        .where('starts_at', '<', to)
        .where('status', 'not in', ['cancelled'])
        .executeTakeFirst();
      value += row?.n ?? 0;
    }
    return {
      metric: 'appointments_today',
      value,
      unit: 'count',
      asOf,
      locationIds,
      basis: { date: "appointment startsAt on today's date in each location's time zone", formula: 'count of appointments not cancelled (any other status)' },
    };
  }
  for (const location of intent.locations) {
    const tonight = localDate(now, location.timezone);
    // The booking joined is the stay's own.
    let query = tenant
      .selectFrom('boarding_stays as s')
      .innerJoin('bookings as b', 'b.id', 's.booking_id')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('s.location_id', '=', location.id)
      .where('b.status', 'in', ['reserved', 'checked_in'])
      .where('s.check_in_on', '<=', tonight)
      .where('s.check_out_on', '>', tonight);
    if (intent.species) query = query.where(sql`lower(s.species)`, '=', intent.species);
    value += (await query.executeTakeFirst())?.n ?? 0;
  }
  return {
    metric: 'boarded_tonight',
    value,
    unit: 'count',
    asOf,
    locationIds,
    basis: {
      date: "tonight = today's date in each location's time zone",
      formula: `count of boarding stays reserved or checked in whose nights include tonight (checkInOn <= tonight < checkOutOn)${speciesNote}`,
      ...(intent.species ? { species: intent.species } : {}),
    },
  };
}

/** The sentence that reports a count; the number is the database's, whatever phrases the rest. */
export function countSentence(count: LiveCount, intent: CountIntent): string {
  const where = intent.locations.map((l) => l.name).join(', ');
  const what = intent.species ? `${intent.species}s` : 'pets';
  switch (count.metric) {
    case 'boarded_tonight':
      return `${count.value} ${what} ${count.value === 1 ? 'is' : 'are'} boarded tonight at ${where} (as of ${count.asOf}).`;
    case 'appointments_today':
      return `${count.value} appointment${count.value === 1 ? '' : 's'} today at ${where} (as of ${count.asOf}).`;
    default:
      return `${count.value} ${what} registered at ${where} (as of ${count.asOf}).`;
  }
}

/** The locations a scope covers, as the caller sees them. */
export async function scopeLocations(db: Executor, actor: AccessFilter, ids: readonly string[] | null): Promise<ScopeLocation[]> {
  let query = scoped(db, actor).selectFrom('locations').select(['id', 'name', 'timezone']);
  if (ids !== null) query = query.where('id', 'in', inList(ids));
  return query.orderBy('id').limit(500).execute();
}

/** §14 metrics the matcher knows, each by the words that ask for it (first match wins, most specific first). */
const analyticsIntents: ReadonlyArray<{ metric: MetricName; when: (words: string[], text: string) => boolean }> = [
  { metric: 'no_show_rate', when: (_w, text) => /\bno[- ]?shows?\b/.test(text) },
  { metric: 'vaccination_compliance_rate', when: (w) => w.includes('compliance') || w.includes('compliant') },
  { metric: 'boarding_occupancy_rate', when: (w) => w.includes('occupancy') },
  {
    metric: 'invoices_open',
    when: (w) => (w.includes('invoices') || w.includes('invoice')) && (w.includes('open') || w.includes('unpaid') || w.includes('outstanding')),
  },
  { metric: 'revenue_net', when: (w) => w.includes('revenue') || w.includes('takings') || w.includes('income') },
  { metric: 'marketplace_gmv', when: (w, text) => w.includes('gmv') || /marketplace (sales|volume)/.test(text) },
  { metric: 'commission_earned', when: (w) => w.includes('commission') || w.includes('commissions') },
  {
    metric: 'grooming_completed',
    when: (w) =>
      (w.includes('grooms') || w.includes('grooming') || w.includes('groomings')) && (w.includes('completed') || w.includes('done') || w.includes('finished')),
  },
  { metric: 'new_pets', when: (_w, text) => /\bnew (pets|patients|registrations)\b/.test(text) },
  { metric: 'active_pets', when: (_w, text) => /\bactive (pets|patients)\b/.test(text) },
  {
    metric: 'appointments_by_status',
    when: (w) => (w.includes('appointments') || w.includes('appointment')) && (w.includes('status') || w.includes('statuses')),
  },
];

export interface AnalyticsIntent {
  metric: MetricName;
  /** Local dates, inclusive, in the first location's time zone. */
  from: string;
  to: string;
  locations: ScopeLocation[];
  /** True when the question named some of the scope's locations: the metric covers those only. */
  named: boolean;
  /** Words of the window as asked ("this month" when none was). */
  window: string;
}

/**
 * The analytics metric a question asks for, with its window: today, yesterday, this week (Monday
 * first), this month (the default), this year, or the last N days; the location names narrow it.
 */
export function matchAnalyticsIntent(question: string, scope: readonly ScopeLocation[], now: number): AnalyticsIntent | null {
  const words = wordsOf(question);
  const text = ` ${words.join(' ')} `;
  const found = analyticsIntents.find((i) => i.when(words, text));
  if (!found) return null;
  const named = scope.filter((l) => {
    const name = wordsOf(l.name).join(' ');
    return name !== '' && text.includes(` ${name} `);
  });
  const locations = named.length ? named : [...scope];
  const today = DateTime.fromMillis(now, { zone: locations[0]?.timezone ?? 'UTC' }).startOf('day');
  const iso = (d: DateTime) => d.toISODate() ?? '';
  let from = today.startOf('month');
  let to = today;
  let window = 'this month';
  const lastDays = /\b(?:last|past) (\d{1,3}) days\b/.exec(text);
  if (lastDays) {
    from = today.minus({ days: Math.max(1, Math.min(730, Number(lastDays[1]))) - 1 });
    window = `the last ${lastDays[1]} days`;
  } else if (text.includes(' yesterday ')) {
    from = today.minus({ days: 1 });
    to = from;
    window = 'yesterday';
  } else if (text.includes(' today ')) {
    from = today;
    window = 'today';
  } else if (text.includes(' this week ')) {
    from = today.startOf('week');
    window = 'this week';
  } else if (text.includes(' this year ')) {
    from = today.startOf('year');
    window = 'this year';
  }
  return { metric: found.metric, from: iso(from), to: iso(to), locations, named: named.length > 0, window };
}

/**
 * Runs an analytics metric through the analytics module (the same SQL as GET /v1/analytics/metrics):
 * one count, or for a money metric one per currency of the locations covered (a tenant whose
 * locations bill in USD and EUR gets both, never a 400 asking for a currency).
 */
export async function computeAnalyticsCounts(db: Executor, actor: AccessFilter, intent: AnalyticsIntent, now: number): Promise<LiveCount[]> {
  // One location: that one. Several named in the question: exactly those (all within the caller's,
  // as the scope's locations are). Otherwise every location the caller may see, which is the scope.
  const one = intent.locations.length === 1 ? intent.locations[0] : undefined;
  const access: AccessFilter = !one && intent.named ? { tenantId: actor.tenantId, locationIds: intent.locations.map((l) => l.id) } : actor;
  const metrics = await computeMetricPerCurrency(db, access, intent.metric, { from: intent.from, to: intent.to, locationId: one?.id }, now);
  return metrics.map((metric) => ({
    metric: metric.name,
    value: metric.value,
    unit: metric.unit,
    ...(metric.currency ? { currency: metric.currency } : {}),
    from: metric.from,
    to: metric.to,
    asOf: metric.asOf,
    locationIds: metric.locationIds,
    basis: metric.basis,
  }));
}

/** An amount in minor units as the currency writes it (2 decimals for USD, none for JPY, 3 for KWD). */
function moneyText(minor: number, currency: string | undefined): string {
  if (!currency) return String(minor);
  let digits = 2;
  try {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    // an unknown code keeps 2 decimals
  }
  return `${(minor / 10 ** digits).toFixed(digits)} ${currency}`;
}

/** The sentence of an analytics answer: one value, or a money metric's value in each currency. */
export function analyticsSentence(counts: readonly LiveCount[], intent: AnalyticsIntent): string {
  const where = intent.locations.map((l) => l.name).join(', ');
  const valueOf = (count: LiveCount) =>
    count.unit === 'ratio' ? `${Math.round(count.value * 1000) / 10} %` : count.unit === 'minor' ? moneyText(count.value, count.currency) : String(count.value);
  const [first] = counts;
  if (!first) return `${intent.metric.replace(/_/g, ' ')} for ${intent.window} at ${where}: nothing to count.`;
  return `${first.metric.replace(/_/g, ' ')} for ${intent.window} (${first.from} to ${first.to}) at ${where}: ${counts.map(valueOf).join(' and ')} (as of ${first.asOf}).`;
}
