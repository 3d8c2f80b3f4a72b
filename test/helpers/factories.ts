import type { TestApp } from './test-app.js';

let counter = 0;
const unique = (prefix: string) => `${prefix} ${++counter}`;

/** Creates a location through the API (admin token of the environment). */
export async function createLocation(t: TestApp, overrides: Record<string, unknown> = {}, env: 'live' | 'sandbox' = 'live') {
  const res = await t.request('POST', '/v1/locations', {
    token: await t.adminToken(env),
    body: { name: unique('Clinic'), timezone: 'Europe/London', ...overrides },
  });
  if (res.status !== 201) throw new Error(`location create failed: ${res.status} ${res.text}`);
  return res.body as { id: string; name: string; timezone: string };
}

export async function createPetParent(t: TestApp, locationId: string, overrides: Record<string, unknown> = {}, token?: string) {
  const res = await t.request('POST', '/v1/pet-parents', {
    token: token ?? (await t.adminToken()),
    body: { name: unique('Parent'), email: `p${++counter}@example.com`, locationId, reminderConsent: true, ...overrides },
  });
  if (res.status !== 201) throw new Error(`pet parent create failed: ${res.status} ${res.text}`);
  return res.body as { id: string; locationId: string };
}

export async function createPet(t: TestApp, ownerId: string, locationId: string, overrides: Record<string, unknown> = {}, token?: string) {
  const res = await t.request('POST', '/v1/pets', {
    token: token ?? (await t.adminToken()),
    body: { name: unique('Pet'), breed: 'Beagle', species: 'dog', ownerId, locationId, ...overrides },
  });
  if (res.status !== 201) throw new Error(`pet create failed: ${res.status} ${res.text}`);
  return res.body as { id: string; ownerId: string; locationId: string };
}

/** A location with one parent and one pet in it. */
export async function createHousehold(t: TestApp) {
  const location = await createLocation(t);
  const parent = await createPetParent(t, location.id);
  const pet = await createPet(t, parent.id, location.id);
  return { location, parent, pet };
}
