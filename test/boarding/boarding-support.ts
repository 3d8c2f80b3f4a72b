import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import { adminCredentials, startTestApp, TestClock, type Response, type TestApp, type TokenSet } from '../helpers/test-app.js';

/** Helpers of the boarding tests: a location with rooms, tokens by role, bookings, events. */

export const day = 86_400_000;
/** 10:00 in London on 1 Dec 2026 (GMT = UTC): "today" at every test location is 2026-12-01. */
export const start = Date.parse('2026-12-01T10:00:00.000Z');
export const today = '2026-12-01';

/** A date `n` days after `today`. */
export const dayAfter = (n: number, from = today): string => new Date(Date.parse(`${from}T00:00:00Z`) + n * day).toISOString().slice(0, 10);

export interface Site {
  location: { id: string; name: string };
  parent: { id: string };
  pet: { id: string };
}

export async function site(t: TestApp, location: Record<string, unknown> = {}, pet: Record<string, unknown> = {}): Promise<Site> {
  const loc = await createLocation(t, { currency: 'USD', taxRateBps: 0, ...location });
  const parent = await createPetParent(t, loc.id);
  const p = await createPet(t, parent.id, loc.id, pet);
  return { location: loc, parent, pet: p };
}

export async function anotherPet(t: TestApp, s: Site, overrides: Record<string, unknown> = {}) {
  return createPet(t, s.parent.id, s.location.id, overrides);
}

export async function expectStatus(res: Response, status: number, what: string): Promise<Response> {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${res.text}`);
  return res;
}

export async function room(t: TestApp, token: string, locationId: string, body: Record<string, unknown> = {}) {
  const res = await t.request('POST', '/v1/boarding/rooms', {
    token,
    body: {
      locationId,
      name: `Room ${Math.random().toString(36).slice(2, 8)}`,
      roomType: 'standard',
      capacity: 1,
      species: ['dog'],
      nightlyRate: 5_000,
      ...body,
    },
  });
  return (await expectStatus(res, 201, 'room')).body as { id: string; capacity: number; nightlyRate: number; roomType: string };
}

export const bookStay = (t: TestApp, token: string, s: Site, body: Record<string, unknown> = {}, idempotencyKey?: string) =>
  t.request('POST', '/v1/boarding/bookings', {
    token,
    body: { petId: s.pet.id, locationId: s.location.id, roomType: 'standard', checkInOn: today, checkOutOn: dayAfter(3), ...body },
    ...(idempotencyKey ? { idempotencyKey } : {}),
  });

export async function booked(t: TestApp, token: string, s: Site, body: Record<string, unknown> = {}) {
  return (await expectStatus(await bookStay(t, token, s, body), 201, 'booking')).body as { id: string; amount: number; nights: number; status: string };
}

export async function checkedIn(t: TestApp, token: string, bookingId: string, body: Record<string, unknown> = {}) {
  return (await expectStatus(await t.request('POST', '/v1/boarding/check-in', { token, body: { bookingId, ...body } }), 200, 'check-in')).body as {
    id: string;
    roomId: string;
  };
}

/** Events of a type whose data names `id` in `field`. */
export async function eventsOf(t: TestApp, type: string, field: string, id: string, env: 'live' | 'sandbox' = 'live') {
  const rows = await t.stores.get(env).db.selectFrom('events').selectAll().where('type', '=', type).orderBy('id').execute();
  return rows.map((r) => ({ ...r, data: JSON.parse(r.data) as Record<string, unknown> })).filter((r) => r.data[field] === id);
}

export interface Tokens {
  admin: string;
  staff: TokenSet;
  doctor: TokenSet;
  reader: TokenSet;
}

/** An app on the test clock at `start`, and tokens: admin, staff and doctor with `bookings`, and a `bookings.read` reader. */
export async function boardingApp(at = start) {
  const t = await startTestApp({ clock: new TestClock(at) });
  const tokens: Tokens = {
    admin: await t.adminToken(),
    staff: await t.client({ name: 'front desk', role: 'staff', scopes: ['bookings', 'pets'] }),
    doctor: await t.client({ name: 'vet', role: 'doctor', scopes: ['bookings', 'pets'] }),
    reader: await t.client({ name: 'reader', role: 'staff', scopes: ['bookings.read'] }),
  };
  /** Moves the clock; every token is taken again for the new time (tokens expire on the same clock). */
  const move = async (to: number) => {
    t.clock.set(to);
    tokens.admin = (await t.token(adminCredentials.live.clientId, adminCredentials.live.clientSecret)).body.access_token;
    for (const c of [tokens.staff, tokens.doctor, tokens.reader]) c.accessToken = (await t.token(c.clientId, c.clientSecret)).body.access_token;
  };
  return { t, tokens, move };
}

/** A client confined to `locationIds`. */
export const scopedClient = (t: TestApp, locationIds: string[], scopes = ['bookings']) => t.client({ name: 'elsewhere', role: 'staff', scopes, locationIds });

export async function runJob(t: TestApp, admin: string, name: string) {
  const res = await t.request('POST', `/v1/jobs/${name}/run`, { token: admin, body: { wait: true } });
  if (res.status !== 200 || res.body.status !== 'succeeded') throw new Error(`${name} run: ${res.status} ${res.text}`);
  return res.body as { result: Record<string, unknown> };
}
