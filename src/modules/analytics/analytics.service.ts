import type { Executor } from '../../db/database.js';
import { offThread } from '../../db/read-pool.js';
import type { AccessFilter } from '../../http/actor.js';
import { foundOr404, validationFailed } from '../../http/errors.js';
import type { PageRequest } from '../../http/paging.js';
import { isoAt } from '../../clock.js';
import { recordRows, scopeLocations, tallies, talliesOf, type LazyWindows, type RecordRow, type TallyRow } from './analytics.repository.js';
import { metricNames, type Interval, type Metric, type MetricName, type Series } from './analytics.schema.js';
import { metricDefinitions } from './metric-definitions.js';
import { bucketsOf, checkRange, windowRows, type Bucket, type ScopeLocation, type WindowRow } from './metric-windows.js';

/** What a metric is asked for: local dates (inclusive), optionally one location and, for money, one currency. */
export interface MetricWindow {
  from: string;
  to: string;
  locationId?: string | undefined;
  currency?: string | undefined;
}

/** Locations' default currency (DESIGN §7), for money metrics over no location at all. */
const fallbackCurrency = 'USD';

interface Evaluated {
  locations: ScopeLocation[];
  buckets: Bucket[];
  /** Tally rows by bucket. */
  byBucket: Map<string, TallyRow[]>;
}

async function requireScope(db: Executor, access: AccessFilter, locationId: string | undefined): Promise<ScopeLocation[]> {
  return foundOr404(await scopeLocations(db, access, locationId), 'location', locationId ?? '');
}

/** What a request covers, built once per call: the locations, the buckets, and their windows as the SQL reads them. */
interface Frame {
  locations: ScopeLocation[];
  buckets: Bucket[];
  windows: LazyWindows;
}

async function frameOf(db: Executor, access: AccessFilter, window: MetricWindow, interval: Interval | null): Promise<Frame> {
  checkRange(window.from, window.to);
  const locations = await requireScope(db, access, window.locationId);
  const buckets = bucketsOf(window.from, window.to, interval);
  let rows: WindowRow[] | undefined;
  const key = `${window.from}|${window.to}|${interval ?? ''}|${locations.map((l) => `${l.id}@${l.timezone}`).join(',')}`;
  return {
    locations,
    buckets,
    windows: { key, rows: () => (rows ??= windowRows(locations, buckets)), of: { locations, from: window.from, to: window.to, interval } },
  };
}

async function evaluate(db: Executor, access: AccessFilter, name: MetricName, frame: Frame): Promise<Evaluated> {
  return evaluatedOf(frame, frame.locations.length > 0 ? await tallies(db, name, access.tenantId, frame.windows) : []);
}

function evaluatedOf(frame: Frame, rows: readonly TallyRow[]): Evaluated {
  const byBucket = new Map<string, TallyRow[]>(frame.buckets.map((b) => [b.bucket, []]));
  for (const row of rows) byBucket.get(row.bucket)?.push(row);
  return { locations: frame.locations, buckets: frame.buckets, byBucket };
}

/** The currencies a money metric answers in: the one asked for, else those of the locations and of the rows found. */
function currenciesOf(evaluated: Evaluated, asked: string | undefined): string[] {
  if (asked !== undefined) return [asked];
  const found = new Set(evaluated.locations.map((l) => l.currency));
  for (const rows of evaluated.byBucket.values()) for (const row of rows) found.add(row.key);
  if (found.size === 0) found.add(fallbackCurrency);
  return [...found].sort();
}

/** The one currency of a single-valued answer; several without `currency` → 400. */
function singleCurrency(evaluated: Evaluated, asked: string | undefined): string {
  const currencies = currenciesOf(evaluated, asked);
  if (currencies.length > 1) {
    throw validationFailed([{ field: 'currency', message: `the locations covered have money in ${currencies.join(', ')}: name one` }]);
  }
  return currencies[0] ?? fallbackCurrency;
}

interface Figures {
  value: number;
  numerator?: number;
  denominator?: number;
  breakdown?: Array<{ key: string; value: number }>;
}

function figuresOf(name: MetricName, rows: readonly TallyRow[], currency: string | undefined): Figures {
  const unit = metricDefinitions[name].unit;
  if (unit === 'minor') return { value: rows.filter((r) => r.key === currency).reduce((sum, r) => sum + r.num, 0) };
  if (unit === 'ratio') {
    const numerator = rows.reduce((sum, r) => sum + r.num, 0);
    const denominator = rows.reduce((sum, r) => sum + r.den, 0);
    return { value: denominator === 0 ? 0 : numerator / denominator, numerator, denominator };
  }
  const value = rows.reduce((sum, r) => sum + r.num, 0);
  if (name !== 'appointments_by_status') return { value };
  return { value, breakdown: [...rows].sort((a, b) => a.key.localeCompare(b.key)).map((r) => ({ key: r.key, value: r.num })) };
}

const basisOf = (name: MetricName) => ({ date: metricDefinitions[name].date, formula: metricDefinitions[name].formula });

function metricOf(name: MetricName, evaluated: Evaluated, window: MetricWindow, currency: string | undefined, now: number): Metric {
  const rows = evaluated.byBucket.get(evaluated.buckets[0]?.bucket ?? '') ?? [];
  const unit = metricDefinitions[name].unit;
  return {
    name,
    ...figuresOf(name, rows, currency),
    unit,
    ...(unit === 'minor' ? { currency } : {}),
    from: window.from,
    to: window.to,
    locationIds: evaluated.locations.map((l) => l.id),
    asOf: isoAt(now),
    basis: basisOf(name),
  };
}

/**
 * One metric over [from, to] for the caller's locations (or the one named): the value with its
 * declared basis. The API's routes and other modules (the AI agent's live counts) use this.
 */
export async function computeMetric(db: Executor, access: AccessFilter, name: MetricName, window: MetricWindow, now: number): Promise<Metric> {
  const evaluated = await evaluate(db, access, name, await frameOf(db, access, window, null));
  const currency = metricDefinitions[name].unit === 'minor' ? singleCurrency(evaluated, window.currency) : undefined;
  return metricOf(name, evaluated, window, currency, now);
}

/**
 * One metric for a caller that cannot name a currency (the AI agent's live counts): a money metric
 * once per currency of the locations covered and the rows found (as the summary answers it),
 * any other metric once. Never the 400 computeMetric gives a multi-currency money metric.
 */
export async function computeMetricPerCurrency(db: Executor, access: AccessFilter, name: MetricName, window: MetricWindow, now: number): Promise<Metric[]> {
  const evaluated = await evaluate(db, access, name, await frameOf(db, access, window, null));
  if (metricDefinitions[name].unit !== 'minor') return [metricOf(name, evaluated, window, undefined, now)];
  return currenciesOf(evaluated, window.currency).map((currency) => metricOf(name, evaluated, window, currency, now));
}

/** Every metric once (a money metric once per currency of the locations and rows). */
export async function metricSummary(db: Executor, access: AccessFilter, window: MetricWindow, now: number): Promise<Metric[]> {
  const frame = await frameOf(db, access, window, null);
  const metrics: Metric[] = [];
  // no_show_rate reads the same appointments as appointments_by_status: one scan for both. The
  // others' figures in one read-pool task.
  const computed: readonly MetricName[] = metricNames.filter((name) => name !== 'no_show_rate');
  const figures = frame.locations.length > 0 ? await talliesOf(db, computed, access.tenantId, frame.windows) : computed.map(() => []);
  let appointments: Evaluated | undefined;
  for (const name of metricNames) {
    const index = computed.indexOf(name);
    const evaluated = index < 0 ? noShowsOf(appointments!) : evaluatedOf(frame, figures[index]!);
    if (name === 'appointments_by_status') appointments = evaluated;
    if (metricDefinitions[name].unit !== 'minor') metrics.push(metricOf(name, evaluated, window, undefined, now));
    else for (const currency of currenciesOf(evaluated, undefined)) metrics.push(metricOf(name, evaluated, window, currency, now));
  }
  return metrics;
}

/** no_show_rate's figures from appointments_by_status's: no_show over completed + no_show, per bucket. */
function noShowsOf(byStatus: Evaluated): Evaluated {
  const byBucket = new Map<string, TallyRow[]>();
  for (const [bucket, rows] of byStatus.byBucket) {
    const count = (status: string) => rows.find((r) => r.key === status)?.num ?? 0;
    byBucket.set(bucket, [{ bucket, key: '', num: count('no_show'), den: count('no_show') + count('completed') }]);
  }
  return { ...byStatus, byBucket };
}

/** A metric per bucket (day, week or month in each location's calendar): every bucket present, an empty one 0. */
export async function metricSeries(
  db: Executor,
  access: AccessFilter,
  name: MetricName,
  window: MetricWindow,
  interval: Interval,
  now: number,
): Promise<Series> {
  const evaluated = await evaluate(db, access, name, await frameOf(db, access, window, interval));
  const unit = metricDefinitions[name].unit;
  const currency = unit === 'minor' ? singleCurrency(evaluated, window.currency) : undefined;
  return {
    name,
    unit,
    ...(unit === 'minor' ? { currency } : {}),
    interval,
    from: window.from,
    to: window.to,
    locationIds: evaluated.locations.map((l) => l.id),
    asOf: isoAt(now),
    basis: basisOf(name),
    points: evaluated.buckets.map((b) => {
      const { value, numerator, denominator } = figuresOf(name, evaluated.byBucket.get(b.bucket) ?? [], currency);
      return { bucket: b.bucket, from: b.from, to: b.to, value, ...(unit === 'ratio' ? { numerator, denominator } : {}) };
    }),
  };
}

/** A page of the rows behind the metric's value over [from, to]; money rows in one currency. */
export async function metricRecords(db: Executor, access: AccessFilter, name: MetricName, window: MetricWindow, page: PageRequest): Promise<RecordRow[]> {
  const frame = await frameOf(db, access, window, null);
  if (frame.locations.length === 0) return [];
  const evaluated = await evaluate(db, access, name, frame);
  const currency = metricDefinitions[name].unit === 'minor' ? singleCurrency(evaluated, window.currency) : undefined;
  // A page may walk or sort a year of rows: on the read pool.
  return recordRows(offThread(db), name, access.tenantId, frame.windows.rows(), page, currency);
}
