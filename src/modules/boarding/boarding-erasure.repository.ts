import { scoped } from '../../db/access-policy.js';
import type { Executor } from '../../db/database.js';

/** Children first: every foreign key points at a table later in this list. */
export const boardingTables = [
  'boarding_dose_alerts',
  'boarding_doses',
  'boarding_care_plans',
  'boarding_night_totals',
  'boarding_nights',
  'boarding_stays',
  'boarding_rooms',
] as const;

/**
 * Erases every boarding row of a tenant (sandbox reset only). The dose log is append-only: the
 * boarding_erasures row lets its DELETEs through the trigger and is removed in the same transaction.
 * The shared bookings rows are the caller's to delete, after these.
 */
export async function eraseBoardingRows(db: Executor, tenantId: string, reason: string): Promise<void> {
  const tenant = scoped(db, { tenantId, locationIds: null });
  await tenant.insert('boarding_erasures', { tenant_id: tenantId, reason });
  for (const table of boardingTables) await tenant.deleteFrom(table).execute();
  await tenant.deleteFrom('boarding_erasures').execute();
}
