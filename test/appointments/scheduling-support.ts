import type { TestApp } from '../helpers/test-app.js';

let counter = 0;

export interface ProviderBody {
  name?: string;
  kind?: string;
  locationIds: string[];
  services?: string[];
}

/** Creates a provider through the API (admin token unless given). */
export async function createProvider(t: TestApp, body: ProviderBody, token?: string) {
  const res = await t.request('POST', '/v1/providers', {
    token: token ?? (await t.adminToken()),
    body: { name: `Dr. Provider ${++counter}`, kind: 'vet', ...body },
  });
  if (res.status !== 201) throw new Error(`provider create failed: ${res.status} ${res.text}`);
  return res.body as { id: string; name: string; locationIds: string[]; services: string[] };
}

export const weekdays = (days: number[], start: string, end: string) => days.map((weekday) => ({ weekday, start, end }));

/** Sets a provider's schedule at a location (default Monday–Friday 09:00–17:00). */
export async function putSchedule(
  t: TestApp,
  providerId: string,
  locationId: string,
  weekly = weekdays([1, 2, 3, 4, 5], '09:00', '17:00'),
  timeOff: Array<{ from: string; to: string; reason?: string }> = [],
  token?: string,
) {
  const res = await t.request('PUT', `/v1/appointments/schedules/${providerId}`, {
    token: token ?? (await t.adminToken()),
    body: { locationId, weekly, timeOff },
  });
  if (res.status !== 200) throw new Error(`schedule put failed: ${res.status} ${res.text}`);
  return res.body;
}

export async function book(t: TestApp, body: Record<string, unknown>, token?: string, idempotencyKey?: string) {
  return t.request('POST', '/v1/appointments', { token: token ?? (await t.adminToken()), body, ...(idempotencyKey ? { idempotencyKey } : {}) });
}

/** Events of a type whose data names `id` under `key`. */
export async function eventsWith(t: TestApp, type: string, key: string, id: string, env: 'live' | 'sandbox' = 'live') {
  const rows = await t.stores.get(env).db.selectFrom('events').selectAll().where('type', '=', type).orderBy('id').execute();
  return rows
    .filter((r) => (JSON.parse(r.data) as Record<string, unknown>)[key] === id)
    .map((r) => ({ ...r, data: JSON.parse(r.data) as Record<string, unknown> }));
}
