/**
 * The grooming case of `npm run bench` (for run-bench.ts to run beside (e) POST /v1/appointments):
 *   (h) POST /v1/grooming/appointments at a salon with 20 stylists and 5,000 grooms already booked,
 *       each request booking the next free slot of a stylist (a new stylist/time pair, a fresh
 *       Idempotency-Key), so every 2xx is a real groom: the stylist check against the one busy time
 *       (appointments UNION grooming bookings), the bookings row, its grooming details and booking.created.
 * Target: ≥ 0.5 × the POST /v1/appointments throughput of the same run.
 */
import type autocannon from 'autocannon';
import SQLite from 'better-sqlite3';
import { DateTime } from 'luxon';
import path from 'node:path';
import { accessToken as token, benchAdmin, expectStatus as call, type Fields } from './bench-servers.js';

const zone = 'Europe/London';
const stylistCount = 20;
const seededGrooms = 5_000;
/** A small groom of the bench package: the slot grid step. */
const groomMinutes = 30;
const dayStart = 8 * 60;
const dayEnd = 18 * 60;

export interface GroomingFixtures {
  /** Staff client with `bookings` and `pets` (rate limit lifted). */
  token: string;
  locationId: string;
  petId: string;
  packageId: string;
  stylistIds: string[];
  /** Free stylist/time pairs, each used once by the POST run. */
  freeSlots: Array<{ stylistId: string; startsAt: string }>;
  seededGrooms: number;
}

/**
 * A London salon: 20 groomers working every day 08:00–18:00, a package of 30 minutes for a small
 * pet, a small pet, 5,000 grooms written straight to the file over the last and next weeks (so the
 * busy query has rows to skip), and the free slots from 50 days out in 30-minute steps.
 */
export async function createGroomingFixtures(url: string, dataDir: string, slotsWanted = 120_000): Promise<GroomingFixtures> {
  const { newId } = await import('../../src/db/ids.js');
  const admin = await token(url, benchAdmin.clientId, benchAdmin.clientSecret);
  const location = await call(url, 'POST', '/v1/locations', 201, { name: 'Bench grooming salon', timezone: zone, currency: 'USD', taxRateBps: 0 }, admin);
  const parent = await call(url, 'POST', '/v1/pet-parents', 201, { name: 'Bench groom owner', locationId: location.id }, admin);
  const pet = await call(
    url,
    'POST',
    '/v1/pets',
    201,
    { name: 'Bench poodle', breed: 'Poodle', species: 'dog', ownerId: parent.id, locationId: location.id, size: 'small' },
    admin,
  );
  const pkg = await call(
    url,
    'POST',
    '/v1/grooming/packages',
    201,
    {
      name: 'Bench tidy-up',
      locationId: location.id,
      services: ['bath'],
      durationMinutes: { small: groomMinutes, medium: 45, large: 60, xlarge: 75 },
      price: { small: 2_500, medium: 3_000, large: 3_500, xlarge: 4_000 },
    },
    admin,
  );
  const weekly = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start: '08:00', end: '18:00' }));
  const stylistIds: string[] = [];
  for (let i = 0; i < stylistCount; i++) {
    const stylist = await call(
      url,
      'POST',
      '/v1/providers',
      201,
      { name: `Bench stylist ${String(i + 1).padStart(2, '0')}`, kind: 'groomer', locationIds: [location.id], services: ['grooming'] },
      admin,
    );
    await call(url, 'PUT', `/v1/appointments/schedules/${stylist.id}`, 200, { locationId: location.id, weekly }, admin);
    stylistIds.push(String(stylist.id));
  }
  const client = await call(
    url,
    'POST',
    '/v1/clients',
    201,
    { name: 'bench salon desk', role: 'staff', scopes: ['pets', 'bookings'], rateLimitPerMinute: 100_000_000 },
    admin,
  );
  const desk = await token(url, String(client.clientId), String(client.clientSecret));

  const today = DateTime.now().setZone(zone).startOf('day');
  // Wall-clock time of that day in the salon's zone: on a DST day, midnight plus 17 h is 18:00, not 17:00.
  const at = (day: DateTime, minutes: number) => day.set({ hour: Math.floor(minutes / 60), minute: minutes % 60 }).toUTC();
  const db = new SQLite(path.join(dataDir, 'live.sqlite'));
  let seeded = 0;
  try {
    db.pragma('busy_timeout = 10000');
    const tenantId = (db.prepare('select id from tenants limit 1').get() as { id: string }).id;
    const insertBooking = db.prepare(
      `insert into bookings (id, tenant_id, kind, status, pet_id, parent_id, location_id, provider_id, starts_at, ends_at, amount, currency, invoice_id, created_at, updated_at)
       values (?, ?, 'grooming', ?, ?, ?, ?, ?, ?, ?, 2500, 'USD', null, ?, ?)`,
    );
    const insertDetails = db.prepare(
      `insert into grooming_appointments (booking_id, tenant_id, package_id, size, duration_minutes, pay_with, membership_id, notes) values (?, ?, ?, 'small', ?, 'invoice', null, null)`,
    );
    const nowIso = new Date().toISOString();
    db.transaction(() => {
      // From 20 days back, each stylist takes every third half hour of its day, until 5,000 are placed (all before day 50).
      for (let offset = -20; seeded < seededGrooms && offset < 50; offset++) {
        const day = today.plus({ days: offset });
        for (const stylistId of stylistIds) {
          for (let minutes = dayStart; minutes + groomMinutes <= dayEnd && seeded < seededGrooms; minutes += 3 * groomMinutes) {
            const start = at(day, minutes);
            const id = newId('bkg');
            const status = offset < 0 ? 'completed' : 'confirmed';
            insertBooking.run(
              id,
              tenantId,
              status,
              pet.id,
              parent.id,
              location.id,
              stylistId,
              start.toISO()!,
              start.plus({ minutes: groomMinutes }).toISO()!,
              nowIso,
              nowIso,
            );
            insertDetails.run(id, tenantId, pkg.id, groomMinutes);
            seeded++;
          }
        }
      }
    })();
  } finally {
    db.close();
  }

  const freeSlots: Array<{ stylistId: string; startsAt: string }> = [];
  for (let offset = 50; freeSlots.length < slotsWanted && offset < 720; offset++) {
    const day = today.plus({ days: offset });
    for (let minutes = dayStart; minutes + groomMinutes <= dayEnd && freeSlots.length < slotsWanted; minutes += groomMinutes) {
      const startsAt = at(day, minutes).toISO()!;
      for (const stylistId of stylistIds) freeSlots.push({ stylistId, startsAt });
    }
  }
  return { token: desk, locationId: String(location.id), petId: String(pet.id), packageId: String(pkg.id), stylistIds, freeSlots, seededGrooms: seeded };
}

let slotCounter = 0;
const run = Date.now().toString(36);

/** Each request books the next free stylist/time pair (never reused), so every 201 is a real groom. */
export const groomingBookingOptions = (url: string, fx: GroomingFixtures) => (): autocannon.Options => ({
  url,
  requests: [
    {
      method: 'POST',
      path: '/v1/grooming/appointments',
      headers: { authorization: `Bearer ${fx.token}`, 'content-type': 'application/json', accept: 'application/json' },
      setupRequest: (request) => {
        const slot = fx.freeSlots[slotCounter++ % fx.freeSlots.length]!;
        return {
          ...request,
          headers: { ...request.headers, 'idempotency-key': `bench-groom-${run}-${slotCounter}` },
          body: JSON.stringify({
            petId: fx.petId,
            packageId: fx.packageId,
            locationId: fx.locationId,
            startsAt: slot.startsAt,
            stylistId: slot.stylistId,
            notes: 'bench',
          }),
        };
      },
    },
  ],
});

/** Grooming bookings on disk: proof the run wrote once per 2xx. */
export function countGrooms(dataDir: string): number {
  const db = new SQLite(path.join(dataDir, 'live.sqlite'), { readonly: true });
  try {
    return (db.prepare("select count(*) as n from bookings where kind = 'grooming'").get() as { n: number }).n;
  } finally {
    db.close();
  }
}
