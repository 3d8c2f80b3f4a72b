import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { Executor } from '../../db/database.js';
import type { AnyRoute } from '../../http/route.js';
import { onInvoicePaid, onRefund } from '../payments/index.js';
import { deleteMarketplaceRows } from './marketplace.repository.js';
import { marketplaceRouteList } from './marketplace.routes.js';
import { onOrderInvoicePaid, refuseUnmappedOrderRefund } from './orders.service.js';

/**
 * The marketplace's orders, commissions and provider payouts (DESIGN §12). Paying an order's
 * invoice through §9 moves the order to paid: payments calls the hook registered here inside the
 * paying transaction (payments imports no module, so there is no import cycle); a refund of an
 * order's payment through POST /v1/refunds is refused by the refund hook, since only the order's
 * refund route maps money to lines and payouts.
 */
export function marketplaceRoutes(deps: { config: Config; clock: Clock }): AnyRoute[] {
  onInvoicePaid(onOrderInvoicePaid);
  onRefund(refuseUnmappedOrderRefund);
  return marketplaceRouteList(deps);
}

/** Sandbox reset: erases the tenant's orders and commission lines; runs before money records (statements), bookings and providers go. */
export async function eraseMarketplaceRecords(db: Executor, tenantId: string): Promise<void> {
  await deleteMarketplaceRows(db, tenantId);
}
