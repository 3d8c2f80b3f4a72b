/**
 * The boarding case of `npm run bench` (for run-bench.ts to run beside GET /v1/pets/:id):
 *   GET /v1/boarding/occupancy for 4 weeks at a location with 40 rooms and ~2,000 stays in that
 *   window, checked against 0.3 × GET /v1/pets/:id in the same run.
 * Occupancy reads two grouped queries (active room capacity per type, the per-night counters) and
 * sweeps the nights in memory, so its cost follows nights × room types, not the number of stays.
 */
import type autocannon from 'autocannon';
import { DateTime } from 'luxon';
import { accessToken as token, benchAdmin, expectStatus as call, type Fields } from './bench-servers.js';

const zone = 'Europe/London';
const roomTypes = ['standard', 'deluxe', 'suite', 'cattery'] as const;
const windowNights = 28;

export interface BoardingFixtures {
  /** Staff client with `bookings` (rate limit lifted). */
  token: string;
  locationId: string;
  /** The 4-week window the bench asks for, dates inclusive. */
  from: string;
  to: string;
  rooms: number;
  stays: number;
  checkedIn: number;
}

/** Runs `work` over `items`, `width` at a time (the fixtures are ~2,300 HTTP calls). */
async function inBatches<T>(items: readonly T[], width: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += width) await Promise.all(items.slice(i, i + width).map((item, j) => work(item, i + j)));
}

/**
 * A location with 40 rooms (10 of each of 4 types, capacity 4, dogs and cats), 200 pets, and
 * `stays` (default 2,000) stays of 1–2 nights spread over the next 4 weeks; the stays starting
 * today are checked in, so the answer has reserved and in-house counts.
 */
export async function createBoardingFixtures(url: string, stays = 2_000): Promise<BoardingFixtures> {
  const admin = await token(url, benchAdmin.clientId, benchAdmin.clientSecret);
  const location = await call(url, 'POST', '/v1/locations', 201, { name: 'Bench boarding', timezone: zone, currency: 'USD', taxRateBps: 825 }, admin);
  const client = await call(
    url,
    'POST',
    '/v1/clients',
    201,
    { name: 'bench kennel desk', role: 'staff', scopes: ['bookings', 'pets'], rateLimitPerMinute: 100_000_000 },
    admin,
  );
  const desk = await token(url, String(client.clientId), String(client.clientSecret));

  const rooms = roomTypes.flatMap((roomType, t) =>
    Array.from({ length: 10 }, (_, i) => ({ roomType, name: `${roomType} ${i + 1}`, nightlyRate: 3_000 + 1_000 * t + 100 * i })),
  );
  await inBatches(rooms, 10, async (r) => {
    await call(url, 'POST', '/v1/boarding/rooms', 201, { locationId: location.id, ...r, capacity: 4, species: ['dog', 'cat'] }, desk);
  });
  const parent = await call(url, 'POST', '/v1/pet-parents', 201, { name: 'Bench boarder', locationId: location.id }, admin);
  const pets: string[] = [];
  await inBatches(Array.from({ length: 200 }), 20, async (_, i) => {
    const pet = await call(
      url,
      'POST',
      '/v1/pets',
      201,
      { name: `Boarder ${i}`, breed: 'Mixed', species: i % 5 === 0 ? 'cat' : 'dog', ownerId: parent.id, locationId: location.id },
      desk,
    );
    pets[i] = String(pet.id);
  });

  const today = DateTime.now().setZone(zone).toISODate()!;
  const day = (n: number) => DateTime.fromISO(today, { zone }).plus({ days: n }).toISODate()!;
  // Per room type about 18 arrivals a day of 1 or 2 nights: ~27 of its 40 places taken each night.
  let created = 0;
  const arrivingToday: string[] = [];
  await inBatches(Array.from({ length: stays }), 20, async (_, i) => {
    const slot = Math.floor(i / roomTypes.length);
    const offset = slot % (windowNights - 1);
    const res = await fetch(`${url}/v1/boarding/bookings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${desk}` },
      // One pet per room type, round of 27 days and parity of the day: its stays start 2 days apart, never overlapping.
      body: JSON.stringify({
        petId: pets[(i % roomTypes.length) * 50 + 2 * Math.floor(slot / (windowNights - 1)) + (offset % 2)],
        locationId: location.id,
        roomType: roomTypes[i % roomTypes.length],
        checkInOn: day(offset),
        checkOutOn: day(offset + 1 + (slot % 2)),
      }),
    });
    const body = (await res.json()) as Fields;
    if (res.status === 201) {
      created++;
      if (offset === 0) arrivingToday.push(String(body.id));
    } else if (!(res.status === 409 && body.code === 'no_vacancy')) throw new Error(`booking: ${res.status} ${JSON.stringify(body)}`);
  });
  let checkedIn = 0;
  await inBatches(arrivingToday, 10, async (bookingId) => {
    await call(url, 'POST', '/v1/boarding/check-in', 200, { bookingId }, desk);
    checkedIn++;
  });
  const from = today;
  const to = day(windowNights - 1);
  // One call through the pipeline proves the token and the fixtures before the load starts.
  await call(url, 'GET', `/v1/boarding/occupancy?locationId=${location.id}&from=${from}&to=${to}`, 200, undefined, desk);
  return { token: desk, locationId: String(location.id), from, to, rooms: rooms.length, stays: created, checkedIn };
}

/** GET /v1/boarding/occupancy for the fixtures' 4 weeks. */
export const occupancyOptions = (url: string, fx: BoardingFixtures) => (): autocannon.Options => ({
  url: `${url}/v1/boarding/occupancy?locationId=${fx.locationId}&from=${fx.from}&to=${fx.to}`,
  headers: { authorization: `Bearer ${fx.token}`, accept: 'application/json' },
});
