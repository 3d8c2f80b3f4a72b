/**
 * Builds the scale bench's database (issue 27): a clinic group's five years of history and its next
 * 60 days, through the real schema. The app opens the data dir itself (migrations, tenant and admin
 * bootstrap, as at any start); the rows then go in through its live SQLite connection with prepared
 * statements, a few days per transaction, with every trigger firing as on the API's writes.
 *
 * Deterministic: each day's rows come from a PRNG seeded by (seed, day, stream), and times are
 * counted from an anchor date stored at the first run. Resumable: the next day to build is kept in
 * `scale_bench_progress` and committed with that day's rows, so a stopped build continues where it
 * stopped and ends with the same rows. Only the tenant's id, the signing and data keys (created by
 * the app) and the AES-GCM tags of the sealed calendar tokens differ between two builds.
 */
import { createCipheriv, createSecretKey, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { setImmediate } from 'node:timers/promises';
import { DateTime } from 'luxon';
import type SQLite from 'better-sqlite3';
import { dataKeyFile } from '../../../src/db/secret-box.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { idAt, Random } from './scale-random.js';

const dayMs = 86_400_000;
/** Days of history before the anchor (five years), and days booked ahead of it. */
export const historyDays = 5 * 365;
export const aheadDays = 60;
const totalDays = historyDays + aheadDays;
/** Days per transaction. */
const daysPerCommit = 5;

/** The shape at scale 1 (issue 27): rows of each kind. */
export const fullShape = {
  parents: 400_000,
  pets: 1_000_000,
  appointments: 10_000_000,
  vaccinations: 3_000_000,
  invoices: 2_000_000,
  stays: 300_000,
  orders: 100_000,
} as const;

export type Shape = { [K in keyof typeof fullShape]: number };

export const shapeAt = (scale: number): Shape =>
  Object.fromEntries(Object.entries(fullShape).map(([k, v]) => [k, Math.max(1, Math.round(v * scale))])) as Shape;

const zones = [
  'America/New_York',
  'America/New_York',
  'America/New_York',
  'America/New_York',
  'America/Chicago',
  'America/Chicago',
  'America/Chicago',
  'America/Denver',
  'America/Denver',
  'America/Los_Angeles',
  'America/Los_Angeles',
  'America/Los_Angeles',
] as const;
const cities = ['Brooklyn', 'Queens', 'Newark', 'Hoboken', 'Evanston', 'Oak Park', 'Naperville', 'Boulder', 'Aurora', 'Oakland', 'Pasadena', 'San Jose'];
/** Vets per location at scale 1: 10M appointments over 1,885 days fill about two thirds of their 40-minute slots. */
const vetsPerLocationAtFull = 50;
const roomsPerLocation = 16;
const roomTypes = ['standard', 'deluxe', 'suite', 'cattery'] as const;
const marketplaceProvidersAtFull = 200;
const categories = ['walking', 'sitting', 'daycare', 'training', 'grooming', 'transport'] as const;
const dogBreeds = ['Beagle', 'Labrador Retriever', 'German Shepherd', 'Poodle', 'Bulldog', 'Dachshund', 'Boxer', 'Mixed', 'Golden Retriever', 'Shih Tzu'];
const catBreeds = ['Domestic Shorthair', 'Maine Coon', 'Siamese', 'Persian', 'Ragdoll', 'Mixed'];
const names = ['Rex', 'Bella', 'Max', 'Luna', 'Charlie', 'Lucy', 'Cooper', 'Daisy', 'Milo', 'Molly', 'Oliver', 'Coco', 'Teddy', 'Nala', 'Leo', 'Rosie'];
const surnames = ['Smith', 'Garcia', 'Johnson', 'Lee', 'Brown', 'Martinez', 'Davis', 'Lopez', 'Wilson', 'Nguyen', 'Patel', 'Kim', 'Clark', 'Hall'];
const dogVaccines = ['Rabies', 'DHPP', 'Leptospirosis', 'Bordetella'];
const catVaccines = ['Rabies', 'FVRCP', 'FeLV'];
/** 8:00 to 18:00 local in 40-minute steps: a 30-minute consultation and its 10-minute buffer per step. */
const slotsPerDay = 15;
const slotMinutes = 40;
const visitMinutes = 30;
const bufferMinutes = 10;

/** Progress is kept in the bench database itself, beside the rows it counts. */
const progressTable = 'scale_bench_progress';

export interface BuildOptions {
  dataDir: string;
  scale: number;
  seed: number;
  /** Called with (days done, total days, rows so far) as the build goes. */
  onProgress?: (done: number, total: number, rows: number) => void;
  log?: (line: string) => void;
}

export interface BuiltDatabase {
  anchor: string;
  scale: number;
  rows: Record<string, number>;
  buildSeconds: number;
  resumedFromDay: number;
}

interface Location {
  id: string;
  zone: string;
  tax: number;
  prefix: string;
  vets: string[];
}

interface Config {
  anchor: string;
  scale: number;
  seed: number;
  adminClientId: string;
  locations: Location[];
  marketplace: Array<{ id: string; listings: Array<{ id: string; name: string; category: string; amount: number }> }>;
}

/** Local midnight (ms UTC) of day `d` at each location, computed once per (location, day). */
class LocalDays {
  private readonly cache = new Map<number, number[]>();
  constructor(
    private readonly anchorMs: number,
    private readonly zones: string[],
  ) {}
  date(d: number): string {
    return new Date(this.anchorMs + (d - historyDays) * dayMs).toISOString().slice(0, 10);
  }
  midnight(location: number, d: number): number {
    let row = this.cache.get(d);
    if (!row) {
      const date = this.date(d);
      row = this.zones.map((zone) => DateTime.fromISO(date, { zone }).toMillis());
      this.cache.set(d, row);
      if (this.cache.size > 200) this.cache.delete(this.cache.keys().next().value!);
    }
    return row[location]!;
  }
  /** Day index of a date string. */
  index(date: string): number {
    return Math.round((Date.parse(`${date}T00:00:00Z`) - this.anchorMs) / dayMs) + historyDays;
  }
  weekday(d: number): number {
    return new Date(this.anchorMs + (d - historyDays) * dayMs).getUTCDay();
  }
}

/** How many of `total` fall on day `d` of `days` (0-based): spread evenly, summing to `total` exactly. */
const shareOf = (total: number, d: number, days: number) => Math.floor(((d + 1) * total) / days) - Math.floor((d * total) / days);

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Opens (and migrates) the data dir with the app, then builds or resumes the database of `scale`.
 * Returns when the database is complete; a complete one is left as it is.
 */
export async function buildScaleDatabase(options: BuildOptions): Promise<BuiltDatabase> {
  const log = options.log ?? (() => undefined);
  const started = Date.now();
  const t = await startTestApp({ dataDir: options.dataDir, jobs: false });
  try {
    const sqlite = t.stores.get('live').sqlite;
    sqlite.exec(`CREATE TABLE IF NOT EXISTS ${progressTable} (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
    const getProgress = (key: string) => (sqlite.prepare(`SELECT value FROM ${progressTable} WHERE key = ?`).get(key) as { value: string } | undefined)?.value;
    const setProgress = sqlite.prepare(`INSERT INTO ${progressTable} (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`);
    let config: Config;
    const stored = getProgress('config');
    if (stored) {
      config = JSON.parse(stored) as Config;
      if (config.scale !== options.scale || config.seed !== options.seed)
        throw new Error(
          `${options.dataDir} holds a scale ${config.scale} (seed ${config.seed}) database, not scale ${options.scale} (seed ${options.seed}): use another dir`,
        );
    } else {
      const pets = (sqlite.prepare('SELECT count(*) AS n FROM pets').get() as { n: number }).n;
      if (pets > 0) throw new Error(`${options.dataDir} has pets but no scale bench progress: not a scale bench database`);
      config = createConfig(t, sqlite, options);
      sqlite.transaction(() => {
        insertConfig(t, sqlite, config);
        setProgress.run('config', JSON.stringify(config));
        setProgress.run('next_day', '0');
      })();
    }
    const rows = JSON.parse(getProgress('rows') ?? '{}') as Record<string, number>;
    const nextDay = Number(getProgress('next_day') ?? '0');
    if (getProgress('done') === 'yes') return { anchor: config.anchor, scale: config.scale, rows, buildSeconds: 0, resumedFromDay: totalDays };
    log(
      nextDay === 0
        ? `building scale ${options.scale} in ${options.dataDir} (anchor ${config.anchor})`
        : `resuming scale ${options.scale} in ${options.dataDir} at day ${nextDay} of ${totalDays}`,
    );
    // Bulk-load settings for this connection only: the app sets its own again at its next start.
    sqlite.pragma('synchronous = OFF');
    sqlite.pragma('cache_size = -2000000');
    sqlite.pragma('foreign_keys = OFF');
    sqlite.pragma('wal_autocheckpoint = 100000');
    const builder = new DayBuilder(t, sqlite, config, options.seed);
    builder.resume(nextDay, rows);
    for (let d = nextDay; d < totalDays; d += daysPerCommit) {
      const end = Math.min(totalDays, d + daysPerCommit);
      sqlite.transaction(() => {
        for (let day = d; day < end; day++) builder.day(day);
        builder.flushCounters();
        setProgress.run('next_day', String(end));
        setProgress.run('rows', JSON.stringify(builder.rows));
      })();
      options.onProgress?.(end, totalDays, builder.total());
      // Let signals in between commits: Ctrl-C stops the build there, and the next run resumes it.
      await setImmediate();
    }
    sqlite.transaction(() => {
      builder.finish();
      setProgress.run('rows', JSON.stringify(builder.rows));
      setProgress.run('done', 'yes');
    })();
    sqlite.pragma('wal_checkpoint(TRUNCATE)');
    return { anchor: config.anchor, scale: config.scale, rows: builder.rows, buildSeconds: (Date.now() - started) / 1000, resumedFromDay: nextDay };
  } finally {
    await t.close({ keepData: true });
  }
}

function createConfig(t: TestApp, sqlite: SQLite.Database, options: BuildOptions): Config {
  const anchor = new Date().toISOString().slice(0, 10);
  const random = new Random(options.seed, 0xc0f1);
  const at = Date.parse(`${anchor}T00:00:00Z`) - historyDays * dayMs;
  const admin = sqlite.prepare('SELECT id FROM api_clients WHERE tenant_id = ? AND role = ? ORDER BY id LIMIT 1').get(t.tenantId, 'admin') as { id: string };
  const vets = Math.max(2, Math.round(vetsPerLocationAtFull * options.scale));
  const locations: Location[] = zones.map((zone, i) => ({
    id: idAt('loc', at + i, random),
    zone,
    tax: 600 + random.int(400),
    prefix: `SC${String(i + 1).padStart(2, '0')}`,
    vets: Array.from({ length: vets }, (_, v) => idAt('prv', at + 1000 + i * 100 + v, random)),
  }));
  const marketplace = Array.from({ length: Math.max(10, Math.round(marketplaceProvidersAtFull * options.scale)) }, (_, p) => ({
    id: idAt('prv', at + 100_000 + p, random),
    listings: [0, 3].map((offset, k) => {
      const category = categories[(p + offset) % categories.length]!;
      return { id: idAt('lst', at + 200_000 + p * 2 + k, random), name: `${category} by provider ${p + 1}`, category, amount: 1_500 + random.int(60) * 100 };
    }),
  }));
  return { anchor, scale: options.scale, seed: options.seed, adminClientId: admin.id, locations, marketplace };
}

/** Locations, vets with working hours, rooms and marketplace providers with listings: what the history happens at. */
function insertConfig(t: TestApp, sqlite: SQLite.Database, config: Config): void {
  const tenant = t.tenantId;
  const at = iso(Date.parse(`${config.anchor}T00:00:00Z`) - historyDays * dayMs);
  const random = new Random(config.seed, 0xc0f2);
  const location = sqlite.prepare(
    `INSERT INTO locations (id, tenant_id, name, timezone, created_at, updated_at, currency, tax_rate_bps) VALUES (?, ?, ?, ?, ?, ?, 'USD', ?)`,
  );
  const provider = sqlite.prepare(
    `INSERT INTO providers (id, tenant_id, name, kind, status, services, rating, rating_count, created_at, updated_at) VALUES (?, ?, ?, ?, ?, '[]', null, 0, ?, ?)`,
  );
  const providerLocation = sqlite.prepare(`INSERT INTO provider_locations (provider_id, location_id, tenant_id) VALUES (?, ?, ?)`);
  const schedule = sqlite.prepare(
    `INSERT INTO provider_schedules (id, tenant_id, provider_id, location_id, weekly, time_off, created_at, updated_at) VALUES (?, ?, ?, ?, ?, '[]', ?, ?)`,
  );
  const room = sqlite.prepare(
    `INSERT INTO boarding_rooms (id, tenant_id, location_id, name, room_type, capacity, species, nightly_rate, currency, active, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 4, ?, ?, 'USD', 1, ?, ?)`,
  );
  const profile = sqlite.prepare(
    `INSERT INTO provider_marketplace_profiles (provider_id, tenant_id, bio, service_area, commission_bps, approved_at, suspended_at, created_at, updated_at) VALUES (?, ?, ?, ?, null, ?, null, ?, ?)`,
  );
  const listing = sqlite.prepare(
    `INSERT INTO marketplace_listings (id, tenant_id, provider_id, name, category, amount, currency, duration_minutes, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'USD', 60, 'active', ?, ?)`,
  );
  // Monday to Saturday, 8:00 to 18:00 in the location's zone (getUTCDay numbering: 1 = Monday).
  const weekly = JSON.stringify([1, 2, 3, 4, 5, 6].map((weekday) => ({ weekday, start: '08:00', end: '18:00' })));
  config.locations.forEach((l, i) => {
    location.run(l.id, tenant, `Scale clinic ${cities[i]}`, l.zone, at, at, l.tax);
    l.vets.forEach((vet, v) => {
      provider.run(vet, tenant, `Dr. ${surnames[v % surnames.length]} ${v + 1} (${cities[i]})`, 'vet', 'active', at, at);
      providerLocation.run(vet, l.id, tenant);
      schedule.run(idAt('sch', Date.parse(at) + i * 1000 + v, random), tenant, vet, l.id, weekly, at, at);
    });
    for (let r = 0; r < roomsPerLocation; r++) {
      const type = roomTypes[r % roomTypes.length]!;
      room.run(
        idAt('room', Date.parse(at) + i * 100 + r, random),
        tenant,
        l.id,
        `${type} ${r + 1}`,
        type,
        JSON.stringify(type === 'cattery' ? ['cat'] : ['dog', 'cat']),
        3_000 + 1_000 * (r % 4),
        at,
        at,
      );
    }
  });
  config.marketplace.forEach((m, p) => {
    provider.run(m.id, tenant, `Scale walker ${p + 1}`, 'walker', 'approved', at, at);
    providerLocation.run(m.id, config.locations[p % config.locations.length]!.id, tenant);
    profile.run(m.id, tenant, `Walks, visits and training, provider ${p + 1}.`, cities[p % cities.length], at, at, at);
    for (const l of m.listings) listing.run(l.id, tenant, m.id, l.name, l.category, l.amount, at, at);
  });
}

/** Builds one day at a time; holds what later days point at (pets, parents, counters). */
class DayBuilder {
  readonly rows: Record<string, number> = {};
  private readonly tenant: string;
  private readonly days: LocalDays;
  private readonly shape: Shape;
  private readonly anchorMs: number;
  private readonly nowMs: number;
  /** The data dir's key (src/db/secret-box.ts), as a KeyObject: one per cipher cost more than the cipher. */
  private readonly key: KeyObject;
  // Parents and pets made so far, in the order they were made (the rowid order of their tables).
  private readonly parentIds: string[] = [];
  private parentLocation = new Uint8Array(0);
  private readonly petIds: string[] = [];
  private petOwner = new Int32Array(0);
  private petLocation = new Uint8Array(0);
  private petSpecies = new Uint8Array(0);
  /** Pets of each location (indices into petIds). */
  private readonly petsAt: number[][];
  private readonly invoiceNumbers: number[];
  /** Day of each pet's latest completed appointment since the last commit (appointments are made day by day: the last write wins). */
  private readonly lastVisits = new Map<number, number>();
  private readonly stmt: Record<string, SQLite.Statement>;

  constructor(
    private readonly t: TestApp,
    private readonly sqlite: SQLite.Database,
    private readonly config: Config,
    private readonly seed: number,
  ) {
    this.tenant = t.tenantId;
    this.anchorMs = Date.parse(`${config.anchor}T00:00:00Z`);
    this.days = new LocalDays(
      this.anchorMs,
      config.locations.map((l) => l.zone),
    );
    this.shape = shapeAt(config.scale);
    // "Now" for the history is the anchor's midnight (UTC): never after the real time of any build or
    // resume (ids must not be future-dated), and the same in every run, so the rows are too.
    this.nowMs = this.anchorMs;
    this.petsAt = config.locations.map(() => []);
    this.invoiceNumbers = config.locations.map(() => 0);
    const file = dataKeyFile(t.dataDir);
    if (!existsSync(file)) throw new Error(`no data key in ${t.dataDir}`);
    this.key = createSecretKey(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64'));
    const p = (text: string) => sqlite.prepare(text);
    this.stmt = {
      parent: p(
        `INSERT INTO pet_parents (id, tenant_id, location_id, name, email, phone, reminder_consent, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      pet: p(
        `INSERT INTO pets (id, tenant_id, location_id, owner_id, name, breed, species, birth_date, last_visit, created_at, updated_at, size) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      appointment: p(
        `INSERT INTO appointments (id, tenant_id, location_id, pet_id, provider_id, type, status, starts_at, ends_at, notes, created_at, updated_at, blocked_from, blocked_until, calendar_token, sequence)
         VALUES (?, ?, ?, ?, ?, 'vet_consultation', ?, ?, ?, null, ?, ?, ?, ?, ?, 0)`,
      ),
      vaccination: p(
        `INSERT INTO vaccinations (id, tenant_id, location_id, pet_id, vaccine, vaccine_key, administered_on, due_on, lot_number, provider_id, recorded_by_client_id, recorded_by_role, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'admin', ?)`,
      ),
      invoiceLine: p(
        `INSERT INTO invoice_lines (id, invoice_id, tenant_id, position, description, quantity, unit_amount, amount, tax_rate_bps, tax_amount, source_id) VALUES (?, ?, ?, 0, ?, 1, ?, ?, ?, ?, ?)`,
      ),
      invoice: p(
        `INSERT INTO invoices (id, tenant_id, location_id, parent_id, pet_id, number, status, currency, subtotal, tax, total, amount_paid, amount_refunded, due_on, subscription_id, created_at, updated_at, finalized_at, paid_at, voided_at, uncollectible_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, 'USD', ?, ?, ?, ?, 0, ?, null, ?, ?, ?, ?, null, null)`,
      ),
      payment: p(
        `INSERT INTO payments (id, tenant_id, location_id, parent_id, invoice_id, wallet_id, amount, amount_refunded, currency, method, reference, status, settlement_id, created_at)
         VALUES (?, ?, ?, ?, ?, null, ?, 0, 'USD', ?, null, 'succeeded', ?, ?)`,
      ),
      ledgerLine: p(`INSERT INTO ledger_lines (entry_id, position, tenant_id, account, amount) VALUES (?, ?, ?, ?, ?)`),
      ledgerEntry: p(
        `INSERT INTO ledger_entries (id, tenant_id, location_id, source_type, source_id, currency, memo, created_at) VALUES (?, ?, ?, ?, ?, 'USD', ?, ?)`,
      ),
      settlement: p(
        `INSERT INTO settlements (id, tenant_id, kind, location_id, provider_id, period_start, period_end, currency, gross, refunds, net, by_method, payment_count, refund_count, status, created_at, commission, paid_at)
         VALUES (?, ?, 'daily_close', ?, null, ?, ?, 'USD', ?, 0, ?, ?, ?, 0, 'closed', ?, 0, null)`,
      ),
      booking: p(
        `INSERT INTO bookings (id, tenant_id, kind, status, pet_id, parent_id, location_id, provider_id, starts_at, ends_at, amount, currency, invoice_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'USD', ?, ?, ?)`,
      ),
      stay: p(
        `INSERT INTO boarding_stays (booking_id, tenant_id, location_id, room_type, species, room_id, check_in_on, check_out_on, nights, notes, checked_in_at, checked_out_at, billed_nights)
         VALUES (?, ?, ?, ?, ?, null, ?, ?, ?, null, ?, ?, null)`,
      ),
      nights: p(
        `INSERT INTO boarding_nights (location_id, night, room_type, species, tenant_id, reserved, checked_in) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (location_id, night, room_type, species) DO UPDATE SET reserved = reserved + excluded.reserved, checked_in = checked_in + excluded.checked_in`,
      ),
      nightTotals: p(
        `INSERT INTO boarding_night_totals (location_id, night, room_type, tenant_id, reserved, checked_in) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (location_id, night, room_type) DO UPDATE SET reserved = reserved + excluded.reserved, checked_in = checked_in + excluded.checked_in`,
      ),
      order: p(
        `INSERT INTO marketplace_orders (id, tenant_id, location_id, parent_id, pet_id, status, currency, subtotal, tax, total, amount_refunded, invoice_id, created_at, updated_at, paid_at, cancelled_at)
         VALUES (?, ?, ?, ?, ?, ?, 'USD', ?, ?, ?, 0, ?, ?, ?, ?, null)`,
      ),
      orderLine: p(
        `INSERT INTO marketplace_order_lines (id, tenant_id, order_id, position, provider_id, listing_id, listing_name, category, booking_id, starts_at, ends_at, amount, tax_rate_bps, currency, commission_bps, commission_amount, amount_refunded, completed_at, tax_refunded)
         VALUES (?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'USD', 1500, ?, 0, ?, 0)`,
      ),
      commission: p(
        `INSERT INTO marketplace_commission_lines (id, tenant_id, order_id, order_line_id, provider_id, kind, refund_id, gross, rate_bps, commission, currency, status, settlement_id, created_at)
         VALUES (?, ?, ?, ?, ?, 'sale', null, ?, 1500, ?, 'USD', 'accrued', null, ?)`,
      ),
      review: p(
        `INSERT INTO provider_reviews (id, tenant_id, provider_id, booking_id, parent_id, pet_id, location_id, stars, comment, reply, replied_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, null, null, ?)`,
      ),
      counter: p(
        `INSERT INTO invoice_number_counters (tenant_id, location_id, prefix, last_number) VALUES (?, ?, ?, ?) ON CONFLICT (tenant_id, location_id) DO UPDATE SET last_number = excluded.last_number`,
      ),
      lastVisit: p('UPDATE pets SET last_visit = ? WHERE id = ?'),
      closeMark: p(
        `INSERT INTO daily_close_marks (tenant_id, location_id, closed_through, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (tenant_id, location_id) DO UPDATE SET closed_through = excluded.closed_through, updated_at = excluded.updated_at`,
      ),
    };
  }

  total(): number {
    return Object.values(this.rows).reduce((a, b) => a + b, 0);
  }

  private count(table: string, n = 1): void {
    this.rows[table] = (this.rows[table] ?? 0) + n;
  }

  /** Reloads what later days point at from the rows built so far (a resumed build). */
  resume(nextDay: number, rows: Record<string, number>): void {
    Object.assign(this.rows, rows);
    if (nextDay === 0) return;
    const locationIndex = new Map(this.config.locations.map((l, i) => [l.id, i]));
    const parents = this.sqlite.prepare('SELECT id, location_id FROM pet_parents WHERE tenant_id = ? ORDER BY rowid').all(this.tenant) as Array<{
      id: string;
      location_id: string;
    }>;
    const parentIndex = new Map<string, number>();
    this.parentLocation = new Uint8Array(parents.length + 1024);
    for (const p of parents) {
      parentIndex.set(p.id, this.parentIds.length);
      this.parentLocation[this.parentIds.length] = locationIndex.get(p.location_id)!;
      this.parentIds.push(p.id);
    }
    const pets = this.sqlite.prepare('SELECT id, owner_id, location_id, species FROM pets WHERE tenant_id = ? ORDER BY rowid').all(this.tenant) as Array<{
      id: string;
      owner_id: string;
      location_id: string;
      species: string;
    }>;
    this.growPets(pets.length + 1024);
    for (const p of pets)
      this.addPet(p.id, parentIndex.get(p.owner_id)!, locationIndex.get(p.location_id)!, p.species === 'cat' ? 1 : p.species === 'dog' ? 0 : 2);
    const counters = this.sqlite.prepare('SELECT location_id, last_number FROM invoice_number_counters WHERE tenant_id = ?').all(this.tenant) as Array<{
      location_id: string;
      last_number: number;
    }>;
    for (const c of counters) this.invoiceNumbers[locationIndex.get(c.location_id)!] = c.last_number;
  }

  private growPets(size: number): void {
    if (size <= this.petOwner.length) return;
    const owner = new Int32Array(size);
    owner.set(this.petOwner);
    const location = new Uint8Array(size);
    location.set(this.petLocation);
    const species = new Uint8Array(size);
    species.set(this.petSpecies);
    this.petOwner = owner;
    this.petLocation = location;
    this.petSpecies = species;
  }

  private addPet(id: string, owner: number, location: number, species: number): void {
    const i = this.petIds.length;
    if (i >= this.petOwner.length) this.growPets(Math.max(1024, i * 2));
    this.petIds.push(id);
    this.petOwner[i] = owner;
    this.petLocation[i] = location;
    this.petSpecies[i] = species;
    this.petsAt[location]!.push(i);
  }

  /** A time during day `d`'s opening hours (8:00–18:00) at location `l`, never after now. */
  private during(l: number, d: number, random: Random): number {
    return Math.min(this.nowMs, this.days.midnight(l, d) + 8 * 3_600_000 + random.int(10 * 3_600_000));
  }

  private seal(plain: string, random: Random): string {
    const iv = random.bytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `sealed:v1:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  /** Everything that happens on day `d` (0 = five years before the anchor). */
  day(d: number): void {
    const past = d < historyDays;
    if (past) {
      this.people(d);
      this.vaccinations(d);
      this.invoices(d);
      this.orders(d);
      this.writeCloses();
    }
    this.appointments(d);
    this.stays(d);
  }

  /** Parents and pets: a tenth were moved in on day 0 (an import), the rest arrive evenly. */
  private people(d: number): void {
    const random = new Random(this.seed, d, 1);
    const share = (total: number) => (d === 0 ? Math.round(total / 10) : 0) + shareOf(total - Math.round(total / 10), d, historyDays);
    const parents = share(this.shape.parents);
    const pets = share(this.shape.pets);
    if (this.parentIds.length + parents > this.parentLocation.length) {
      const grown = new Uint8Array(Math.max(1024, (this.parentIds.length + parents) * 2));
      grown.set(this.parentLocation);
      this.parentLocation = grown;
    }
    const firstNew = this.parentIds.length;
    for (let i = 0; i < parents; i++) {
      const l = random.int(this.config.locations.length);
      const at = iso(this.during(l, d, random));
      const n = this.parentIds.length;
      const id = idAt('usr', Date.parse(at), random);
      const surname = random.pick(surnames);
      this.stmt.parent!.run(
        id,
        this.tenant,
        this.config.locations[l]!.id,
        `${random.pick(names)} ${surname}`,
        `parent${n}@example.com`,
        `+1555${String(n).padStart(7, '0')}`,
        random.chance(0.7) ? 1 : 0,
        at,
        at,
      );
      this.parentLocation[n] = l;
      this.parentIds.push(id);
    }
    this.count('pet_parents', parents);
    for (let i = 0; i < pets; i++) {
      // Mostly the day's new parents (a first visit with their pet), else an existing household's next pet.
      const owner =
        this.parentIds.length > firstNew && random.chance(0.4) ? firstNew + random.int(this.parentIds.length - firstNew) : random.int(this.parentIds.length);
      const l = this.parentLocation[owner]!;
      const at = iso(this.during(l, d, random));
      const speciesRoll = random.next();
      const species = speciesRoll < 0.6 ? 0 : speciesRoll < 0.95 ? 1 : 2;
      const id = idAt('pet', Date.parse(at), random);
      const birth = new Date(Date.parse(at) - random.int(12 * 365) * dayMs - 60 * dayMs).toISOString().slice(0, 10);
      this.stmt.pet!.run(
        id,
        this.tenant,
        this.config.locations[l]!.id,
        this.parentIds[owner],
        random.pick(names),
        species === 0 ? random.pick(dogBreeds) : species === 1 ? random.pick(catBreeds) : 'Rabbit',
        species === 0 ? 'dog' : species === 1 ? 'cat' : 'rabbit',
        birth,
        null,
        at,
        at,
        species === 0 ? random.pick(['small', 'medium', 'large', 'xlarge']) : null,
      );
      this.addPet(id, owner, l, species);
    }
    this.count('pets', pets);
  }

  private vaccinations(d: number): void {
    if (this.petIds.length === 0) return;
    const random = new Random(this.seed, d, 2);
    const n = shareOf(this.shape.vaccinations, d, historyDays);
    const date = this.days.date(d);
    for (let i = 0; i < n; i++) {
      // Recent pets are seen more: half the doses go to the newest tenth.
      const pet = random.chance(0.5) ? this.petIds.length - 1 - random.int(Math.max(1, Math.floor(this.petIds.length / 10))) : random.int(this.petIds.length);
      const l = this.petLocation[pet]!;
      const vaccine = this.petSpecies[pet] === 1 ? random.pick(catVaccines) : random.pick(dogVaccines);
      const at = this.during(l, d, random);
      const years = vaccine === 'Rabies' && random.chance(0.5) ? 3 : 1;
      const due = new Date(Date.parse(`${date}T00:00:00Z`) + years * 365 * dayMs).toISOString().slice(0, 10);
      const location = this.config.locations[l]!;
      this.stmt.vaccination!.run(
        idAt('vac', at, random),
        this.tenant,
        location.id,
        this.petIds[pet],
        vaccine,
        vaccine.toLowerCase(),
        date,
        due,
        `LOT${random.int(1_000_000)}`,
        random.pick(location.vets),
        this.config.adminClientId,
        iso(at),
      );
    }
    this.count('vaccinations', n);
  }

  /**
   * One invoice (one line): finalized (receivable against revenue and tax) and, unless it is one of
   * the recent ones still open, paid by one payment that day (its entry; the day's close claims it).
   */
  private invoice(l: number, d: number, pet: number, description: string, subtotal: number, sourceId: string | null, random: Random, paid: boolean): string {
    const location = this.config.locations[l]!;
    const at = this.during(l, d, random);
    const created = iso(at);
    const id = idAt('inv', at, random);
    const tax = Math.max(1, Math.round((subtotal * location.tax) / 10_000));
    const total = subtotal + tax;
    const parentId = this.parentIds[this.petOwner[pet]!]!;
    this.stmt.invoiceLine!.run(idAt('inl', at, random), id, this.tenant, description, subtotal, subtotal, location.tax, tax, sourceId);
    const number = `${location.prefix}-${String(++this.invoiceNumbers[l]!).padStart(6, '0')}`;
    const paidAt = paid ? iso(Math.min(this.nowMs, at + 60_000 + random.int(3_600_000))) : null;
    const due = this.days.date(d + 30);
    this.stmt.invoice!.run(
      id,
      this.tenant,
      location.id,
      parentId,
      this.petIds[pet],
      number,
      paid ? 'paid' : 'open',
      subtotal,
      tax,
      total,
      paid ? total : 0,
      due,
      created,
      paidAt ?? created,
      created,
      paidAt,
    );
    this.entry(l, 'invoice', id, `invoice ${number} finalized`, created, random, [
      [`receivable:${parentId}`, total],
      [`revenue:${location.id}`, -subtotal],
      [`tax_payable:${location.id}`, -tax],
    ]);
    this.count('invoices');
    this.count('invoice_lines');
    if (paid) {
      const method = random.chance(0.7) ? 'card_terminal' : random.chance(0.6) ? 'cash' : 'bank_transfer';
      const paymentId = idAt('pay', Date.parse(paidAt!), random);
      // Days before the anchor are closed; the anchor's own day is not yet (the hourly close takes it).
      const settlement = d < historyDays - 1 ? this.settle(l, d, total, method) : null;
      this.stmt.payment!.run(paymentId, this.tenant, location.id, parentId, id, total, method, settlement, paidAt);
      this.entry(l, 'payment', paymentId, `payment of invoice ${number} by ${method}`, paidAt!, random, [
        [`cash:${method}`, total],
        [`receivable:${parentId}`, -total],
      ]);
      this.count('payments');
    }
    return id;
  }

  private entry(l: number, sourceType: string, sourceId: string, memo: string, at: string, random: Random, lines: Array<[string, number]>): void {
    const id = idAt('je', Date.parse(at), random);
    lines.forEach(([account, amount], position) => this.stmt.ledgerLine!.run(id, position, this.tenant, account, amount));
    this.stmt.ledgerEntry!.run(id, this.tenant, this.config.locations[l]!.id, sourceType, sourceId, memo, at);
    this.count('ledger_entries');
    this.count('ledger_lines', lines.length);
  }

  /** The day's close per location, written when the day is done; payments point at it. */
  private closes = new Map<number, { id: string; day: number; gross: number; count: number; byMethod: Record<string, number> }>();
  private settle(l: number, d: number, amount: number, method: string): string {
    let close = this.closes.get(l);
    if (!close) {
      const random = new Random(this.seed, d, 100 + l);
      close = { id: idAt('stl', this.days.midnight(l, d + 1) + 3_600_000 + 15 * 60_000, random), day: d, gross: 0, count: 0, byMethod: {} };
      this.closes.set(l, close);
    }
    close.gross += amount;
    close.count++;
    close.byMethod[method] = (close.byMethod[method] ?? 0) + amount;
    return close.id;
  }

  private writeCloses(): void {
    for (const [l, close] of this.closes) {
      const date = this.days.date(close.day);
      this.stmt.settlement!.run(
        close.id,
        this.tenant,
        this.config.locations[l]!.id,
        date,
        date,
        close.gross,
        close.gross,
        JSON.stringify(close.byMethod),
        close.count,
        iso(this.days.midnight(l, close.day + 1) + 3_600_000 + 15 * 60_000),
      );
      this.count('settlements');
    }
    this.closes.clear();
  }

  private invoices(d: number): void {
    if (this.petIds.length === 0) return;
    const random = new Random(this.seed, d, 3);
    const n = shareOf(this.shape.invoices - this.shape.orders, d, historyDays);
    for (let i = 0; i < n; i++) {
      const pet = random.int(this.petIds.length);
      const open = d >= historyDays - 30 ? random.chance(0.3) : random.chance(0.01);
      this.invoice(
        this.petLocation[pet]!,
        d,
        pet,
        random.pick(['Consultation', 'Vaccination', 'Dental cleaning', 'Lab work', 'Surgery']),
        2_000 + random.int(280) * 100,
        null,
        random,
        !open,
      );
    }
  }

  private appointments(d: number): void {
    const weekday = this.days.weekday(d);
    if (weekday === 0) return; // closed on Sundays
    const random = new Random(this.seed, d, 4);
    const workingDays = Math.round((totalDays * 6) / 7);
    const workingIndex = Math.floor((d * 6) / 7);
    const n = shareOf(this.shape.appointments, Math.min(workingIndex, workingDays - 1), workingDays);
    const locations = this.config.locations.length;
    const createdBefore = (start: number) => Math.min(this.nowMs, start - random.int(30 * dayMs) - 3_600_000);
    let made = 0;
    for (let l = 0; l < locations; l++) {
      // Rotated by day, so a small scale's few appointments a day are not all at the same locations.
      const here = shareOf(n, (l + d) % locations, locations);
      const pets = this.petsAt[l]!;
      if (pets.length === 0) continue;
      const vets = this.config.locations[l]!.vets;
      const grid = vets.length * slotsPerDay;
      // Distinct (vet, slot) places: a partial Fisher–Yates over the day's grid.
      const places = Array.from({ length: grid }, (_, i) => i);
      const midnight = this.days.midnight(l, d);
      for (let i = 0; i < Math.min(here, grid); i++) {
        const j = i + random.int(grid - i);
        const place = places[j]!;
        places[j] = places[i]!;
        const vet = vets[Math.floor(place / slotsPerDay)]!;
        const start = midnight + (8 * 60 + (place % slotsPerDay) * slotMinutes) * 60_000;
        const end = start + visitMinutes * 60_000;
        const pet = pets[random.int(pets.length)]!;
        const created = createdBefore(start);
        const roll = random.next();
        const status = start < this.nowMs ? (roll < 0.85 ? 'completed' : roll < 0.93 ? 'cancelled' : 'no_show') : roll < 0.9 ? 'confirmed' : 'cancelled';
        if (status === 'completed') this.lastVisits.set(pet, d);
        const updated = status === 'confirmed' ? created : Math.min(this.nowMs, status === 'cancelled' ? created + random.int(dayMs) : end);
        this.stmt.appointment!.run(
          idAt('apt', created, random),
          this.tenant,
          this.config.locations[l]!.id,
          this.petIds[pet],
          vet,
          status,
          iso(start),
          iso(end),
          iso(created),
          iso(Math.max(created, updated)),
          iso(start),
          iso(end + bufferMinutes * 60_000),
          this.seal(`ct_live_${random.bytes(24).toString('base64url')}`, random),
        );
        made++;
      }
    }
    this.count('appointments', made);
  }

  /** Boarding stays arriving on day `d`: 1–7 nights, booked up to a month ahead. */
  private stays(d: number): void {
    const random = new Random(this.seed, d, 5);
    const n = shareOf(this.shape.stays, d, totalDays);
    const today = historyDays;
    for (let i = 0; i < n; i++) {
      const l = random.int(this.config.locations.length);
      const pets = this.petsAt[l]!;
      if (pets.length === 0) continue;
      const pet = pets[random.int(pets.length)]!;
      const species = this.petSpecies[pet] === 1 ? 'cat' : 'dog';
      const roomType = species === 'cat' ? (random.chance(0.7) ? 'cattery' : 'standard') : random.pick(['standard', 'standard', 'deluxe', 'suite'] as const);
      const nights = 1 + random.int(random.chance(0.8) ? 3 : 7);
      const location = this.config.locations[l]!;
      const checkIn = this.days.date(d);
      const checkOut = this.days.date(d + nights);
      const startsAt = this.days.midnight(l, d);
      const endsAt = this.days.midnight(l, d + nights);
      const created = Math.min(this.nowMs, startsAt - random.int(30 * dayMs) - 3_600_000);
      const cancelled = random.chance(0.05);
      const status = cancelled ? 'cancelled' : d + nights <= today ? 'checked_out' : d <= today ? 'checked_in' : 'reserved';
      const id = idAt('bkg', created, random);
      const checkedInAt = status === 'checked_out' || status === 'checked_in' ? iso(Math.min(this.nowMs, startsAt + 9 * 3_600_000)) : null;
      const checkedOutAt = status === 'checked_out' ? iso(Math.min(this.nowMs, endsAt + 10 * 3_600_000)) : null;
      const parentId = this.parentIds[this.petOwner[pet]!]!;
      this.stmt.booking!.run(
        id,
        this.tenant,
        'boarding',
        status,
        this.petIds[pet],
        parentId,
        location.id,
        null,
        iso(startsAt),
        iso(endsAt),
        nights * 4_000,
        null,
        iso(created),
        checkedOutAt ?? checkedInAt ?? iso(created),
      );
      this.stmt.stay!.run(id, this.tenant, location.id, roomType, species, checkIn, checkOut, nights, checkedInAt, checkedOutAt);
      this.count('bookings');
      this.count('boarding_stays');
      if (cancelled) continue;
      const inHouse = status === 'reserved' ? 0 : 1;
      for (let k = 0; k < nights; k++) {
        const night = this.days.date(d + k);
        this.stmt.nights!.run(location.id, night, roomType, species, this.tenant, 1 - inHouse, inHouse);
        this.stmt.nightTotals!.run(location.id, night, roomType, this.tenant, 1 - inHouse, inHouse);
      }
    }
  }

  /** Marketplace orders: one line (a booking with a provider), paid through an invoice; most completed ones reviewed. */
  private orders(d: number): void {
    if (this.petIds.length === 0) return;
    const random = new Random(this.seed, d, 6);
    const n = shareOf(this.shape.orders, d, historyDays);
    for (let i = 0; i < n; i++) {
      const pet = random.int(this.petIds.length);
      const l = this.petLocation[pet]!;
      const location = this.config.locations[l]!;
      const provider = random.pick(this.config.marketplace);
      const listing = random.pick(provider.listings);
      const at = this.during(l, d, random);
      const orderId = idAt('ord', at, random);
      const lineId = idAt('oln', at, random);
      const bookingId = idAt('bkg', at, random);
      const start = this.days.midnight(l, d + 1 + random.int(5)) + (9 + random.int(8)) * 3_600_000;
      const end = start + 3_600_000;
      const completed = end < this.nowMs;
      const parentId = this.parentIds[this.petOwner[pet]!]!;
      const invoiceId = this.invoice(l, d, pet, listing.name, listing.amount, lineId, random, true);
      const tax = Math.max(1, Math.round((listing.amount * location.tax) / 10_000));
      const commission = Math.round((listing.amount * 1500) / 10_000);
      this.stmt.booking!.run(
        bookingId,
        this.tenant,
        'marketplace',
        completed ? 'completed' : 'confirmed',
        this.petIds[pet],
        parentId,
        location.id,
        provider.id,
        iso(start),
        iso(end),
        listing.amount,
        invoiceId,
        iso(at),
        iso(completed ? end : at),
      );
      this.stmt.order!.run(
        orderId,
        this.tenant,
        location.id,
        parentId,
        this.petIds[pet],
        completed ? 'fulfilled' : 'paid',
        listing.amount,
        tax,
        listing.amount + tax,
        invoiceId,
        iso(at),
        iso(completed ? end : at),
        iso(at),
      );
      this.stmt.orderLine!.run(
        lineId,
        this.tenant,
        orderId,
        provider.id,
        listing.id,
        listing.name,
        listing.category,
        bookingId,
        iso(start),
        iso(end),
        listing.amount,
        location.tax,
        commission,
        completed ? iso(end) : null,
      );
      this.stmt.commission!.run(idAt('cml', at, random), this.tenant, orderId, lineId, provider.id, listing.amount, commission, iso(at));
      this.count('bookings');
      this.count('marketplace_orders');
      this.count('marketplace_order_lines');
      this.count('marketplace_commission_lines');
      if (completed && random.chance(0.6)) {
        const stars = Math.min(5, Math.max(1, Math.round(3.8 + (random.next() - 0.5) * 3)));
        this.stmt.review!.run(
          idAt('rev', Math.min(this.nowMs, end + 3_600_000), random),
          this.tenant,
          provider.id,
          bookingId,
          parentId,
          this.petIds[pet],
          location.id,
          stars,
          random.chance(0.3) ? 'Lovely walk, on time.' : null,
          iso(Math.min(this.nowMs, end + 3_600_000)),
        );
        this.count('provider_reviews');
      }
    }
  }

  /**
   * At every commit: invoice number counters follow the numbers taken, and pets seen take the day of
   * their latest completed appointment as lastVisit (so a resumed build continues both).
   */
  flushCounters(): void {
    for (const [pet, day] of this.lastVisits) this.stmt.lastVisit!.run(this.days.date(day), this.petIds[pet]);
    this.lastVisits.clear();
    this.config.locations.forEach((l, i) => {
      if (this.invoiceNumbers[i]! > 0) this.stmt.counter!.run(this.tenant, l.id, l.prefix, this.invoiceNumbers[i]);
    });
  }

  /** Closed through the day before the anchor at every location; pets' last visits from their completed appointments. */
  finish(): void {
    const yesterday = this.days.date(historyDays - 1);
    const at = iso(this.nowMs);
    for (const l of this.config.locations) this.stmt.closeMark!.run(this.tenant, l.id, yesterday, at);
  }
}
