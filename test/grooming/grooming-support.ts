import { createLocation, createPet, createPetParent } from '../helpers/factories.js';
import type { Response, TestApp } from '../helpers/test-app.js';
import { createProvider, putSchedule } from '../appointments/scheduling-support.js';

/** Helpers of the grooming tests: a salon (location, parent, pet with a size, a groomer with hours, a package), grooms and reads. */

export const groomKeys = [
  'id',
  'kind',
  'status',
  'petId',
  'parentId',
  'packageId',
  'stylistId',
  'locationId',
  'startsAt',
  'endsAt',
  'size',
  'durationMinutes',
  'amount',
  'currency',
  'payWith',
  'membershipId',
  'invoiceId',
  'notes',
  'createdAt',
  'updatedAt',
];

export const packageBody = (extra: Record<string, unknown> = {}) => ({
  name: 'Full groom',
  services: ['bath', 'haircut'],
  durationMinutes: { small: 60, medium: 90, large: 120, xlarge: 150 },
  price: { small: 4_000, medium: 5_500, large: 7_000, xlarge: 9_000 },
  ...extra,
});

export async function expectStatus(res: Response, status: number, what: string): Promise<Response> {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${res.text}`);
  return res;
}

export async function createPackage(t: TestApp, body: Record<string, unknown>, token?: string) {
  const res = await t.request('POST', '/v1/grooming/packages', { token: token ?? (await t.adminToken()), body });
  return (await expectStatus(res, 201, 'package')).body as { id: string; currency: string; sessions: number };
}

export async function createGroomer(t: TestApp, locationIds: string[], services: string[] = ['grooming'], schedule = true) {
  const stylist = await createProvider(t, { kind: 'groomer', locationIds, services, name: `Stylist ${Math.random().toString(36).slice(2, 7)}` });
  if (schedule) for (const locationId of locationIds) await putSchedule(t, stylist.id, locationId);
  return stylist;
}

export interface Salon {
  location: { id: string; name: string; timezone: string };
  parent: { id: string };
  pet: { id: string };
  stylist: { id: string; name: string };
  pkg: { id: string; currency: string };
}

/** A London salon (USD, no tax) with a medium pet, one groomer working Monday–Friday 09:00–17:00 and a location package. */
export async function salon(t: TestApp, options: { taxRateBps?: number } = {}): Promise<Salon> {
  const location = await createLocation(t, { timezone: 'Europe/London', currency: 'USD', taxRateBps: options.taxRateBps ?? 0 });
  const parent = await createPetParent(t, location.id);
  const pet = await createPet(t, parent.id, location.id, { size: 'medium' });
  const stylist = await createGroomer(t, [location.id]);
  const pkg = await createPackage(t, packageBody({ locationId: location.id }));
  return { location, parent, pet, stylist, pkg };
}

export async function groom(t: TestApp, body: Record<string, unknown>, token?: string, idempotencyKey?: string) {
  return t.request('POST', '/v1/grooming/appointments', { token: token ?? (await t.adminToken()), body, ...(idempotencyKey ? { idempotencyKey } : {}) });
}

export async function moveTo(t: TestApp, id: string, status: string, token?: string, extra: Record<string, unknown> = {}) {
  return t.request('PATCH', `/v1/grooming/appointments/${id}`, { token: token ?? (await t.adminToken()), body: { status, ...extra } });
}

/**
 * Config for a test file's shared app whose clock serial tests move ahead to complete grooms (a
 * groom is completed from its start on): tokens taken at the file's start outlive the move.
 */
export const movableClockConfig = { accessTokenTtlSeconds: 30 * 86_400 };

/**
 * Runs `moves` with the app's clock at `iso` (e.g. a groom's startsAt, from which it may be
 * completed), then puts the clock back. Only in test.serial tests: the clock is the whole file's.
 */
export async function atTime<T>(t: TestApp, iso: string, moves: () => Promise<T>): Promise<T> {
  const before = t.clock.now();
  t.clock.set(Date.parse(iso));
  try {
    return await moves();
  } finally {
    t.clock.set(before);
  }
}

/** confirmed → checked_in → in_progress, then completed (the last answer). */
export async function complete(t: TestApp, id: string, token?: string) {
  await expectStatus(await moveTo(t, id, 'checked_in', token), 200, 'check in');
  await expectStatus(await moveTo(t, id, 'in_progress', token), 200, 'start');
  return moveTo(t, id, 'completed', token);
}

export async function countRows(
  t: TestApp,
  table: 'bookings' | 'grooming_appointments' | 'grooming_packages' | 'grooming_memberships' | 'grooming_credit_uses' | 'grooming_package_credits' | 'invoices',
) {
  const rows = await t.stores.get('live').db.selectFrom(table).selectAll().execute();
  return rows.length;
}
