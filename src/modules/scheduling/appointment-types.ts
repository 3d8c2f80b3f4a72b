import { scoped } from '../../db/access-policy.js';
import type { Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';

/**
 * What the kernel knows of the appointment-type catalogue (the appointments module owns its routes):
 * its bounds, which also bound the overlap queries (nothing blocks a provider longer than this).
 */
export const maxDurationMinutes = 480;
export const maxBufferMinutes = 120;

/** Of `codes`, those that are not active types of the tenant. */
export async function unknownAppointmentTypes(db: Executor, access: AccessFilter, codes: readonly string[]): Promise<string[]> {
  if (codes.length === 0) return [];
  const rows = await scoped(db, access)
    .selectFrom('appointment_types')
    .select('code')
    .where('code', 'in', [...codes])
    .where('active', '=', 1)
    .execute();
  const known = new Set(rows.map((r) => r.code));
  return codes.filter((c) => !known.has(c));
}
