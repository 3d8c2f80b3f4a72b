import type { Static } from '@sinclair/typebox';
import type { SettlementsTable } from './payments.table.js';
import type { SettlementSchema } from './settlements.schema.js';

export const presentSettlement = (row: SettlementsTable): Static<typeof SettlementSchema> => ({
  id: row.id,
  kind: row.kind,
  locationId: row.location_id,
  providerId: row.provider_id,
  periodStart: row.period_start,
  periodEnd: row.period_end,
  currency: row.currency,
  gross: row.gross,
  refunds: row.refunds,
  net: row.net,
  byMethod: JSON.parse(row.by_method) as Record<string, number>,
  paymentCount: row.payment_count,
  refundCount: row.refund_count,
  status: row.status,
  createdAt: row.created_at,
});
