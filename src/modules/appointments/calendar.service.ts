import { timingSafeEqual } from 'node:crypto';
import type { SecretBox } from '../../db/secret-box.js';
import type { Environment } from '../../config.js';
import type { Stores } from '../../db/stores.js';
import { notFound } from '../../http/errors.js';
import { findCalendarEntry } from './appointments.repository.js';
import { calendarTokenPrefix } from './appointments.service.js';
import { renderCalendar } from './calendar-ics.js';

const sameSecret = (a: string, b: string): boolean => {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
};

const environmentOf = (token: string): Environment | null =>
  (Object.entries(calendarTokenPrefix) as Array<[Environment, string]>).find(([, prefix]) => token.startsWith(prefix))?.[0] ?? null;

/**
 * The ICS text of an appointment, for a caller holding its calendar token. The token's prefix
 * names the environment's database; any mismatch (unknown id, wrong token, other environment)
 * answers the same 404.
 */
export async function calendarFor(stores: Stores, id: string, token: string | undefined, secrets: Pick<SecretBox, 'open'>): Promise<string> {
  const env = token === undefined ? null : environmentOf(token);
  if (token === undefined || env === null || !stores.has(env)) throw notFound('appointment', id);
  const row = await findCalendarEntry(stores.get(env).db, id);
  if (!row || !sameSecret(secrets.open(row.calendar_token), token)) throw notFound('appointment', id);
  const cancelled = row.status === 'cancelled' || row.status === 'no_show';
  return renderCalendar({
    uid: `${row.id}@petcare`,
    stamp: Date.parse(row.updated_at),
    created: Date.parse(row.created_at),
    lastModified: Date.parse(row.updated_at),
    start: Date.parse(row.starts_at),
    end: Date.parse(row.ends_at),
    summary: `${row.type_name ?? row.type} for ${row.pet_name} with ${row.provider_name}`,
    location: row.location_name,
    description: row.notes,
    status: cancelled ? 'CANCELLED' : 'CONFIRMED',
    sequence: row.sequence,
  });
}
