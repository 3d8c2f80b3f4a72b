import type { Static } from '@sinclair/typebox';
import type { LocationsTable } from '../../db/database.js';
import type { LocationSchema } from './locations.schema.js';
import { requiredVaccinesOf } from './boarding-vaccines.js';
import './locations.table.js';

export const presentLocation = (row: LocationsTable): Static<typeof LocationSchema> => ({
  id: row.id,
  name: row.name,
  timezone: row.timezone,
  currency: row.currency,
  taxRateBps: row.tax_rate_bps,
  boardingRequiredVaccines: requiredVaccinesOf(row),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});
